#!/usr/bin/env bash
# rayon-core/tests/contract*.rs and energy.rs (rayon-core's contract about
# where and when work runs) on the real rayon-core 1.13.0 from crates.io,
# the reference, and on tine's face (this repository's rayon-core/, put
# under the same crate by the `[patch]` line of scripts/rayon-patch.sh).
#
#   scripts/rayon-core-contract.sh          # both
#   scripts/rayon-core-contract.sh real     # the real rayon-core only
#   scripts/rayon-core-contract.sh tine     # tine's face only
#
# Each mode generates a throw-away crate, target/rayon-core-contract/MODE
# (RAYON_CORE_CONTRACT_DIR moves it), whose tests are copies of those files
# and whose one dependency is rayon-core =1.13.0; then runs every test
# alone under `timeout` (scripts/rayon-core-per-test.sh): PASS, FAIL,
# DEADLOCK (the test's watchdog fired) or HANG. Results: MODE.results in
# that directory, the output of each test that did not pass beside it.
# The whole of each mode runs under `timeout` too.
#
# Every test must pass on the real rayon-core: a test that fails there is
# wrong. The exit status is 1 if any test did not pass, in any mode run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
which=${1:-all}
case $which in all | real | tine) ;; *) echo "usage: $0 [all|real|tine]" >&2; exit 2 ;; esac

core_version=1.13.0
work=${RAYON_CORE_CONTRACT_DIR:-$repo/target/rayon-core-contract}
# Both modes in one target directory: their crates have different names.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
# Per test; the tests' own watchdogs fire at 20 s.
per_test=${RAYON_CORE_CONTRACT_TEST_TIMEOUT:-60}
per_mode=${RAYON_CORE_CONTRACT_MODE_TIMEOUT:-1800}
mkdir -p "$work"

# patch DIR (tine's face under DIR) and check_lock DIR.
# shellcheck source=scripts/rayon-patch.sh
source scripts/rayon-patch.sh
# test_binaries, run_each, summarize.
# shellcheck source=scripts/rayon-core-per-test.sh
source scripts/rayon-core-per-test.sh

generate() {
    local mode=$1 dir=$work/$1
    rm -rf "$dir"
    mkdir -p "$dir/src" "$dir/tests"
    touch "$dir/src/lib.rs"
    cp rayon-core/tests/contract*.rs rayon-core/tests/energy.rs "$dir/tests/"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "rayon-core-contract-$mode"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rayon-core = "=$core_version"

[target.'cfg(unix)'.dev-dependencies]
libc = "0.2"
TOML
    if [ "$mode" = tine ]; then
        patch "$dir"
    else
        rm -f "$dir/Cargo.lock"
        printf '\n[workspace]\n' >>"$dir/Cargo.toml"
    fi
}

run_mode() {
    local mode=$1 dir=$work/$1 results=$work/$1.results start
    start=$(date +%s)
    generate "$mode"
    rm -rf "$results" "$results.d"
    touch "$results"
    local binaries
    binaries=$(test_binaries "$dir")
    if [ "$mode" = tine ]; then
        check_lock "$dir"
    elif ! grep -A2 '^name = "rayon-core"$' "$dir/Cargo.lock" | grep -q '^source = "registry'; then
        echo "$dir/Cargo.lock: rayon-core does not come from crates.io" >&2
        return 1
    fi
    while read -r target binary; do
        run_each "$target" "$binary" "$per_test" "$results"
    done <<<"$binaries"
    echo "== $mode: $(($(date +%s) - start)) s"
}

status=0
for mode in real tine; do
    if [ "$which" = all ] || [ "$which" = "$mode" ]; then
        # The whole mode under `timeout`: this script again, one mode.
        if [ -z "${RAYON_CORE_CONTRACT_INNER:-}" ]; then
            RAYON_CORE_CONTRACT_INNER=1 timeout "$per_mode" "$0" "$mode" || status=1
            continue
        fi
        echo "=== rayon-core's contract on the $mode rayon-core"
        run_mode "$mode"
        summarize "$work/$mode.results" || status=1
    fi
done
exit $status
