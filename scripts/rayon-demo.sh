#!/usr/bin/env bash
# Runs rayon 1.12's demo programs (rayon-demo: 18 modules, not on
# crates.io) on tine, two ways: with the rename (`rayon = { package =
# "tine-rt" }`) and as the real rayon 1.12 with rayon-core patched to
# this repository's rayon-core/. For each: the demo crate's tests, which
# run each of its `#[bench]` functions once (nightly, as rayon's own CI
# does), then each command-line demo in bench mode at a small size, and
# `noop`'s CPU use (rayon-rs/rayon#642).
#
#   scripts/rayon-demo.sh [RAYON_CHECKOUT]
#
# RAYON_CHECKOUT is a clone of rayon's repository (bare or not; its tag
# v1.12.0 is used) or a copy of its v1.12.0 tree; without one, the script
# clones it from GitHub. Not part of .ci/run (the demo
# crate is only in rayon's repository).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/rayon-demo-src.sh
source scripts/rayon-demo-src.sh

run_demo() {
    local name=$1 dir=$2/rayon-demo
    echo "=== rayon-demo, $name"
    (cd "$dir" && cargo +nightly test --release 2>&1 | grep -E '^test result|FAILED|panicked')
    (cd "$dir" && cargo +nightly build --release -q)
    local bin=$dir/target/release/rayon-demo
    (
        cd "$dir"
        "$bin" life bench --size 100 --gens 50
        "$bin" nbody bench --bodies 500 --ticks 20
        "$bin" sieve bench
        "$bin" matmul bench --size 256
        "$bin" mergesort bench --size 1000000
        "$bin" quicksort bench --size 1000000
        "$bin" tsp bench data/tsp/dj10.tsp
        for sleep in 1 10; do "$bin" noop --iters 100 --sleep "$sleep"; done
    )
}

make_demo "$work/rename" "rayon = { package = \"tine-rt\", path = \"$root\" }"
make_demo "$work/patched" 'rayon = "=1.12.0"'
printf '\n[patch.crates-io]\nrayon-core = { path = "%s/rayon-core" }\n' "$root" \
    >>"$work/patched/rayon-demo/Cargo.toml"

run_demo "rayon renamed to tine" "$work/rename"
run_demo "the real rayon on tine's rayon-core" "$work/patched"
# The patch must have been used: the lock file's rayon-core is tine's.
grep -A4 '^name = "rayon-core"' "$work/patched/rayon-demo/Cargo.lock" | grep -q '"tine-rt"' ||
    { echo "the rayon-core patch was not used" >&2; exit 1; }
