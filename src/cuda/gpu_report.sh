#!/usr/bin/env bash
# gpu_report.sh OUT — a GPU session's checklist (src/cuda/NOTES.md) in one command
# (`make gpu-report OUT=DIR`): 01 build, 02 both CUDA suites, 03 compute-sanitizer memcheck and
# racecheck, 04 the kernel lab, 05 make bench-gpu (with the PyTorch yardstick where torch exists),
# 06 bench_train --gpu, 07 a short make train on the GPU that resumes once, 08 the kernel variants
# side by side with the training step's profile, 09 the sanitizers on the tiled kernels alone
# (sized to finish), 10 eager PyTorch alone, 11 the sanitizers on the policy-loss kernels.
# test_cuda's two-thread case (the self-play network and the trainer on the GPU at once:
# CK_RUN_CASE=threads) runs apart: five seeds in step 02, and under memcheck and racecheck in
# step 03, beside the rest of test_cuda (CK_RUN_CASE=cuda), so that no case runs twice under the
# sanitizers; the injected-failure case runs under memcheck with
# API-error reports off (see sanitize below).
#
# ONLY="01 03" runs just those steps (a rerun after a fix; pick at most 7 with OUT's 8-file limit
# in mind); TRAIN_MINUTES, TRAIN_ARGS and KEEP_RUN shape step 07 (below); BENCH_TRAIN_ARGS is
# added to step 06's first bench_train.  Every step runs under its own time limit, and the whole
# report stays inside BUDGET_S (default 540 s: the device tool allows 600 s a command); a step
# that fails is recorded and the next one runs; a step that would start with too little time left
# is recorded as not run.  OUT gets summary.txt and one log per step, each cut to its last 4 MiB,
# so that all of it comes back through the device tool.  Without a GPU, only the build runs and
# the summary says loudly which steps did not run.  Carried packages (make deps-fetch) are used
# when present: the build never calls apt (NO_APT=1).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/gpu-report}
budget=${BUDGET_S:-540}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$out"
summary=$out/summary.txt
t0=$(date +%s)
: > "$summary"

say() { echo "$*" | tee -a "$summary"; }
left() { echo $(( budget - ($(date +%s) - t0) )); }

# step NUMBER NAME LIMIT_S COMMAND...: run it with its log, record the result in the summary.
step() {
    local n=$1 name=$2 limit=$3
    shift 3
    local log=$out/$n-$name.log rest
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $n "* ]]; then say "skipped  $n $name: not in ONLY=\"$ONLY\""; return; fi
    rest=$(left)
    if [ "$rest" -lt 20 ]; then say "NOT RUN  $n $name: only ${rest}s of the budget left"; return; fi
    [ "$limit" -gt "$rest" ] && limit=$rest
    local s=$(date +%s)
    timeout --kill-after=10 "$limit" bash -c "$*" > "$log" 2>&1
    local rc=$? dt=$(( $(date +%s) - s ))
    if [ $rc -eq 0 ]; then say "ok       $n $name (${dt}s)"
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then say "TIMEOUT  $n $name after ${limit}s (log: $log)"
    else say "FAILED   $n $name: exit $rc after ${dt}s (log: $log)"; fi
    if [ "$(stat -c %s "$log")" -gt 4194304 ]; then tail -c 4194304 "$log" > "$log.tmp" && mv "$log.tmp" "$log"; fi
}

say "gpu-report: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), budget ${budget}s, $jobs jobs"
say "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    gpu=$(nvidia-smi -L | head -1)
    say "GPU: $gpu; $(nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader | head -1)"
    say "nvcc: $(nvcc --version 2>/dev/null | tail -1 || echo 'not found')"
else
    say "!!! NO GPU FOUND (nvidia-smi lists none): only the build runs; every GPU step below is NOT RUN !!!"
fi

# sanitize: compute-sanitizer memcheck over test_cuda's cases and test_cuda_train, then racecheck
# on test_cuda_train (30 s on an H200), then racecheck on test_cuda's cases last: on the H200 those
# did not finish in 55-150 s (the shared-memory inference conv under racecheck), so they come
# where a timeout costs nothing else.  The "failures" case injects failed launches on purpose:
# API errors that the sanitizer reports, so it runs under memcheck alone with --report-api-errors
# no (its recovery paths are still checked for bad accesses; the test checks every error itself).
sanitize() {
    local run c t k extra
    for run in memcheck:cuda:test_cuda memcheck:threads:test_cuda memcheck:failures:test_cuda \
               memcheck::test_cuda_train racecheck::test_cuda_train racecheck:cuda:test_cuda \
               racecheck:threads:test_cuda; do
        k=${run%%:*}; c=${run#*:}; t=${c#*:}; c=${c%%:*}
        extra=""; [ "$c" = failures ] && extra="--report-api-errors no"
        echo "== $(date +%T) compute-sanitizer --tool $k $extra $t ${c:+(CK_RUN_CASE=$c)}"
        env CK_FORK=no ${c:+CK_RUN_CASE=$c} compute-sanitizer --tool $k $extra --error-exitcode 3 build/tests/$t || return 3
    done
}
export -f sanitize

step 01 build 240 "make -j$jobs NO_APT=1 all build/tests/test_cuda build/tests/test_cuda_train"
gpu_steps="02 suites, 03 sanitizer, 04 lab, 05 bench-gpu, 06 bench-train, 07 train, 08 variants, 09 sanitize-new, 10 torch-eager, 11 sanitize-loss"
if [ -z "$gpu" ]; then
    say "NOT RUN  $gpu_steps: no GPU"
    say "gpu-report: done in $(( $(date +%s) - t0 ))s; NO GPU: nothing was checked on a GPU"
    exit 0
fi
step 02 suites 100 "build/tests/test_cuda && build/tests/test_cuda_train && for s in 1 2 3 4 5; do echo \"== two threads, seed \$s\"; CK_RUN_CASE=threads ZZ_TEST_SEED=\$s build/tests/test_cuda || exit 1; done"
step 03 sanitizer 200 "sanitize"
step 04 lab 60 "make NO_APT=1 lab && build/lab/hexconv 0 37 4096 64 && build/lab/hexconv 0 61 1024 64 && build/lab/convgrad 0 37 1024 64"
step 05 bench-gpu 240 "make NO_APT=1 bench-gpu"
step 06 bench-train 100 "tools/bench_train --gpu ${BENCH_TRAIN_ARGS:-} && for c in '2048 12 1 1024' '2048 12 2 512' '4096 12 4 512'; do set -- \$c; tools/bench_train --gpu --seconds 5 --games \$1 --threads \$2 --eval-threads \$3 --batch \$4 || exit 1; done"
# 07: tools/train on the GPU in two pieces, the second resuming the first: TRAIN_MINUTES each
# (default 0.9), the first with TRAIN_ARGS added (e.g. --init weights/zertz37.ckpt --sims 200);
# KEEP_RUN=1 brings the run's latest.ckpt and train.csv back in OUT.
run=build/gpu-report-train
tmin=${TRAIN_MINUTES:-0.9}
tlimit=$(awk -v m="$tmin" 'BEGIN { printf "%d", 2 * m * 60 + 60 }')
keep=""
[ "${KEEP_RUN:-0}" = 1 ] && keep="&& cp $run/latest.ckpt $out/train-latest.ckpt && cp $run/train.csv $out/train.csv"
step 07 train "$tlimit" "rm -rf $run; tools/train --fresh --out $run --minutes $tmin ${TRAIN_ARGS:-} && echo '== resumed' && tools/train --out $run --minutes $tmin && tail -5 $run/train.csv $keep"
# 08: the kernel variants side by side in one run: the training step's time by op (ZZT_PROFILE) with
# the per-thread bodies (ZZT_TILED=0, the kernels before the tiled ones) and with the tiled kernels;
# inference and training through the 64-row conv kernel only, then chosen by size (the default).
step 08 variants 150 "for v in 'ZZT_TILED=0 ZZ_CUDA_CONV=2' 'ZZ_CUDA_CONV=2' 'ZZ_CUDA_CONV=4' ''; do echo \"==== variant: \${v:-default}\"; env ZZT_PROFILE=1 \$v tools/bench_nn --gpu --seconds 0.3 || exit 1; done"
# 09: compute-sanitizer on what changed since the last GPU run, sized to finish: memcheck over
# test_cuda's GPU cases (both conv kernels), racecheck on the two tiled lab kernels at a small batch.
step 09 sanitize-new 150 "env CK_FORK=no CK_RUN_CASE=cuda compute-sanitizer --tool memcheck --error-exitcode 3 build/tests/test_cuda && compute-sanitizer --tool racecheck --error-exitcode 3 build/lab/hexconv 4 37 8 64 && compute-sanitizer --tool racecheck --error-exitcode 3 build/lab/convgrad 2 37 8 64"
# 10: eager PyTorch alone (no compilation: seconds, not minutes) on the same network, for a rerun
# whose compiled figures step 05 of an earlier run already gave.
step 10 torch-eager 90 "tools/nn_dump --board 37 --perturb --save-ckpt build/yardstick.ckpt --n 256 --seed 1 --out build/yardstick.dump && python3 tools/torch_yardstick.py --check build/yardstick.dump --ckpt build/yardstick.ckpt && python3 tools/torch_yardstick.py --ckpt build/yardstick.ckpt --modes eager-fp32,train-eager"
# 11: compute-sanitizer on the lane-parallel policy-loss kernels (they came after the last
# sanitizer run): memcheck and racecheck on test_cuda_train's losses case (the loss kernels and
# SGD on the cuda backends against the emulation); memcheck on the whole suite took under 150 s
# on an H100, racecheck on it more (2026-11-26).
step 11 sanitize-loss 150 "for k in memcheck racecheck; do echo \"== \$(date +%T) \$k\"; env CK_FORK=no CK_RUN_CASE=losses compute-sanitizer --tool \$k --error-exitcode 3 build/tests/test_cuda_train || exit 3; done"
say "gpu-report: done in $(( $(date +%s) - t0 ))s"
