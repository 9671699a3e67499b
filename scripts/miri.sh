#!/usr/bin/env bash
# Runs the test suites under Miri, which checks every unsafe access, every
# atomic and every allocation against Rust's rules: the fork protocol (core)
# under Stacked and Tree Borrows, the rest under Stacked. Sizes,
# rounds and proptest cases shrink under Miri (see tests/scale/mod.rs;
# TINE_TEST_SCALE overrides the divisor). Installs the nightly component
# itself. About 12 minutes of CPU, the sysroot's build included, in two
# halves that run side by side (about 6 minutes on 2 idle cores); .ci/run
# runs the whole set in the background, niced, beside its other steps, and
# `all` prints its CPU time.
#
#   scripts/miri.sh            # the CI set (both halves, side by side)
#   scripts/miri.sh first      # one half (or second)
#   SEEDS="1 2 3 4" scripts/miri.sh core   # one suite, more interleavings
set -euo pipefail
cd "$(dirname "$0")/.."

rustup component add --toolchain nightly miri rust-src >/dev/null
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/miri}
export TINE_TEST_SCALE=${TINE_TEST_SCALE:-100}
# Miri's isolation hides the environment: forward the divisor.
forward="-Zmiri-env-forward=TINE_TEST_SCALE"
seeds=${SEEDS:-0}

# miri BORROWS LEAKS -- cargo test arguments...
#   BORROWS: stacked or tree. LEAKS: check, or ignore for suites whose tests
#   share process-wide pools (the global pool, pools in statics): their
#   threads run until the process exits, by design, and Miri reports any
#   thread still alive at exit (-Zmiri-ignore-leaks also stops it counting
#   leaked memory, so the suites that can keep the check do).
miri() {
    local borrows=$1 leaks=$2 flags=$forward
    shift 2
    if [ -n "${collecting:-}" ]; then
        # Only the targets, for `all`'s one build: `--lib` and `--test NAME`
        # before `--`, each once.
        while [ $# -gt 0 ] && [ "$1" != -- ]; do
            case $1 in
            --lib) [[ " ${targets[*]} " == *" --lib "* ]] || targets+=(--lib) ;;
            --test)
                [[ " ${targets[*]} " == *" --test $2 "* ]] || targets+=(--test "$2")
                shift
                ;;
            esac
            shift
        done
        return
    fi
    [ "$borrows" = tree ] && flags="$flags -Zmiri-tree-borrows"
    [ "$leaks" = ignore ] && flags="$flags -Zmiri-ignore-leaks"
    for seed in $seeds; do
        printf -- '--- miri (%s borrows, leaks %s, seed %s): %s\n' "$borrows" "$leaks" "$seed" "$*"
        # Each run's filters name tests: it must run at least one.
        MIRIFLAGS="$flags -Zmiri-seed=$seed" cargo +nightly miri test --locked "$@" 2>&1 \
            | scripts/ran-tests.sh
    done
}

suites=${1:-all}
static_pool=a_pool_can_live_in_a_static

# The CI set in two halves of about equal length (about 5 minutes of CPU
# each here), which `all` runs side by side, each in a target directory of
# its own (one cargo holds a target directory's lock until its tests end).
first_half() {
    miri stacked check --test core --test liveness -- --skip $static_pool
    miri stacked ignore --test core -- --exact $static_pool
    # The fork protocol again under Tree Borrows: the same accesses, a
    # different aliasing model.
    miri tree check --test core -- --skip $static_pool
    # Nested fork-join and the parallel-iterator driver at a quarter of the
    # default sizes (the shapes stay; the rounds and depths shrink), the
    # latter less its early-stop timing test (under Miri it checks no
    # bound, and it costs a sixth of the suite).
    TINE_TEST_SCALE=400 miri stacked ignore --test nest
    miri stacked check --test nest_deep
    TINE_TEST_SCALE=400 miri stacked ignore --test par -- --skip a_hit_at_index_zero
    # par_bridge's stack room and lock, in its tests that drop and panic.
    miri stacked check --test bridge -- owned_items large_and_zero a_panic_in_the_source
    # The owned adaptors (rev, step_by, chunks, interleave), in their tests
    # that drop and panic.
    miri stacked ignore --test adaptors -- owned_items_are_dropped_exactly_once
}

second_half() {
    # The slice splits (par_split_mut), in their tests that cut at every
    # position. (The string splits are safe code on the same producers.)
    miri stacked ignore --test strings -- slice_splits_match_std_on_edge_cases
    # A flat_map's serial inner walks: a heavy inner producer kept on the
    # heap with the iterator of its position, and searches from the end.
    miri stacked ignore --test flat_search -- drops_every_item_once
    # The inline sources (compat), dropping owned items once.
    miri stacked ignore --test compat -- small_sources
    # Streaming is safe code on the fork, but for its caller-only writer
    # (`CallerOnly`'s `Sync`): ordered and unordered output written from
    # forked shares, at a sixteenth of the records the default divisor
    # leaves (12 and 18 records: many batches at the smallest batch sizes).
    TINE_TEST_SCALE=1600 miri stacked check --test stream -- ordered_echo unordered_output
    # The sorts' merges and partitions, under panics, bad orders and writes
    # through cells (their plain results against std's run natively).
    miri stacked ignore --lib par::sort -- --skip small_leaves
    # par_drain: a vector's buffer lent by position and its tail moved
    # back, under early stop, panics and leaks.
    miri stacked check --test drain
    # The injector: a call handed over to a busy pool (its stack job, the
    # queue's links, the done flag) and spawned jobs (boxed, counted, freed
    # by their runner), with a panic crossing back to the caller.
    miri stacked check --test many_callers -- a_call_made_during a_panic_in_a_handed_over_call
    # The order queued calls run in: their own list's links, kept with
    # the queue's through pops and take-backs.
    miri stacked check --lib nest::inject::order
    miri stacked check --test spawn -- every_job_runs jobs_spawned_by_jobs a_panic_goes_to_the_handler
    # A thread's mail: per-thread jobs posted from a region's tasks (stack
    # jobs of a broadcast, boxed ones of spawn_broadcast), run by their
    # owners or, once closed, by their posters.
    miri stacked check --test broadcast_region
    # Tasks (`spawn_async`, `spawn_future`, `Scope::spawn_future`): the cell
    # and its references, the waker's vtable, the hand-off of the result,
    # a detached task, and a future woken from another thread (the tests
    # that await on pollster's executor and on the pool's `block_on`).
    miri stacked check --test tasks -- a_task_runs_on_the_pools_threads a_panic_in_a_task_resumes a_dropped_task_still_runs a_spawned_future_is_polled_again block_on_a_pools_own_task a_scope_waits_for_the_futures a_panic_in_a_scoped_future a_task_of_a_pool_dropped
}

case $suites in
all)
    # The sysroot and the two halves' targets once (the halves' own cargo
    # runs then find them built): a build in the first half's target
    # directory, copied to the second's.
    cargo +nightly miri setup
    base=$CARGO_TARGET_DIR
    targets=()
    collecting=1
    first_half
    second_half
    collecting=
    # Without the divisor: cargo-miri gives a test the environment it was
    # built in, over the one it runs in, and some suites run with their own.
    env -u TINE_TEST_SCALE CARGO_TARGET_DIR="$base/first" \
        cargo +nightly miri test --locked --no-run "${targets[@]}"
    rm -rf "$base/second"
    cp -a "$base/first" "$base/second"
    # Each half in a process of its own, which stops at its first failure.
    CARGO_TARGET_DIR=$base/first "$PWD/scripts/miri.sh" first >"$base/first.log" 2>&1 &
    first=$!
    status=0
    CARGO_TARGET_DIR=$base/second "$PWD/scripts/miri.sh" second >"$base/second.log" 2>&1 || status=$?
    wait "$first" || status=$?
    cat "$base/first.log" "$base/second.log"
    # The CPU time of the build and both halves, from this shell's
    # waited-for children.
    awk -v ticks="$(getconf CLK_TCK)" '{ printf "Miri: %d s of CPU\n", ($16 + $17) / ticks }' "/proc/$$/stat"
    exit "$status"
    ;;
first) first_half ;;
second) second_half ;;
*)
    miri stacked ignore --test "$suites"
    miri tree ignore --test "$suites"
    ;;
esac
