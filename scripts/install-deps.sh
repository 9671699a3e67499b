#!/usr/bin/env bash
# Installs the system libraries that tine's optional parts need, from
# Debian's apt. Idempotent: it does nothing when they are already there.
#
#   scripts/install-deps.sh           # what the `numa` feature needs
#   scripts/install-deps.sh mpi       # what examples-mpi/ needs
#   scripts/install-deps.sh cross     # what the AArch64 tests under qemu need
#   scripts/install-deps.sh numa mpi  # both of the first two
#
# numa: the `numa` feature links hwloc through hwlocality, which needs
# hwloc's headers and pkg-config file (libhwloc-dev) and libudev
# (libudev-dev).
#
# mpi: examples-mpi/ links MPI through rsmpi (the `mpi` crate). Its build
# finds MPI with `mpicc -show` or pkg-config and runs bindgen over mpi.h,
# which loads libclang. Open MPI is the implementation it is built and
# tested with on Debian 12 (openmpi-bin brings `mpirun`).
#
# cross: .ci/run links the tests for aarch64-unknown-linux-gnu with the
# cross gcc and Debian's arm64 glibc (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross), and runs them under user-mode emulation
# (`qemu-aarch64 -L /usr/aarch64-linux-gnu`, from qemu-user).
set -euo pipefail

sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=(numa)

packages=()
for set in "${sets[@]}"; do
    case "$set" in
        numa) packages+=(libhwloc-dev libudev-dev pkg-config) ;;
        mpi) packages+=(libopenmpi-dev openmpi-bin libclang-dev pkg-config) ;;
        cross) packages+=(qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
        *)
            echo "install-deps: unknown set '$set' (expected: numa, mpi, cross)" >&2
            exit 2
            ;;
    esac
done

# Each package once, in order (pkg-config is in both sets).
read -r -a packages <<<"$(printf '%s\n' "${packages[@]}" | awk '!seen[$0]++' | tr '\n' ' ')"

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
# Finish any install an earlier run left half done (apt refuses to start
# with "dpkg was interrupted" otherwise); a no-op when there is none.
DEBIAN_FRONTEND=noninteractive $sudo dpkg --configure -a
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
