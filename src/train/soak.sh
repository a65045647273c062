#!/usr/bin/env bash
# soak.sh — `make soak`: a small training run killed with SIGKILL at random moments and resumed,
# its folder checked after every kill by tools/run_check (every replay chunk verifies, no sample
# number is missing, train.csv monotone, every checkpoint loads, latest.ckpt not behind), and the
# run's sample count on disk compared with what it had counted before the kill.  At the end the
# run resumes for a short stretch that must end normally, and its latest.ckpt plays a few games.
#
# Environment: SOAK_MINUTES (default 30) of kills, SOAK_KILLS (default 20) spread over them (one
# at a random moment of each equal slot, at least 5 s after the start or resume), SOAK_SEED (the
# kill moments; default from the clock, printed), SOAK_DIR (default build/soak: run/, train.log,
# soak.log), TOOLDIR (default tools).  Exit 0 when every check passed; else 1 with the reason.
set -eu

minutes=${SOAK_MINUTES:-30}
kills=${SOAK_KILLS:-20}
seed=${SOAK_SEED:-$(date +%s)}
dir=${SOAK_DIR:-build/soak}
tooldir=${TOOLDIR:-tools}
gen_steps=20
eval_every=2
opts=(--blocks 1 --channels 8 --sims 16 --gen-steps "$gen_steps" --min-samples 200 --window 5000 --threads 1
      --eval-every "$eval_every" --eval-games 2)
run=$dir/run
tlog=$dir/train.log
slog=$dir/soak.log
pid=

die() {
    say "SOAK FAILED: $*"
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    exit 1
}
say() { echo "soak: $*" | tee -a "$slog"; }
now() { date +%s.%N; }
# awk arithmetic on the figures: calc FORMAT EXPR [VAR=VALUE...], e.g. calc %d "a + 1" a=2
calc() {
    local f=$1 e=$2 v a=()
    shift 2
    for v; do a+=(-v "$v"); done
    awk "${a[@]}" "BEGIN { printf \"$f\\n\", ($e) }"
}

case "$minutes$kills$seed" in *[!0-9.]*) echo "soak: SOAK_MINUTES, SOAK_KILLS and SOAK_SEED must be numbers" >&2; exit 2 ;; esac
[ "$kills" -ge 1 ] || { echo "soak: SOAK_KILLS must be at least 1" >&2; exit 2; }
for t in train run_check arena; do
    [ -x "$tooldir/$t" ] || { echo "soak: $tooldir/$t is missing: run make all first" >&2; exit 2; }
done
mkdir -p "$dir"
rm -rf "$run"
: > "$tlog"
: > "$slog"
RANDOM=$seed

# Start (or resume) the run in the background; its pid in $pid.
start_train() {
    "$tooldir/train" "$@" --out "$run" "${opts[@]}" >> "$tlog" 2>&1 &
    pid=$!
}

# Whether the run was killed in the evaluation of its generation (self-play held; its three
# matches, best, uct and random, not all in elo.csv yet): " (in an evaluation)" or nothing.
in_eval() {
    local rows
    [ "$fig_generation" -gt 0 ] && [ $((fig_generation % eval_every)) -eq 0 ] || return 0
    rows=$(awk -F, -v g="$fig_generation" 'NR > 1 && $1 == g { n++ } END { print n + 0 }' "$run/elo.csv" 2>/dev/null || echo 0)
    [ "$rows" -ge 3 ] || echo " (in an evaluation)"
}

# Check the run folder; its figures in the variables fig_KEY.  Fails the soak on a failed check.
check_run() {
    local out
    out=$("$tooldir/run_check" "$run" --gen-steps "$gen_steps" 2>&1) || die "after $1: $out"
    eval "$(echo "$out" | awk '{ printf "fig_%s=%s\n", $1, $2 }')"
    checked_ckpts=$((checked_ckpts + fig_checkpoints))
}

fig_checkpoints=0 fig_samples_ever=0 fig_newest_chunk_mtime=0 fig_csv_steps=0 fig_latest_steps=0 fig_csv_samples=0
fig_chunks=0 fig_generation=0
slot=$(calc %.1f "m * 60 / k" m="$minutes" k="$kills")
say "seed $seed: $kills kills over $minutes minutes (one in each ${slot%.*} s slot), run in $run, train log $tlog"
say "tools/train --out $run ${opts[*]}"
t0=$(now)
checked_ckpts=0
prev_ever=0
worst_age=0
worst_lost_steps=0
worst_est=0
evals=0
start_train --fresh
for i in $(seq 1 "$kills"); do
    started=$(now)
    slot_end=$(calc %.3f "t0 + i * s" t0="$t0" i="$i" s="$slot")
    room=$(calc %d "int(10 * (e - n - 5))" e="$slot_end" n="$started")
    [ "$room" -gt 0 ] || room=1
    delay=$(calc %.1f "5 + r / 10" r=$(( (RANDOM * 32768 + RANDOM) % room )))
    sleep "$delay"
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || rc=$?; die "the run ended by itself before kill $i (status ${rc:-0}); see $tlog"; }
    kill -KILL "$pid"
    killed=$(now)
    wait "$pid" 2>/dev/null || true
    pid=
    check_run "kill $i"
    [ "$fig_samples_ever" -ge "$prev_ever" ] || die "kill $i: the samples on disk fell from $prev_ever to $fig_samples_ever"
    age=$(calc %.1f "k - m" k="$killed" m="$fig_newest_chunk_mtime")
    lost_steps=$((fig_csv_steps - fig_latest_steps))
    [ "$lost_steps" -ge 0 ] || lost_steps=0
    worst_age=$(calc %.1f "a > w ? a : w" a="$age" w="$worst_age")
    # not flushed at the kill, at most: the session's samples per second times the time since the last flush
    # (an overestimate when self-play was held, as in an evaluation)
    est=$(calc %d "(e - p) / (k - s) * a" e="$fig_samples_ever" p="$prev_ever" k="$killed" s="$started" a="$age")
    [ "$est" -le "$worst_est" ] || worst_est=$est
    evaluating=$(in_eval)
    [ -z "$evaluating" ] || evals=$((evals + 1))
    [ "$lost_steps" -le "$worst_lost_steps" ] || worst_lost_steps=$lost_steps
    say "$(printf 'kill %2d/%d at %5.0f s (%4.1f s after the start): samples counted %7d -> on disk %7d (lost %d counted), last flush %4.1f s before%s (<= ~%d samples not flushed); steps %5d -> checkpoint %5d; %d chunks, %d checkpoints ok' \
        "$i" "$kills" "$(calc %.1f "k - t" k="$killed" t="$t0")" "$delay" "$fig_csv_samples" "$fig_samples_ever" \
        $((fig_csv_samples > fig_samples_ever ? fig_csv_samples - fig_samples_ever : 0)) "$age" "$evaluating" "$est" \
        "$fig_csv_steps" "$fig_latest_steps" "$fig_chunks" "$fig_checkpoints")"
    prev_ever=$fig_samples_ever
    [ "$i" -eq "$kills" ] || start_train
done

# The last resume: a short stretch that must end normally, then a check and a few games.
before=$fig_latest_steps
say "final stretch: tools/train --out $run ... --minutes 0.5"
"$tooldir/train" --out "$run" "${opts[@]}" --minutes 0.5 >> "$tlog" 2>&1 || die "the final stretch did not end normally (status $?); see $tlog"
check_run "the final stretch"
[ "$fig_latest_steps" -gt "$before" ] || die "the final stretch trained no step (latest.ckpt at $fig_latest_steps)"
arena_out=$("$tooldir/arena" "puct:$run/latest.ckpt:16" random --games 4 --quiet 2>&1) || die "arena: $arena_out"
echo "$arena_out" >> "$slog"
echo "$arena_out" | grep -q "^A: .* wins" || die "arena printed no result: $arena_out"
wall=$(calc %d "n - t" n="$(now)" t="$t0")
say "passed: $kills kills, $kills resumes, $checked_ckpts checkpoint loads; samples on disk $fig_samples_ever, steps $fig_latest_steps, generation $fig_generation"
say "counted samples lost at a kill: 0 (bound 0); longest time since the last flush at a kill ${worst_age} s (bound 2 s of the loop), at most ~$worst_est samples not flushed; $evals kills in an evaluation; most steps of train.csv past latest.ckpt $worst_lost_steps (bound $((gen_steps - 1)))"
say "final stretch: steps $before -> $fig_latest_steps; arena: $(echo "$arena_out" | grep '^A: ')"
say "wall time $wall s"
