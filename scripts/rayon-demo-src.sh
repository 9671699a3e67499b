# Sourced by scripts/rayon-demo.sh and scripts/rayon-demo-bench.sh (needs
# $root, the repository's root, and $work, a scratch folder; reads $1, a
# clone of rayon's repository or a copy of its v1.12.0 tree, else clones it
# from GitHub).
#
# make_demo DIR DEPENDENCY: rayon 1.12's rayon-demo crate in DIR/rayon-demo,
# outside rayon's workspace, its `rayon` dependency line replaced by
# DEPENDENCY.
if [ -n "${1:-}" ]; then
    src=$1
else
    src=$work/rayon
    git clone -q --depth 1 --branch v1.12.0 https://github.com/rayon-rs/rayon "$src"
fi
rustup toolchain install nightly --profile minimal >/dev/null 2>&1 || true

# The demo crate outside rayon's workspace, its workspace fields written out.
make_demo() {
    local dir=$1 dependency=$2
    mkdir -p "$dir"
    if git -C "$src" rev-parse -q --verify v1.12.0 >/dev/null 2>&1; then
        git -C "$src" archive v1.12.0 rayon-demo README.md | tar -x -C "$dir"
    else
        cp -r "$src/rayon-demo" "$src/README.md" "$dir/"
    fi
    sed -i \
        -e 's|^edition.workspace = true|edition = "2021"\nversion = "0.0.0"|' \
        -e '/^rust-version.workspace = true/d' \
        -e "s|^rayon = { path = \"../\" }|$dependency|" \
        -e 's|^rand.workspace = true|rand = "0.9"|' \
        -e 's|^rand_xorshift.workspace = true|rand_xorshift = "0.4"|' \
        -e 's|^libc.workspace = true|libc = "0.2"|' \
        "$dir/rayon-demo/Cargo.toml"
    printf '\n[workspace]\n' >>"$dir/rayon-demo/Cargo.toml"
}

