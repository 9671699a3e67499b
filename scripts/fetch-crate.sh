#!/usr/bin/env bash
# Unpacks crates.io's NAME-VERSION.crate into DIR (as DIR/NAME-VERSION),
# replacing any earlier copy: cargo downloads it through a throw-away
# manifest that asks for it exactly, so this works from a clean cargo home.
#
#   scripts/fetch-crate.sh NAME VERSION DIR
set -euo pipefail
name=$1 version=$2 dir=$3
fetch_dir=$(mktemp -d)
trap 'rm -rf "$fetch_dir"' EXIT
mkdir -p "$fetch_dir/src" "$dir"
printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n[workspace]\n' \
    "$name" "$version" >"$fetch_dir/Cargo.toml"
touch "$fetch_dir/src/lib.rs"
(cd "$fetch_dir" && cargo fetch --quiet)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
file=$(find "$cargo_home/registry/cache" -name "$name-$version.crate" | head -n 1)
[ -n "$file" ] || { echo "$name-$version.crate not found under $cargo_home" >&2; exit 1; }
rm -rf "${dir:?}/$name-$version"
tar xzf "$file" -C "$dir"
