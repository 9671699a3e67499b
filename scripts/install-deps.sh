#!/usr/bin/env bash
# Installs the system libraries that tine's optional features need, from
# Debian's apt. Idempotent: it does nothing when they are already there.
#
#   scripts/install-deps.sh          # what the `numa` feature needs
#
# The `numa` feature links hwloc through hwlocality, which needs hwloc's
# headers and pkg-config file (libhwloc-dev) and libudev (libudev-dev).
set -euo pipefail

packages=(libhwloc-dev libudev-dev pkg-config)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: ${packages[*]} already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
else
    sudo=
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
