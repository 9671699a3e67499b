//! Real binding on the running machine: worker placement (`sched_getcpu`),
//! node-local memory (hwloc's memory-location query, which is `move_pages`
//! on Linux), and a distributed pool that covers every node.
//!
//! On a one-node machine these hold trivially for the one node. `.ci/run`
//! also runs this binary in a multi-node VM
//! (`../shared/tools/run-in-numa-vm.sh`), with `TINE_EXPECT_NODES` set to the
//! VM's node count so that a topology seen as one node fails.
#![cfg(all(feature = "numa", target_os = "linux"))]

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tine::numa::{DistributedPool, Pin, PinnedVec, RoundRobinVec, Topology};

fn current_cpu() -> usize {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).expect("sched_getcpu failed")
}

fn affinity() -> Vec<usize> {
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut mask: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `mask` is a valid cpu_set_t of the size passed.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&mask), &mut mask) };
    assert_eq!(rc, 0);
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &mask) })
        .collect()
}

fn topology() -> Topology {
    let topology = Topology::discover().unwrap();
    if let Ok(expected) = std::env::var("TINE_EXPECT_NODES") {
        let expected: usize = expected.parse().unwrap();
        assert_eq!(
            topology.colocations().len(),
            expected,
            "expected {expected} NUMA nodes with CPUs: {topology:?}"
        );
    }
    assert!(topology.is_this_system());
    topology
}

#[test]
fn distributed_workers_run_on_their_nodes_cpus_and_cover_every_node() {
    let topology = topology();
    let pool = DistributedPool::builder(&topology)
        .pin(Pin::HardwareThreads)
        .build()
        .unwrap();
    let with_cpus = topology.nodes().iter().filter(|n| n.has_cpus()).count();
    assert_eq!(
        pool.colocations(),
        with_cpus,
        "a node with CPUs got no team"
    );
    for c in 0..pool.colocations() {
        assert!(pool.threads_in(c) > 0);
    }
    let wrong = Mutex::new(Vec::new());
    let visited = Mutex::new(BTreeSet::new());
    for _ in 0..20 {
        pool.for_threads(|thread, colocation| {
            if thread == 0 {
                return; // the caller is not pinned
            }
            let cpu = current_cpu();
            let placement = &pool.placement()[thread];
            if !placement.cpus.contains(&cpu) {
                wrong
                    .lock()
                    .unwrap()
                    .push((thread, cpu, placement.cpus.clone()));
            }
            visited
                .lock()
                .unwrap()
                .insert(topology.colocations()[colocation].node());
        });
    }
    assert!(
        wrong.into_inner().unwrap().is_empty(),
        "workers off their CPUs"
    );
    if pool.threads() > pool.colocations() {
        // Every node had a worker of its own run there.
        assert_eq!(visited.into_inner().unwrap().len(), pool.colocations());
    }
}

#[test]
fn a_pool_pinned_to_each_node_runs_there_and_leaves_the_caller_alone() {
    let topology = topology();
    let before = affinity();
    for colocation in topology.colocations() {
        let node = colocation.node();
        let pool = tine::ThreadPool::builder()
            .threads(colocation.cpus().len() + 1)
            .pin(&topology, Pin::Node(node))
            .strict_pinning(false)
            .build()
            .unwrap();
        let off_node = AtomicUsize::new(0);
        for _ in 0..20 {
            pool.for_threads(|thread, _| {
                if thread > 0 && !colocation.cpus().contains(&current_cpu()) {
                    off_node.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        assert_eq!(off_node.into_inner(), 0, "a worker ran off node {node}");
        assert_eq!(affinity(), before, "the caller's affinity changed");
    }
}

#[test]
fn pin_caller_pins_the_caller_and_restores_it_even_when_another_thread_drops() {
    let topology = topology();
    let before = affinity();
    let last = topology.colocations().last().unwrap().clone();
    let pool = tine::ThreadPool::builder()
        .threads(2)
        .pin(&topology, Pin::Node(last.node()))
        .pin_caller(true)
        .build()
        .unwrap();
    assert_eq!(affinity(), last.cpus(), "the caller was not pinned");
    // Dropped on another thread: the caller's affinity comes back anyway,
    // and the dropping thread's is untouched.
    std::thread::spawn(move || {
        let mine = affinity();
        drop(pool);
        assert_eq!(affinity(), mine);
    })
    .join()
    .unwrap();
    assert_eq!(affinity(), before, "the caller's affinity was not restored");
}

#[test]
fn pinned_vec_pages_live_on_their_node() {
    let topology = topology();
    for colocation in topology.colocations() {
        let node = colocation.node();
        let mut values = PinnedVec::with_capacity(&topology, node, 1 << 16).unwrap();
        for i in 0..(1u64 << 16) {
            values.try_push(i).unwrap();
        }
        // Growing remaps: the copy must land on the node too.
        values.try_reserve(1 << 18).unwrap();
        values.try_resize_with(1 << 18, || 7).unwrap();
        assert_eq!(values.memory_nodes().unwrap(), [node], "node {node}");
        assert_eq!(values[12345], 12345);
        assert_eq!(values.pop(), Some(7));
        values.truncate(10);
        assert_eq!(values.iter().sum::<u64>(), 45);
    }
    assert!(matches!(
        PinnedVec::<u8>::new(&topology, 4096),
        Err(tine::Error::NoSuchNode { node: 4096, .. })
    ));
}

#[test]
fn round_robin_shards_live_on_their_nodes() {
    let topology = topology();
    let pool = DistributedPool::try_spawn(&topology).unwrap();
    let len = 1 << 18;
    let mut data = RoundRobinVec::from_fn(&pool, len, |i| i as u32).unwrap();
    assert_eq!(data.len(), len);
    for s in 0..data.shards() {
        let node = topology.colocations()[s].node();
        assert_eq!(data.shard(s).node(), node);
        assert_eq!(data.shard(s).memory_nodes().unwrap(), [node], "shard {s}");
        assert_eq!(data.shard_range(s), pool.colocation_range(len, s));
    }
    data.fill_with(&pool, |i| (i % 1000) as u32);
    data.par_for_each_mut(&pool, |_, x| *x += 1);
    let sum = AtomicUsize::new(0);
    data.par_for_each(&pool, |i, &x| {
        assert_eq!(x as usize, i % 1000 + 1);
        sum.fetch_add(x as usize, Ordering::Relaxed);
    });
    let expected: usize = (0..len).map(|i| i % 1000 + 1).sum();
    assert_eq!(sum.into_inner(), expected);
    assert_eq!(
        data.get(len - 1).copied(),
        Some(((len - 1) % 1000 + 1) as u32)
    );
    assert_eq!(data.get(len), None);
}

#[test]
fn a_panicking_fill_drops_what_it_made_and_frees_the_rest() {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::Relaxed);
        }
    }
    let topology = topology();
    let pool = DistributedPool::try_spawn(&topology).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        RoundRobinVec::from_fn(&pool, 10_000, |i| {
            if i == 7777 {
                panic!("fill failed");
            }
            LIVE.fetch_add(1, Ordering::Relaxed);
            Counted
        })
    }));
    assert!(result.is_err());
    assert_eq!(LIVE.load(Ordering::Relaxed), 0, "elements leaked");
}
