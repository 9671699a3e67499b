#!/usr/bin/env bash
# Alternating A/B of the empty 2-thread fork-join: the latency example of two
# builds, run in turns (A, B, A, B, ...) so that drift and vCPU placement hit
# both alike; the side that runs first alternates (ABBA). Prints each run and, per build, the median of the runs' tine
# medians and of the ratio tine / ping-pong (the round-trip floor measured in
# the same run).
#
#   scripts/ab-fork.sh A_LATENCY_BINARY B_LATENCY_BINARY [ROUNDS]
#
# Build each side with `cargo build --release -p tine-peers --example latency`
# in its own checkout (`git worktree add ../old <commit>`), then pass the two
# `target/release/examples/latency` paths. LATENCY_THREADS (default 2) and
# LATENCY_SAMPLES (default 9) pass through.
set -euo pipefail
a=$1 b=$2 rounds=${3:-7}
export LATENCY_THREADS=${LATENCY_THREADS:-2} LATENCY_SAMPLES=${LATENCY_SAMPLES:-9}
export LATENCY_BACKENDS=ping-pong,tine
out=$(mktemp)
for ((round = 1; round <= rounds; round++)); do
    # ABBA order: the side that runs first alternates between rounds, so
    # that an order effect (the first run after the other finds caches,
    # frequency and vCPU placement in another state) hits both alike.
    order="A B"; ((round % 2 == 0)) && order="B A"
    for side in $order; do
        bin=$a; [ "$side" = B ] && bin=$b
        line=$("$bin" | awk -F'|' '/^\| ping-pong/ {pp = $3} /^\| tine/ {t = $3} END {printf "%.1f %.1f %.3f", pp, t, t / pp}')
        echo "$side $line" | tee -a "$out" | awk '{printf "%s  ping-pong %6.1f ns  tine %6.1f ns  ratio %.3f\n", $1, $2, $3, $4}'
    done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for side in A B; do
    times=$(awk -v s="$side" '$1 == s {print $3}' "$out")
    printf '%s: %d runs, tine median %s ns (min %s, max %s), median ratio to ping-pong %s\n' "$side" \
        "$(echo "$times" | wc -l)" "$(echo "$times" | median)" "$(echo "$times" | sort -g | head -1)" \
        "$(echo "$times" | sort -g | tail -1)" "$(awk -v s="$side" '$1 == s {print $4}' "$out" | median)"
done
rm -f "$out"
