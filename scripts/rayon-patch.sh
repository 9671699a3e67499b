# Sourced by the scripts that run crates on tine's rayon-core/ (needs
# $repo, the repository's root).
#
# patch DIR: appends the `[patch]` line to DIR's manifest (the crate becomes
# a workspace of its own) and drops a packaged lock file.
# check_lock DIR: fails unless DIR's lock file takes rayon-core from the
# path, with no [[patch.unused]].
# share_target_dir: the test scripts' one target directory (below).

# share_target_dir: one target directory for every crate the test scripts
# run on tine's core (scripts/rayon-core-tests.sh, rayon-crates-tests.sh),
# so that rayon-core/ and the dependencies they share compile once. Not
# for scripts/rayon-core-ab.sh, whose two sides build binaries of one name.
share_target_dir() {
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-${RAYON_ON_TINE_DIR:-$repo/target/rayon-on-tine}/target}
}

# The patch, appended to a crate's manifest; the crate becomes a workspace
# of its own.
patch() {
    # A packaged lock file would keep the registry's rayon-core (the patch
    # then lands in [[patch.unused]]): resolve afresh.
    rm -f "$1/Cargo.lock"
    cat >>"$1/Cargo.toml" <<TOML

[patch.crates-io]
rayon-core = { path = "$repo/rayon-core" }

[workspace]
TOML
}

# The lock file shows rayon-core taken from the path, and no unused patch.
check_lock() {
    local lock=$1/Cargo.lock
    if grep -q '\[\[patch.unused\]\]' "$lock"; then
        echo "$lock: the rayon-core patch was not used" >&2
        exit 1
    fi
    if awk '/^name = "rayon-core"$/ {found = 1; getline; getline; if ($0 ~ /^source/) bad = 1} END {exit !(found && !bad)}' "$lock"; then
        echo "$lock: rayon-core comes from tine's rayon-core/"
    else
        echo "$lock: rayon-core does not come from tine's rayon-core/" >&2
        exit 1
    fi
}

