#!/usr/bin/env bash
# Real crates that give their own types parallel iterators through rayon's
# plumbing (Producer, Consumer, bridge), their test suites run with their
# rayon feature on tine's core: each crate's .crate from crates.io, with
# one change, the `[patch]` line that puts this repository's rayon-core/
# under rayon. Checks each lock file as scripts/rayon-core-tests.sh does.
#
#   scripts/rayon-crates-tests.sh            # every crate below
#   scripts/rayon-crates-tests.sh hashbrown  # one of them
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

# crate version "cargo test arguments"
crates=(
    "hashbrown 0.15.2 --features rayon"
    "indexmap 2.7.0 --features rayon"
    "ndarray 0.16.1 --features rayon --lib --test par_rayon --test par_azip --test par_zip"
)

work=${RAYON_ON_TINE_DIR:-$repo/target/rayon-on-tine}/crates
# The target directory scripts/rayon-core-tests.sh uses: rayon, rayon-core/
# and the dependencies the crates share are compiled once.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-${RAYON_ON_TINE_DIR:-$repo/target/rayon-on-tine}/target}
# shellcheck source=scripts/rayon-patch.sh
source scripts/rayon-patch.sh
mkdir -p "$work"
for entry in "${crates[@]}"; do
    read -r name version args <<<"$entry"
    [ -n "${1:-}" ] && [ "$1" != "$name" ] && continue
    scripts/fetch-crate.sh "$name" "$version" "$work"
    dir=$work/$name-$version
    patch "$dir"
    echo "=== $name $version: cargo test $args"
    # shellcheck disable=SC2086 # the arguments are words
    (cd "$dir" && timeout 1200 cargo test $args -- --test-threads=4)
    check_lock "$dir"
done
