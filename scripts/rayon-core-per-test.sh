# Sourced by scripts/rayon-core-contract.sh and `scripts/rayon-core-tests.sh
# units`: builds a crate's test binaries, then runs each test alone, in its
# own process under `timeout`, so that a hang is reported for that test and
# does not hold up the rest.
#
# test_binaries DIR: `cargo test --no-run` in DIR; prints one line per
#   test binary: TARGET PATH (TARGET: the file under tests/, without .rs).
# run_each TARGET BINARY TIMEOUT RESULTS: runs each test of BINARY with
#   `--exact` under TIMEOUT seconds (or TEST_TIMEOUT[TARGET::NAME], where
#   set: the slow tests' own limits); appends "STATUS TARGET::NAME SECONDS"
#   to RESULTS, STATUS one of PASS, FAIL, DEADLOCK (the test's own watchdog
#   fired: it printed "DEADLOCK"), HANG (killed by `timeout`); the output
#   of each test that did not pass goes to RESULTS.d/TARGET::NAME.log.
# summarize RESULTS: counts and the tests that did not pass; returns 1 if
#   any did not, or if none ran.

# Per-test limits that replace run_each's TIMEOUT, by TARGET::NAME.
declare -A TEST_TIMEOUT=()

test_binaries() {
    local dir=$1 log
    log=$(mktemp)
    if ! (cd "$dir" && cargo test --no-run 2>"$log"); then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    # "  Executable tests/contract.rs (/path/to/contract-0123abcd)"
    sed -n 's|^ *Executable tests/\(.*\)\.rs (\(.*\))$|\1 \2|p' "$log"
    rm -f "$log"
}

run_each() {
    local target=$1 binary=$2 limit=$3 results=$4
    local name out rc status start seconds
    mkdir -p "$results.d"
    out=$(mktemp)
    while read -r name; do
        start=$(date +%s.%N)
        rc=0
        timeout --kill-after=10 "${TEST_TIMEOUT[$target::$name]:-$limit}" "$binary" --exact "$name" --test-threads=1 </dev/null \
            >"$out" 2>&1 || rc=$?
        seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
            status=HANG
        elif grep -q DEADLOCK "$out"; then
            status=DEADLOCK
        elif [ "$rc" = 0 ] && grep -q '^test result: ok. 1 passed' "$out"; then
            status=PASS
        else
            status=FAIL
        fi
        echo "$status $target::$name $seconds" | tee -a "$results"
        if [ "$status" != PASS ]; then
            cp "$out" "$results.d/$target::$name.log"
        fi
    done < <("$binary" --list --format=terse 2>/dev/null | sed -n 's/: test$//p')
    rm -f "$out"
}

summarize() {
    local results=$1
    echo "== $results"
    if ! [ -s "$results" ]; then
        echo "-- no test ran"
        return 1
    fi
    awk '{ n[$1]++ } END { for (s in n) printf "%s %d\n", s, n[s] }' "$results" | sort
    if grep -qv '^PASS ' "$results"; then
        echo "-- not passing (logs in $results.d/):"
        grep -v '^PASS ' "$results"
        return 1
    fi
}
