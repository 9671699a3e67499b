#!/usr/bin/env bash
# Instructions per empty 2-thread fork-join (`for_threads`), counted, not
# timed, so that a change to the fork path can be checked on a noisy or
# virtual host.
#
#   scripts/fork-instructions.sh            # this checkout
#
# Runs benches/peers/examples/fork_instructions twice, with N and 2N forks,
# and divides the difference by N, so start-up cancels out:
# - with hardware counters (`perf stat -e instructions:u` works): the default
#   wait (spin, then park), both threads together, polls included;
# - under Valgrind (callgrind, always): every wait gives the core away at once
#   (FORK_WAIT=yield), since Valgrind runs one thread at a time. How many
#   polls a wait takes then depends on Valgrind's thread switches, so the
#   count is split: the fork path outside the waits (both threads: take,
#   publish, the share calls, the countdown, the join's checks, the hand-back;
#   the same instructions every run) and the waits (the wait functions' polls,
#   the yields and the clock reads that time them), which vary.
# Installs valgrind with apt if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${FORK_COUNT:-2000}
cargo build --quiet --release -p tine-peers --example fork_instructions
bin=${CARGO_TARGET_DIR:-target}/release/examples/fork_instructions
if ! command -v valgrind >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind
fi

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), commit $(git rev-parse --short HEAD)"

if perf stat -x, -e instructions:u true >/dev/null 2>&1 &&
    ! perf stat -x, -e instructions:u true 2>&1 | grep -q 'not supported'; then
    count() { FORK_COUNT=$1 perf stat -x, -e instructions:u "$bin" 2>&1 >/dev/null | awk -F, '/instructions/ {print $1}'; }
    a=$(count "$n") b=$(count $((2 * n)))
    echo "perf (spin, then park; polls included): $(((b - a) / n)) instructions per fork-join"
else
    echo "perf: no hardware instruction counter here; Valgrind only"
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Exclusive instructions per function, split into the waits and the rest
# by the whole line (file and function: a clock read is named after its
# type, `Timespec`, and the waits' reads of their thread-local stacked
# mark run through an out-of-line `call_once`).
split() {
    FORK_COUNT=$1 FORK_WAIT=yield valgrind --tool=callgrind --callgrind-out-file="$dir/cg" \
        "$bin" >/dev/null 2>&1
    callgrind_annotate --auto=no --inclusive=no --threshold=100 "$dir/cg" 2>/dev/null |
        sed -n 's/^ *\([0-9,][0-9,]*\) .*:\(.*\)$/\1 &/p' | tr -d , |
        awk '/wait_for_join|wait_for_fork|give_way|Timespec|Instant|clock_gettime|sched_yield|yield_now|vdso|futex|syscall|membarrier|call_once/ {w += $1; next}
             {p += $1} END {print p, w}'
}
# A wait that outlasts its yields parks, and parking and waking add their
# own path; which waits do depends on Valgrind's switches. So take the
# fewest of several runs: the runs in which no wait parked.
best=""
for _ in 1 2 3 4 5; do
    read -r p1 w1 < <(split "$n")
    read -r p2 w2 < <(split $((2 * n)))
    per=$(((p2 - p1) / n))
    if [ -z "$best" ] || [ "$per" -lt "$best" ]; then best=$per waits=$(((w2 - w1) / n)); fi
done
echo "valgrind (every wait yields at once): $best instructions per fork-join outside the waits, fewest of 5 runs ($waits in that run's waits, which vary)"
