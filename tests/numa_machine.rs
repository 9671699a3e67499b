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

/// The nodes with CPUs, by the kernel's own account (sysfs), independent
/// of hwloc.
fn nodes_with_cpus_from_sysfs() -> BTreeSet<usize> {
    let mut nodes = BTreeSet::new();
    for entry in std::fs::read_dir("/sys/devices/system/node").unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(index) = name.strip_prefix("node").and_then(|i| i.parse().ok()) else {
            continue;
        };
        let cpulist = std::fs::read_to_string(format!("/sys/devices/system/node/{name}/cpulist"));
        if !cpulist.unwrap_or_default().trim().is_empty() {
            nodes.insert(index);
        }
    }
    nodes
}

#[test]
fn distributed_workers_run_on_their_nodes_cpus_and_cover_every_node() {
    let topology = topology();
    let pool = DistributedPool::builder(&topology)
        .pin(Pin::HardwareThreads)
        .build()
        .unwrap();
    // One team per node that has CPUs, as the kernel counts them.
    let team_nodes: BTreeSet<usize> = (0..pool.colocations())
        .map(|c| topology.colocations()[c].node())
        .collect();
    assert_eq!(team_nodes, nodes_with_cpus_from_sysfs());
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
            visited.lock().unwrap().insert(colocation);
        });
    }
    assert!(
        wrong.into_inner().unwrap().is_empty(),
        "workers off their CPUs"
    );
    // Every colocation with a worker of its own had it run there.
    let with_workers: BTreeSet<usize> = (0..pool.colocations())
        .filter(|&c| pool.thread_range(c).any(|t| t != 0))
        .collect();
    assert_eq!(visited.into_inner().unwrap(), with_workers);
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
        let shard = data.shard(s).unwrap();
        assert_eq!(shard.node(), node);
        assert_eq!(shard.memory_nodes().unwrap(), [node], "shard {s}");
        assert_eq!(data.shard_range(s), Some(pool.colocation_range(len, s)));
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
    assert!(data.shard(data.shards()).is_none());
    assert!(data.shard_range(usize::MAX).is_none());
}

#[test]
fn a_panicking_fill_drops_exactly_what_it_made() {
    static MADE: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    static DROPPED: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    /// Carries its index, so the test sees which elements were dropped.
    struct Tracked(usize);
    impl Drop for Tracked {
        fn drop(&mut self) {
            DROPPED.lock().unwrap().push(self.0);
        }
    }
    let topology = topology();
    let pool = DistributedPool::try_spawn(&topology).unwrap();
    let len = 10_000;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        RoundRobinVec::from_fn(&pool, len, |i| {
            // One panic, in the middle of the last thread's range.
            if i == len - 100 {
                panic!("fill failed");
            }
            MADE.lock().unwrap().push(i);
            Tracked(i)
        })
    }));
    assert!(result.is_err());
    let mut made = MADE.lock().unwrap().clone();
    let mut dropped = DROPPED.lock().unwrap().clone();
    made.sort_unstable();
    dropped.sort_unstable();
    assert!(!made.is_empty());
    assert_eq!(dropped, made, "every element made is dropped, once");
}

#[test]
fn pinned_vec_handles_zero_sized_types_and_refuses_overflow() {
    let topology = topology();
    let node = topology.colocations()[0].node();
    let mut units = PinnedVec::<()>::new(&topology, node).unwrap();
    for _ in 0..100_000 {
        units.try_push(()).unwrap();
    }
    assert_eq!(units.len(), 100_000);
    assert!(units.memory_nodes().unwrap().is_empty());
    let mut bytes = PinnedVec::<u64>::new(&topology, node).unwrap();
    assert!(bytes.try_reserve(usize::MAX / 4).is_err());
    assert!(bytes.try_reserve(usize::MAX).is_err());
    bytes.try_push(1).unwrap();
    assert_eq!(bytes.as_slice(), [1]);
}
