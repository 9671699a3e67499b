#!/usr/bin/env bash
# The real rayon on tine's core: rayon 1.12.0's own test suite (its unit
# tests, tests/ directory and doc tests) and rayon-core 1.13.0's tests/
# directory, from the crates.io sources, with one change: a `[patch]` line
# that puts this repository's rayon-core/ under them. Then checks, in each
# lock file, that the patch was used (rayon-core comes from the path, and
# there is no [[patch.unused]]).
#
#   scripts/rayon-core-tests.sh            # rayon's suite and rayon-core's tests/
#   scripts/rayon-core-tests.sh rayon      # only rayon's
#   scripts/rayon-core-tests.sh core       # only rayon-core's
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
