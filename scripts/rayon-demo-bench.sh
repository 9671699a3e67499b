#!/usr/bin/env bash
# rayon 1.12's own join-heavy demo benchmarks (rayon-demo's `#[bench]`
# functions in fibonacci, factorial, join_microbench, tree, quicksort and
# mergesort) on rayon-core 1.13 against the same rayon on tine's
# rayon-core/ (the `[patch]` line): builds rayon-demo's benches twice, runs
# the two in turns, ABBA, ROUNDS times, and prints each benchmark's median
# ns/iter for both, the ratio tine / rayon-core, and the geometric mean of
# the ratios of the benchmarks that use the pool (the serial ones, listed in
# SERIAL below, are printed but left out).
#
#   scripts/rayon-demo-bench.sh [RAYON_CHECKOUT]      # DEMO_BENCH_ROUNDS=3
#
# RAYON_CHECKOUT as for scripts/rayon-demo.sh. Not part of .ci/run (the
# demo crate is only in rayon's repository; nightly's `test::Bencher`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${DEMO_BENCH_ROUNDS:-3}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/rayon-demo-src.sh
source scripts/rayon-demo-src.sh
# shellcheck source=scripts/median-awk.sh
source scripts/median-awk.sh

modules=(fibonacci:: factorial:: join_microbench:: tree:: quicksort:: mergesort::)
# The benchmarks that never enter the pool: serial code, and
# `increment_all_serialized`, whose `with_min_len(len)` keeps rayon from
# splitting, so its one piece runs on the calling thread.
SERIAL="fibonacci_recursive fibonacci_iterative factorial_iterator factorial_recursion quick_sort_seq_bench merge_sort_seq_bench increment_all_serialized"

make_demo "$work/rayon" 'rayon = "=1.12.0"'
make_demo "$work/tine" 'rayon = "=1.12.0"'
printf '\n[patch.crates-io]\nrayon-core = { path = "%s/rayon-core" }\n' "$root" \
    >>"$work/tine/rayon-demo/Cargo.toml"
for side in rayon tine; do
    (cd "$work/$side/rayon-demo" && cargo +nightly bench --no-run -q 2>/dev/null)
done
grep -A4 '^name = "rayon-core"' "$work/tine/rayon-demo/Cargo.lock" | grep -q '"tine-rt"' ||
    { echo "the rayon-core patch was not used" >&2; exit 1; }

out=$work/runs.txt
for ((round = 1; round <= rounds; round++)); do
    order="rayon tine"; ((round % 2 == 0)) && order="tine rayon"
    for side in $order; do
        echo "round $round: $side" >&2
        (cd "$work/$side/rayon-demo" && cargo +nightly bench -q -- "${modules[@]}" 2>/dev/null) |
            awk -v side="$side" '/ns\/iter/ { gsub(",", "", $5); print side, $2, $5 }' >>"$out"
    done
done
awk -v serial="$SERIAL" "$MEDIAN_AWK"'
    BEGIN { n = split(serial, s, " "); for (i = 1; i <= n; i++) skip[s[i]] = 1 }
    { runs[$1 " " $2] = runs[$1 " " $2] " " $3; if (!($2 in seen)) { seen[$2] = 1; order[++names] = $2 } }
    END {
        printf "| benchmark | rayon-core ns/iter | tine rayon-core/ ns/iter | ratio |\n|---|---:|---:|---:|\n"
        for (k = 1; k <= names; k++) {
            name = order[k]; short = name; sub(/.*::/, "", short)
            r = median(runs["rayon " name]); t = median(runs["tine " name])
            printf "| %s%s | %d | %d | %.3f |\n", name, (short in skip) ? " (serial)" : "", r, t, t / r
            if (!(short in skip)) { sum += log(t / r); count++ }
        }
        if (count) printf "\ngeometric mean of the %d benchmarks that use the pool (tine / rayon-core): %.3f\n", count, exp(sum / count)
    }' "$out"
