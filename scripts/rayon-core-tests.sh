#!/usr/bin/env bash
# The real rayon on tine's core: rayon 1.12.0's own test suite (its unit
# tests, tests/ directory and doc tests) and rayon-core 1.13.0's tests/
# directory (and, in mode `units`, its unit tests), from the crates.io sources, with one change: a `[patch]` line
# that puts this repository's rayon-core/ under them. Then checks, in each
# lock file, that the patch was used (rayon-core comes from the path, and
# there is no [[patch.unused]]).
#
#   scripts/rayon-core-tests.sh            # rayon's suite and rayon-core's tests/
#   scripts/rayon-core-tests.sh rayon      # only rayon's
#   scripts/rayon-core-tests.sh core       # only rayon-core's
#   scripts/rayon-core-tests.sh units [real|tine]
#
# `units`: rayon-core 1.13.0's unit tests (the 101 tests of its
# src/**/test.rs), ported to the public API at run time by
# scripts/rayon-core-units-port.py (99 tests: two read a private field and
# are skipped, see there), as the tests of a generated crate,
# rayon-core-units-MODE, in the work directory below. Run on the real
# rayon-core 1.13.0 (`real`: all must pass, which validates the port) and on
# this repository's rayon-core/ through the `[patch]` line (`tine`); both
# when no mode is given. Each test runs alone, in its own process, under
# `timeout` (RAYON_CORE_UNITS_TIMEOUT seconds, 30 by default; 180 for the
# slow join_counter_overflow): PASS, FAIL or
# HANG per test, in MODE.results; the output of each test that did not pass
# beside it. Not part of `all`.
#
# SKIP lists the tests this face does not pass yet, each with its reason;
# they are skipped by name (`--skip`), and the list only shrinks.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
which=${1:-all}

declare -A SKIP=(
)

rayon_version=1.12.0
core_version=1.13.0
work=${RAYON_ON_TINE_DIR:-$repo/target/rayon-on-tine}
mkdir -p "$work"

unpack() {
    scripts/fetch-crate.sh "$1" "$2" "$work"
}

# patch DIR and check_lock DIR.
# shellcheck source=scripts/rayon-patch.sh
source scripts/rayon-patch.sh
share_target_dir

skips=()
for name in "${!SKIP[@]}"; do
    skips+=(--skip "$name")
done

if [ "$which" = all ] || [ "$which" = rayon ]; then
    unpack rayon "$rayon_version"
    dir=$work/rayon-$rayon_version
    patch "$dir"
    (cd "$dir" && timeout 1200 cargo test -- --test-threads=4 "${skips[@]}")
    check_lock "$dir"
fi

if [ "$which" = all ] || [ "$which" = core ]; then
    unpack rayon-core "$core_version"
    # rayon-core's tests/ against this repository's rayon-core: a crate
    # whose only sources are those test files, with upstream's
    # dev-dependencies.
    dir=$work/rayon-core-tests
    rm -rf "$dir"
    mkdir -p "$dir/src"
    cp -r "$work/rayon-core-$core_version/tests" "$dir/"
    touch "$dir/src/lib.rs"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "rayon-core-tests"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rayon-core = "=$core_version"

[dev-dependencies]
crossbeam-utils = "0.8"
libc = "0.2"
rand = "0.8"
rand_xorshift = "0.3"
scoped-tls = "1.0"
TOML
    patch "$dir"
    (cd "$dir" && timeout 1200 cargo test -- --test-threads=4 "${skips[@]}")
    check_lock "$dir"
fi

if [ "$which" = units ]; then
    unpack rayon-core "$core_version"
    # test_binaries, run_each, summarize.
    # shellcheck source=scripts/rayon-core-per-test.sh
    source scripts/rayon-core-per-test.sh
    # 500,000 `pool.join`s from outside, a debug build: 6 s on the real
    # rayon-core on an idle 2-core machine, 28 s with two busy loops beside.
    TEST_TIMEOUT[unit_join::join_counter_overflow]=${RAYON_CORE_UNITS_SLOW_TIMEOUT:-180}
    units_status=0
    for mode in real tine; do
        if [ -n "${2:-}" ] && [ "$2" != "$mode" ]; then
            continue
        fi
        start=$(date +%s)
        echo "=== rayon-core $core_version's unit tests on the $mode rayon-core"
        dir=$work/rayon-core-units-$mode
        rm -rf "$dir"
        mkdir -p "$dir/src"
        touch "$dir/src/lib.rs"
        python3 scripts/rayon-core-units-port.py "$work/rayon-core-$core_version" "$dir/tests"
        {
            cat <<TOML
[package]
name = "rayon-core-units-$mode"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rayon-core = "=$core_version"

TOML
            # Upstream's own dev-dependencies (rand, rand_xorshift, ...),
            # as its manifest gives them.
            awk '/^\[/ { keep = /dev-dependencies/ } keep' \
                "$work/rayon-core-$core_version/Cargo.toml"
        } >"$dir/Cargo.toml"
        if [ "$mode" = tine ]; then
            patch "$dir"
        else
            printf '\n[workspace]\n' >>"$dir/Cargo.toml"
        fi
        results=$work/rayon-core-units-$mode.results
        rm -rf "$results" "$results.d"
        touch "$results"
        binaries=$(test_binaries "$dir")
        if [ "$mode" = tine ]; then
            check_lock "$dir"
        fi
        while read -r target binary; do
            run_each "$target" "$binary" "${RAYON_CORE_UNITS_TIMEOUT:-30}" "$results"
        done <<<"$binaries"
        echo "== $mode: $(($(date +%s) - start)) s"
        summarize "$results" || units_status=1
    done
    exit $units_status
fi
