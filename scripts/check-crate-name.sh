#!/usr/bin/env bash
# Checks that the package name in Cargo.toml is free on crates.io, or
# already ours: looked up in the registry's sparse index, as cargo does.
# A name with an entry passes only if the entry is this package's (its
# version from Cargo.toml, with this package's normal dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

name=$(sed -n '/^\[package\]/,/^\[/s/^name = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
version=$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
case ${#lower} in
    1) path=1/$lower ;;
    2) path=2/$lower ;;
    3) path=3/${lower:0:1}/$lower ;;
    *) path=${lower:0:2}/${lower:2:2}/$lower ;;
esac
url=https://index.crates.io/$path

entry=$(mktemp)
trap 'rm -f "$entry"' EXIT
status=$(curl -sS -m 30 -o "$entry" -w '%{http_code}' "$url" 2>/dev/null) || status=000
case $status in
    404)
        echo "crates.io: the name $name is free"
        ;;
    200)
        # Ours once published: the entry lists this version with tine's
        # own dependencies. Anything else is another project's crate.
        if grep -E "\"vers\": ?\"$version\"" "$entry" | grep -E '"name": ?"crossbeam-utils"' \
            | grep -qE '"name": ?"either"'; then
            echo "crates.io: $name $version is this package"
        else
            echo "crates.io: the name $name is taken by another crate ($url):" >&2
            head -c 400 "$entry" >&2
            echo >&2
            exit 1
        fi
        ;;
    *)
        if [ -n "${CI:-}" ]; then
            echo "crates.io's index did not answer for $name (HTTP $status): CI must check the name" >&2
            exit 1
        fi
        echo "skipped: crates.io's index is not reachable (HTTP $status)"
        ;;
esac
