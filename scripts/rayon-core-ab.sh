#!/usr/bin/env bash
# rayon on rayon-core against rayon on tine's rayon-core/: builds
# benches/rayon-core-ab twice (once with the `[patch]` line) and runs the
# two builds in turns, ABBA, ROUNDS times. Prints each workload's median
# (of the rounds' medians) for both, and the ratio tine / rayon-core, with
# the geometric means of the join-heavy rows and of all rows (the serial,
# 1-thread, round-trip, server and energy rows aside). Times are in µs,
# but for `server8-rps` (requests a second, higher is better) and the
# `energy-*` rows (thousandths of a CPU-second per wall-second).
#
#   scripts/rayon-core-ab.sh [ROUNDS]      # AB_SAMPLES=9 per run by default
#   AB_ONLY=server8,energy scripts/rayon-core-ab.sh 5
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
rounds=${1:-5}
work=$repo/target/rayon-core-ab
# shellcheck source=scripts/rayon-patch.sh
source scripts/rayon-patch.sh
# shellcheck source=scripts/median-awk.sh
source scripts/median-awk.sh
rm -rf "$work"
mkdir -p "$work"
for side in rayon tine; do
    cp -r benches/rayon-core-ab "$work/$side"
    if [ "$side" = tine ]; then
        sed -i '/^\[workspace\]/d' "$work/tine/Cargo.toml"
        patch "$work/tine"
    fi
    (cd "$work/$side" && cargo build --release --quiet)
done
check_lock "$work/tine" >/dev/null
out=$work/runs.txt
: >"$out"
for ((round = 1; round <= rounds; round++)); do
    order="rayon tine"; ((round % 2 == 0)) && order="tine rayon"
    for side in $order; do
        "$work/$side/target/release/rayon-core-ab" | sed "s/^/$side /" >>"$out"
    done
done
awk "$MEDIAN_AWK"'
    { runs[$1 " " $2] = runs[$1 " " $2] " " $3; names[$2] = 1 }
    END {
        printf "| workload | rayon-core | tine rayon-core/ | ratio |\n|---|---:|---:|---:|\n"
        split("fib30-serial fib30-1thread fib30 quicksort mergesort par_sort tree-serial tree-1thread tree joins calls calls-work calls-split factorial sum server8-rps server8-p99 energy-join energy-spawn energy-idle", order, " ")
        heavy["fib30"] = heavy["quicksort"] = heavy["mergesort"] = heavy["par_sort"] = heavy["tree"] = heavy["joins"] = heavy["factorial"] = 1
        for (k = 1; k <= 20; k++) {
            name = order[k]
            if (!(name in names)) continue
            r = median(runs["rayon " name]); t = median(runs["tine " name])
            printf "| %s | %.1f | %.1f | %.3f |\n", name, r, t, t / r
            if (name !~ /-serial$|-1thread$|^calls|^server|^energy/) { all += log(t / r); na++ }
            if (name in heavy) { hv += log(t / r); nh++ }
        }
        if (nh) printf "\njoin-heavy geometric mean (tine / rayon-core): %.3f\n", exp(hv / nh)
        if (na) printf "all rows geometric mean: %.3f\n", exp(all / na)
    }' "$out"
