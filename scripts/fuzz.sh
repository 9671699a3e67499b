#!/usr/bin/env bash
# Fuzzes fuzz/'s pool_program target for SECONDS (default 30) under
# AddressSanitizer and LeakSanitizer, over a fresh corpus plus the kept
# inputs of fuzz/regressions/; any crash, leak or hang fails. Builds the
# target as `cargo fuzz run --dev` would (libFuzzer's coverage passes,
# `--cfg fuzzing`, debug assertions, an unoptimised build), with nightly
# cargo alone: installing cargo-fuzz compiles for longer than this fuzzes.
# `cargo +nightly fuzz run pool_program` does the same, given cargo-fuzz.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-30}
target=x86_64-unknown-linux-gnu

# --target: the flags then reach the target's crates, not build scripts.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing -Zsanitizer=address -Cdebug-assertions"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo +nightly build --locked --target $target --bin pool_program
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p artifacts/pool_program
ASAN_OPTIONS=detect_odr_violation=0 "$CARGO_TARGET_DIR/$target/debug/pool_program" \
    -artifact_prefix=artifacts/pool_program/ -max_total_time="$seconds" -timeout=30 \
    -print_final_stats=1 "$corpus" regressions
