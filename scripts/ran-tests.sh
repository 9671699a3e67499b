#!/usr/bin/env bash
# Passes cargo test's output through, and fails if it ran no test: every
# test binary's "running N tests" line must have N > 0. For the runs whose
# filters pick tests by name (the Miri suites, the numa doc tests, the
# crates' doc tests): a renamed test would otherwise leave its filter
# matching nothing, and the run would pass on "0 tests".
#
#   set -o pipefail
#   cargo test ... -- FILTER 2>&1 | scripts/ran-tests.sh
set -euo pipefail
awk '
    { print; fflush() }
    /^running [0-9]+ tests?$/ { runs++; if ($2 == 0) empty++ }
    END {
        if (runs == 0 || empty > 0) {
            printf "ran-tests: %d of %d test runs above ran no test: does a filter still name a test?\n", (runs == 0 ? 0 : empty), runs > "/dev/stderr"
            exit 1
        }
    }'
