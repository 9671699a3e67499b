#!/usr/bin/env bash
# prun against xargs and GNU parallel on `seq 1 N` input, this machine.
#
#   benches/peers/prun-bench.sh            # 10M lines, 3 runs per row
#   LINES=1000000 RUNS=5 benches/peers/prun-bench.sh
#
# Environment:
#   LINES           input lines (default 10,000,000: 78.9 MB)
#   PARALLEL_LINES  lines for GNU parallel's -X rows, which spawn a perl-managed
#                   job per batch and take about a minute per million lines here
#                   (default 200,000); lines/s keeps the rows comparable
#   RUNS            runs per row; the table shows the median (default 3)
#   JOBS            threads / processes (default 2)
#   BUILD           0: use the prun binary already in target/release (for a
#                   run that holds /tmp/tine-build.lock itself)
#
# Installs GNU parallel with apt-get when it is missing. Prints a markdown
# table: median wall time, input lines/s, and the speed ratio against the
# row's baseline (xargs for argument rows, parallel for --pipe rows).
set -euo pipefail
cd "$(dirname "$0")/../.."

LINES=${LINES:-10000000}
PARALLEL_LINES=${PARALLEL_LINES:-200000}
RUNS=${RUNS:-3}
JOBS=${JOBS:-2}

if ! command -v parallel >/dev/null; then
    echo "installing GNU parallel" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y -qq parallel >&2; else sudo apt-get install -y -qq parallel >&2; fi
fi

if [ "${BUILD:-1}" != 0 ]; then
    flock /tmp/tine-build.lock cargo build --release --quiet -p prun
fi
prun=$PWD/target/release/prun

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
seq 1 "$LINES" >"$dir/in"
seq 1 "$PARALLEL_LINES" >"$dir/in-parallel"

# median_seconds FILE CMD: runs `CMD < FILE > /dev/null` RUNS times.
median_seconds() {
    local input=$1 command=$2 times=() start end
    for _ in $(seq "$RUNS"); do
        start=$EPOCHREALTIME
        if ! bash -c "set -o pipefail; $command" <"$input" >/dev/null; then
            echo "failed: $command" >&2
            exit 1
        fi
        end=$EPOCHREALTIME
        times+=("$(echo "$end - $start" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

declare -A rate
row() { # row NAME LINES INPUT BASELINE COMMAND
    local name=$1 lines=$2 input=$3 baseline=$4 command=$5 seconds lps ratio
    seconds=$(median_seconds "$input" "$command")
    lps=$(echo "$lines / $seconds" | bc -l)
    rate[$name]=$lps
    if [ -n "$baseline" ] && [ -n "${rate[$baseline]:-}" ]; then
        ratio=$(printf '%.2fx' "$(echo "$lps / ${rate[$baseline]}" | bc -l)")
    else
        ratio="baseline"
    fi
    local shown=${command//$prun/prun}
    shown=${shown//|/\\|} # a pipe inside a markdown cell
    printf '| `%s` | %s | %.3f | %.2fM | %s |\n' "$shown" "$lines" "$seconds" \
        "$(echo "$lps / 1000000" | bc -l)" "$ratio"
}

echo "load before: $(uptime)"
echo
echo "| command | lines | median s | lines/s | vs baseline |"
echo "|---|---:|---:|---:|---:|"
row xargs-true "$LINES" "$dir/in" "" "xargs -P$JOBS true"
row prun-true "$LINES" "$dir/in" xargs-true "$prun -j$JOBS -- true"
row parallel-true "$PARALLEL_LINES" "$dir/in-parallel" xargs-true "parallel --will-cite -j$JOBS -X true"
row xargs-echo "$LINES" "$dir/in" "" "xargs -P$JOBS echo"
row prun-echo-k "$LINES" "$dir/in" xargs-echo "$prun -j$JOBS -k -- echo"
row prun-echo "$LINES" "$dir/in" xargs-echo "$prun -j$JOBS -- echo"
row parallel-echo "$PARALLEL_LINES" "$dir/in-parallel" xargs-echo "parallel --will-cite -j$JOBS -k -X echo"
row parallel-pipe "$LINES" "$dir/in" "" "parallel --will-cite -j$JOBS --pipe wc -l"
row prun-pipe "$LINES" "$dir/in" parallel-pipe "$prun -j$JOBS --pipe -- wc -l"
row parallel-pipe-k "$LINES" "$dir/in" "" "parallel --will-cite -j$JOBS -k --pipe cat"
row prun-pipe-k "$LINES" "$dir/in" parallel-pipe-k "$prun -j$JOBS -k --pipe -- cat"
row wc "$LINES" "$dir/in" "" "wc -l"
row prun-count "$LINES" "$dir/in" wc "$prun -j$JOBS --count"
# Piped on: GNU grep stops at the first match when its stdout is /dev/null.
row grep "$LINES" "$dir/in" "" "grep -F 42 | cat"
row prun-grep "$LINES" "$dir/in" grep "$prun -j$JOBS --grep 42"
echo
echo "load after: $(uptime)"
