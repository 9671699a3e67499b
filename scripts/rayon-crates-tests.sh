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
mkdir -p "$work"
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for entry in "${crates[@]}"; do
    read -r name version args <<<"$entry"
    [ -n "${1:-}" ] && [ "$1" != "$name" ] && continue
    # Fetch the .crate (a throw-away manifest asks for it exactly).
    fetch_dir=$(mktemp -d)
    mkdir -p "$fetch_dir/src"
    printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n[workspace]\n' \
        "$name" "$version" >"$fetch_dir/Cargo.toml"
    touch "$fetch_dir/src/lib.rs"
    (cd "$fetch_dir" && cargo fetch --quiet)
    rm -rf "$fetch_dir"
    file=$(find "$cargo_home/registry/cache" -name "$name-$version.crate" | head -n 1)
    [ -n "$file" ] || { echo "$name-$version.crate not found" >&2; exit 1; }
    dir=$work/$name-$version
    rm -rf "$dir"
    tar xzf "$file" -C "$work"
    # A packaged lock file would keep the registry's rayon-core (the patch
    # then lands in [[patch.unused]]): resolve afresh.
    rm -f "$dir/Cargo.lock"
    cat >>"$dir/Cargo.toml" <<TOML

[patch.crates-io]
rayon-core = { path = "$repo/rayon-core" }

[workspace]
TOML
    echo "=== $name $version: cargo test $args"
    # shellcheck disable=SC2086 # the arguments are words
    (cd "$dir" && timeout 1200 cargo test $args -- --test-threads=4)
    if grep -q '\[\[patch.unused\]\]' "$dir/Cargo.lock"; then
        echo "$name: the rayon-core patch was not used" >&2
        exit 1
    fi
    if ! awk '/^name = "rayon-core"$/ {found = 1; getline; getline; if ($0 ~ /^source/) bad = 1} END {exit !(found && !bad)}' "$dir/Cargo.lock"; then
        echo "$name: rayon-core does not come from tine's rayon-core/" >&2
        exit 1
    fi
    echo "$name: rayon-core comes from tine's rayon-core/"
done
