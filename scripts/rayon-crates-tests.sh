#!/usr/bin/env bash
# Real crates that use rayon, their test suites run on tine's core: each
# crate's .crate from crates.io, with one change, the `[patch]` line that
# puts this repository's rayon-core/ under rayon. Checks each lock file as
# scripts/rayon-core-tests.sh does. The three CI runs give their own types
# parallel iterators through rayon's plumbing (Producer, Consumer, bridge).
#
#   scripts/rayon-crates-tests.sh            # the three crates CI runs
#   scripts/rayon-crates-tests.sh --more     # and the more below
#   scripts/rayon-crates-tests.sh hashbrown  # one of them
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

# "crate version | cargo test's features and targets | doc-test filters |
# the test harness's arguments": the crate's suite with its rayon feature,
# whole where no targets are named; else its unit tests (its rayon module's
# among them, or only those the harness's arguments pick), the test files
# that use rayon, and the doc tests whose names match a filter (the
# parallel module's and methods'; hashbrown's and indexmap's rayon modules
# have none).
crates=(
    "hashbrown 0.15.2 | --features rayon --lib --test rayon | |"
    "indexmap 2.7.0 | --features rayon --lib | |"
    "ndarray 0.16.1 | --features rayon --lib --test par_rayon --test par_azip --test par_zip | src/parallel/ par_ |"
)
# With --more:
# - a progress bar's parallel-iterator adaptor, its own Consumer and
#   Folder (indicatif); a sharded map's parallel iterators (dashmap);
#   persistent vectors' indexed producers (im, and its fork imbl);
# - graph algorithms over parallel iterators (petgraph); a k-d tree built
#   by `join` (kd-tree); sparse matrices' products (sprs; its Matrix
#   Market tests read files the .crate leaves out);
# - `spawn` and `spawn_fifo` answered through channels into async code
#   (tokio-rayon); a directory walker on its own pools (jwalk); iterators
#   that run serially or in parallel by a flag (rayon-cond);
# - a parallel prefix scan through the plumbing (rayon-scan); another
#   progress bar's adaptor (kdam); a benchmark harness whose statistics
#   resample on the global pool (criterion; its library's tests: its
#   integration tests take no `--test-threads`).
more=(
    "indicatif 0.18.6 | --features rayon --lib | |"
    "dashmap 6.2.1 | --features rayon --lib | |"
    "im 15.1.0 | --features rayon --lib | | rayon"
    "imbl 7.0.2 | --features rayon --lib | | rayon"
    "petgraph 0.8.3 | --features rayon | |"
    "kd-tree 0.6.2 | --features rayon | |"
    "sprs 0.11.6 | --features multi_thread --lib | | --skip io::test"
    "tokio-rayon 2.1.0 | | |"
    "jwalk 0.8.1 | | |"
    "rayon-cond 0.4.0 | | |"
    "rayon-scan 0.1.1 | | |"
    "kdam 0.6.4 | --features rayon | |"
    "criterion 0.5.1 | --lib | |"
)
if [ "${1:-}" = --more ]; then
    crates+=("${more[@]}")
    shift
elif [ -n "${1:-}" ]; then
    crates+=("${more[@]}")
fi

work=${RAYON_ON_TINE_DIR:-$repo/target/rayon-on-tine}/crates
# shellcheck source=scripts/rayon-patch.sh
source scripts/rayon-patch.sh
share_target_dir
mkdir -p "$work"
for entry in "${crates[@]}"; do
    IFS='|' read -r crate targets filters tests <<<"$entry"
    read -r name version <<<"$crate"
    [ -n "${1:-}" ] && [ "$1" != "$name" ] && continue
    scripts/fetch-crate.sh "$name" "$version" "$work"
    dir=$work/$name-$version
    patch "$dir"
    read -r tests <<<"$tests" || true
    read -r filters <<<"$filters" || true
    read -r targets <<<"$targets" || true
    features=$(grep -o -- '--features [^ ]*' <<<"$targets" || true)
    echo "=== $name $version: cargo test${targets:+ $targets} -- --test-threads=4${tests:+ $tests}${filters:+, and the doc tests matching $filters}"
    # shellcheck disable=SC2086 # the targets and filters are words
    (cd "$dir" && timeout 1200 cargo test $targets -- --test-threads=4 $tests)
    if [ -n "${filters// /}" ]; then
        # shellcheck disable=SC2086
        # The filters name doc tests: they must match at least one.
        (cd "$dir" && timeout 1200 cargo test $features --doc -- --test-threads=4 $filters 2>&1) \
            | scripts/ran-tests.sh
    fi
    check_lock "$dir"
done
