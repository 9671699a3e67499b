#!/usr/bin/env bash
# Prints the path of a Linux kernel image for ../shared/tools/run-in-numa-vm.sh
# (its NUMA_VM_KERNEL): the newest /boot/vmlinuz-*, else the image of
# Debian's current linux-image-amd64, downloaded and unpacked once into
# CACHE (default target/vm-kernel) without installing the package (which
# would build an initramfs for this machine, unused by the VMs).
#
#   NUMA_VM_KERNEL=$(scripts/vm-kernel.sh) ../shared/tools/run-in-numa-vm.sh ...
set -euo pipefail
cache=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/vm-kernel}

if compgen -G '/boot/vmlinuz-*' >/dev/null; then
    ls /boot/vmlinuz-* | sort -V | tail -n 1
    exit 0
fi
if ! compgen -G "$cache/boot/vmlinuz-*" >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq >&2
    # The versioned package that the metapackage names.
    package=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
    [ -n "$package" ] || { echo "vm-kernel: no linux-image package found" >&2; exit 1; }
    download=$(mktemp -d)
    # As the caller: apt's own download user cannot write to a private
    # temporary directory.
    (cd "$download" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$package" >&2)
    mkdir -p "$cache"
    dpkg-deb --fsys-tarfile "$download"/*.deb | tar -x -C "$cache" ./boot
    rm -rf "$download"
fi
ls "$cache"/boot/vmlinuz-* | sort -V | tail -n 1
