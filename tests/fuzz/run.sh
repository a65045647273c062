#!/bin/sh
# run.sh — `make fuzz`: coverage-guided fuzzing of every parser of outside input with clang's
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz/fuzz_*.c, one target per
# parser; see README.md "Reliability").
#
#   tests/fuzz/run.sh                       build, then run every target for $FUZZ_SECONDS (60) s
#   FUZZ_TARGETS="sgf posstr" FUZZ_SECONDS=180 FUZZ_JOBS=2 tests/fuzz/run.sh
#   FUZZ_BUILD_ONLY=1 tests/fuzz/run.sh     build the library and the targets only
#
# The library is built by the Makefile's own rules into build-fuzz/ with clang and
# -fsanitize=address,undefined,fuzzer-no-link (UBSan findings abort); each target is linked with
# -fsanitize=fuzzer,address,undefined into build-fuzz/fuzz/.  A target runs on a working corpus
# build-fuzz/corpus/NAME (which it grows), seeded from the committed tests/fuzz/corpus/NAME and,
# where the archive is found ($ZZ_BOARDSPACE_DIR or ../shared/boardspace), more seeds from it
# (not committed).  Per target it prints the executions, libFuzzer's final coverage (cov: edges,
# ft: features) and the findings: crash, leak, timeout (10 s) and out-of-memory (2 GiB) inputs,
# saved as build-fuzz/findings/NAME-*.  Exit status 1 when anything was found (or a build failed).
#
# clang warns where gcc does not on one thing in code this script does not own:
# -Wno-unknown-pragmas, for src/nn/ops_fast.c's `#pragma GCC push_options/target`, which clang
# ignores; so that file is compiled apart with -mavx512f -mavx2 -mfma (the kernels it holds need
# them; no fuzz target runs them).
set -u
cd "$(dirname "$0")/../.." || exit 1
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
ALL="sgf xx_sgf notation move_text posstr protocol checkpoint replay runstate api"
TARGETS=${FUZZ_TARGETS:-$ALL}
B=build-fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
OPT="-O1 -g $SAN -fsanitize=fuzzer-no-link"
unset MAKEFLAGS MFLAGS MAKELEVEL    # a make of its own (not a sub-make of `make fuzz`: other flags)
MK="make --no-print-directory BUILD=$B CC=clang NVCC= MPICC= EXTRA_CFLAGS=-Wno-unknown-pragmas"

say() { echo "zertz: fuzz: $*"; }
case "$SECONDS_EACH" in ''|*[!0-9]*) say "FUZZ_SECONDS must be a whole number of seconds, not '$SECONDS_EACH'" >&2; exit 2;; esac
case "$JOBS" in ''|*[!0-9]*|0) say "FUZZ_JOBS must be a positive whole number, not '$JOBS'" >&2; exit 2;; esac
for t in $TARGETS; do
    [ -f tests/fuzz/fuzz_$t.c ] || { say "no target '$t' (tests/fuzz/fuzz_$t.c); targets: $ALL" >&2; exit 2; }
done

# ---- clang and libFuzzer ----------------------------------------------------------------------
if ! command -v clang >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
     clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
    say "needs clang with libFuzzer: apt-get install -y clang libfuzzer-14-dev (Debian 12)" >&2
    exit 1
fi

# ---- the library, with the Makefile's rules --------------------------------------------------
mkdir -p $B/fuzz $B/findings
# the Makefile does not track flags: objects built with other flags are removed first
[ "$(cat $B/flags 2>/dev/null)" = "$OPT" ] || { rm -rf $B/src $B/libzertz.a; echo "$OPT" >$B/flags; }
rm -f $B/src/nn/ops_fast.o
$MK -j2 OPT="$OPT -mavx512f -mavx2 -mfma" $B/src/nn/ops_fast.o >$B/build.log 2>&1 &&
$MK -j2 OPT="$OPT" $B/libzertz.a >>$B/build.log 2>&1 || { cat $B/build.log; say "the library did not build with clang (log above)" >&2; exit 1; }

# ---- the targets -------------------------------------------------------------------------------
INC="-Isrc -Itests/fuzz"
LIBS="-lmicrohttpd -lcjson -lm -lpthread -fopenmp"
if [ -d .deps/root/usr/include ]; then
    INC="$INC -isystem .deps/root/usr/include"
    LIBS="-L.deps/root/usr/lib/x86_64-linux-gnu -Wl,-rpath,$(pwd)/.deps/root/usr/lib/x86_64-linux-gnu $LIBS"
fi
for t in $TARGETS; do
    clang -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -fno-omit-frame-pointer -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter $INC \
        tests/fuzz/fuzz_$t.c -o $B/fuzz/fuzz_$t $B/libzertz.a $LIBS || { say "fuzz_$t did not build" >&2; exit 1; }
done
[ -n "${FUZZ_BUILD_ONLY:-}" ] && { say "built: $(for t in $TARGETS; do printf '%s ' $B/fuzz/fuzz_$t; done)"; exit 0; }

# ---- seeds from the archive (not committed) ---------------------------------------------------
ARCHIVE=${ZZ_BOARDSPACE_DIR:-../shared/boardspace}
archive_seeds() {        # target corpus-dir
    [ -d "$ARCHIVE/sgf" ] || return 0
    case $1 in
    sgf) find "$ARCHIVE/sgf" -name '*.sgf' ! -path '*xx-custom*' | awk 'NR % 97 == 1' | head -150 |
             while read -r f; do cp -f "$f" "$2/"; done ;;
    xx_sgf) find "$ARCHIVE/sgf/xx-custom" -name '*.sgf' -exec cp -f {} "$2/" \; ;;
    notation) command -v jq >/dev/null || return 0
        for r in 37 48 61; do
            k=0
            jq -r '.moves | map(.[1]) | join("; ")' "$ARCHIVE/normalized/$r.jsonl" 2>/dev/null | awk 'NR % 40 == 1' | head -30 |
            while read -r line; do k=$((k + 1)); printf '\000%s' "$line" >"$2/archive-$r-$k"; done
        done ;;
    esac
}

# ---- run ---------------------------------------------------------------------------------------
run_one() {              # target
    t=$1
    work=$B/corpus/$t
    mkdir -p "$work"
    archive_seeds "$t" "$work"
    rm -f $B/findings/$t-*
    log=$B/fuzz/$t.log
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        $B/fuzz/fuzz_$t -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=$B/findings/$t- "$work" tests/fuzz/corpus/$t >"$log" 2>&1
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -E '(DONE|#[0-9]+).*cov: ' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p')
    found=$(ls $B/findings/$t-* 2>/dev/null | wc -l)
    printf 'zertz: fuzz: %-10s %6ss  execs %10s  cov %6s  ft %6s  findings %s%s\n' "$t" "$SECONDS_EACH" \
        "${execs:-?}" "${cov% *}" "${cov#* }" "$found" "$( [ "$found" -gt 0 ] && echo " ($(ls $B/findings/$t-* | tr '\n' ' ')log $log)")"
}

say "running $(echo $TARGETS | wc -w) targets, $SECONDS_EACH s each, $JOBS at a time (logs: $B/fuzz/NAME.log)"
running=0
for t in $TARGETS; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
done
wait
n=$(ls $B/findings 2>/dev/null | wc -l)
if [ "$n" -gt 0 ]; then
    say "$n findings in $B/findings: reproduce one with $B/fuzz/fuzz_NAME FILE; once fixed, keep the input as tests/fuzz/crashes/NAME-WHAT.bin (test_fuzz_regress replays it)"
    exit 1
fi
say "no findings"
