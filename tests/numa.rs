//! NUMA placement logic on real machines' topologies (hwloc XML exports in
//! `tests/topologies/`) and synthetic ones. hwloc fakes binding on a loaded
//! topology, so these tests check the plan (which thread goes where, how work
//! is split, which nodes get no workers), and run distributed pools whose
//! pinning is a no-op. `tests/numa_machine.rs` checks real binding.
#![cfg(feature = "numa")]

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tine::numa::{DistributedPool, MemoryKind, Pin, PinnedVec, Topology};
use tine::Error;

fn fixture(name: &str) -> Topology {
    let path = format!("{}/tests/topologies/{name}", env!("CARGO_MANIFEST_DIR"));
    Topology::from_xml_file(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const WESTMERE: &str = "intel-2s-westmere__24em64t-2n6c2t-pci.xml";
const SNC: &str = "intel-2s-cascadelake-snc2__memorysidecaches.xml";
const EPYC: &str = "amd-2s-epyc7451__AMD-17h-Zen-2xEpyc-7451.xml";
const OPTERON: &str = "amd-4s-opteron6272__64amd64-4p2n4ca2co.xml";
const KUNPENG: &str = "arm-2s-kunpeng920__128arm-2pa2n8cluster4co.xml";
const POWER9: &str = "power9-v100-gpumem__nvidiagpunumanodes.xml";
const KNL: &str = "knl-snc4-hybrid__64intel64-fakeKNL-SNC4-hybrid.xml";
const SUPERDOME: &str = "ia64-superdome-cpuless__128ia64-17n4s2c.xml";

/// (fixture, nodes, colocation primary nodes in order, memory-only nodes,
/// hardware threads, cores)
#[allow(clippy::type_complexity)]
const MACHINES: [(&str, usize, &[usize], &[usize], usize, usize); 8] = [
    (WESTMERE, 2, &[0, 1], &[], 24, 12),
    (SNC, 4, &[0, 1, 2, 3], &[], 80, 40),
    (EPYC, 8, &[0, 1, 2, 3, 4, 5, 6, 7], &[], 96, 48),
    // Node OS indices out of CPU order: colocations follow the CPUs.
    (OPTERON, 8, &[0, 1, 6, 7, 2, 3, 4, 5], &[], 64, 64),
    (KUNPENG, 4, &[0, 1, 2, 3], &[], 128, 128),
    // Six GPU-memory nodes share the packages' cpusets.
    (POWER9, 8, &[0, 8], &[250, 251, 252, 253, 254, 255], 32, 8),
    // MCDRAM nodes share each cluster's cpuset with its DDR node.
    (KNL, 8, &[0, 1, 2, 3], &[4, 5, 6, 7], 64, 16),
    // Node 16 has an empty cpuset.
    (
        SUPERDOME,
        17,
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        &[16],
        128,
        128,
    ),
];

#[test]
fn every_fixture_yields_the_expected_nodes_colocations_and_memory_only_nodes() {
    for (name, nodes, primaries, memory_only, pus, cores) in MACHINES {
        let topology = fixture(name);
        assert_eq!(topology.nodes().len(), nodes, "{name}");
        let found: Vec<usize> = topology.colocations().iter().map(|c| c.node()).collect();
        assert_eq!(found, primaries, "{name}: colocation primaries");
        let found: BTreeSet<usize> = topology
            .nodes()
            .iter()
            .filter(|n| !n.has_cpus())
            .map(|n| n.os_index())
            .collect();
        assert_eq!(found, memory_only.iter().copied().collect(), "{name}");
        assert_eq!(topology.hardware_threads(), pus, "{name}");
        assert_eq!(topology.cores(), cores, "{name}");
        assert!(!topology.is_this_system());

        // Colocations partition the hardware threads, and each core lies
        // inside one colocation.
        let mut seen = BTreeSet::new();
        for colocation in topology.colocations() {
            for &cpu in colocation.cpus() {
                assert!(seen.insert(cpu), "{name}: cpu {cpu} in two colocations");
            }
            let in_cores: usize = colocation.cores().iter().map(Vec::len).sum();
            assert_eq!(in_cores, colocation.cpus().len(), "{name}");
            // The round-robin order is a permutation of the CPUs.
            let mut round_robin = colocation.cpus_round_robin();
            round_robin.sort_unstable();
            assert_eq!(round_robin, colocation.cpus(), "{name}");
        }
        // A node's colocation is the one whose primary it is.
        for node in topology.nodes() {
            if let Some(c) = node.colocation() {
                assert_eq!(topology.colocations()[c].node(), node.os_index());
            }
        }
    }
}

#[test]
fn memory_kinds_come_from_the_subtype() {
    let power9 = fixture(POWER9);
    assert_eq!(power9.node(0).unwrap().kind(), &MemoryKind::Dram);
    let gpu = power9.node(253).unwrap();
    assert_eq!(gpu.kind(), &MemoryKind::Gpu);
    assert_eq!(gpu.subtype(), Some("GPUMemory"));
    assert!(gpu.local_memory() > 0);
    // A memory-only node still reports its nearby CPUs...
    assert!(!gpu.cpus().is_empty());
    // ...and its own nodeset, through which its memory is bound.
    assert_eq!(gpu.nodeset(), &[253]);
    let knl = fixture(KNL);
    assert_eq!(knl.node(7).unwrap().kind(), &MemoryKind::HighBandwidth);
    assert_eq!(knl.colocations()[0].nodes(), &[0, 7]);
}

#[test]
fn pinning_plans_fill_cores_node_by_node_and_refuse_the_impossible() {
    let westmere = fixture(WESTMERE);
    let plan = westmere.plan(Pin::Cores, 12, true).unwrap();
    let per_colocation: Vec<usize> = plan.iter().map(|p| p.colocation).collect();
    assert_eq!(per_colocation, [[0; 6], [1; 6]].concat());
    let mut cpus: Vec<usize> = plan.iter().flat_map(|p| p.cpus.clone()).collect();
    cpus.sort_unstable();
    cpus.dedup();
    assert_eq!(cpus.len(), 24, "each core whole, every core once");
    assert!(matches!(
        westmere.plan(Pin::Cores, 13, true),
        Err(Error::NotEnoughCpus {
            threads: 13,
            cpus: 12
        })
    ));
    // Without strictness, the 13th thread wraps round to the first core.
    let wrapped = westmere.plan(Pin::Cores, 13, false).unwrap();
    assert_eq!(wrapped[12], wrapped[0]);

    // Hardware threads: the first 6 go to 6 distinct cores of node 0.
    let plan = westmere.plan(Pin::HardwareThreads, 24, true).unwrap();
    let colocation = &westmere.colocations()[0];
    let core_of = |cpu: usize| colocation.cores().iter().position(|c| c.contains(&cpu));
    let first_cores: BTreeSet<_> = plan[..6].iter().map(|p| core_of(p.cpus[0])).collect();
    assert_eq!(first_cores.len(), 6);
    assert!(westmere.plan(Pin::HardwareThreads, 25, true).is_err());

    // One node: every thread gets the node's CPUs.
    let plan = westmere.plan(Pin::Node(1), 4, true).unwrap();
    assert!(plan
        .iter()
        .all(|p| p.colocation == 1 && p.cpus == westmere.colocations()[1].cpus()));
    assert!(matches!(
        westmere.plan(Pin::Node(9), 2, true),
        Err(Error::NoSuchNode { node: 9, .. })
    ));
    // A memory-only node cannot take threads.
    let knl = fixture(KNL);
    assert!(matches!(
        knl.plan(Pin::Node(7), 2, true),
        Err(Error::NodeWithoutCpus { node: 7 })
    ));
    assert!(matches!(
        westmere.plan(Pin::None, 0, true),
        Err(Error::ZeroThreads)
    ));
    // Unpinned threads are left alone.
    assert!(westmere
        .plan(Pin::None, 3, true)
        .unwrap()
        .iter()
        .all(|p| p.cpus.is_empty()));
}

#[test]
fn distributed_plans_share_threads_in_proportion_and_skip_memory_only_nodes() {
    for (name, threads, expected) in [
        (POWER9, 8, vec![4, 4]),
        (EPYC, 16, vec![2; 8]),
        (KNL, 10, vec![3, 3, 2, 2]),
        (SUPERDOME, 16, vec![1; 16]),
        (WESTMERE, 24, vec![12, 12]),
    ] {
        let topology = fixture(name);
        let builder = DistributedPool::builder(&topology).threads(threads);
        assert_eq!(
            builder.threads_per_colocation().unwrap(),
            expected,
            "{name}"
        );
        let plan = builder.clone().pin(Pin::HardwareThreads).plan().unwrap();
        assert_eq!(plan.len(), threads);
        for placement in &plan {
            let colocation = &topology.colocations()[placement.colocation];
            assert!(
                placement.cpus.iter().all(|c| colocation.cpus().contains(c)),
                "{name}: a thread pinned outside its colocation"
            );
        }
        // Every worker's node is a primary node: none is memory-only.
        let nodes: BTreeSet<usize> = plan
            .iter()
            .map(|p| topology.colocations()[p.colocation].node())
            .collect();
        assert!(nodes.iter().all(|&n| topology.node(n).unwrap().has_cpus()));
    }
    let power9 = fixture(POWER9);
    assert!(matches!(
        DistributedPool::builder(&power9).threads(1).build(),
        Err(Error::TooFewThreads {
            threads: 1,
            colocations: 2
        })
    ));
    assert!(matches!(
        DistributedPool::builder(&power9).pin(Pin::Node(0)).build(),
        Err(Error::InvalidPin { .. })
    ));
    assert!(matches!(
        DistributedPool::builder(&power9)
            .threads(12)
            .pin(Pin::Cores)
            .build(),
        Err(Error::NotEnoughCpus { .. })
    ));
}

/// A distributed pool on the EPYC fixture: 8 colocations, 2 threads each
/// (16 threads on this 2-core machine; binding is faked).
fn epyc_pool() -> DistributedPool {
    DistributedPool::builder(&fixture(EPYC))
        .threads(16)
        .pin(Pin::Cores)
        .build()
        .unwrap()
}

#[test]
fn a_distributed_pool_runs_every_thread_with_its_colocation() {
    let pool = epyc_pool();
    assert_eq!(pool.threads(), 16);
    assert_eq!(pool.colocations(), 8);
    let seen: Vec<AtomicUsize> = (0..16).map(|_| AtomicUsize::new(usize::MAX)).collect();
    for _ in 0..50 {
        pool.for_threads(|thread, colocation| {
            seen[thread].store(colocation, Ordering::Relaxed);
        });
    }
    for (thread, colocation) in seen.iter().enumerate() {
        assert_eq!(colocation.load(Ordering::Relaxed), thread / 2);
        assert_eq!(pool.colocation_of(thread), Some(thread / 2));
    }
    assert_eq!(pool.thread_range(3), 6..8);
    // Parked workers on every node come back for the next call.
    pool.sleep(0);
    std::thread::sleep(Duration::from_millis(5));
    let woke = AtomicUsize::new(0);
    pool.for_threads(|_, _| {
        woke.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(woke.into_inner(), 16);
    // Every thread of the spread fork reports the whole pool's size.
    pool.for_threads(|thread, _| {
        seen[thread].store(tine::current_num_threads(), Ordering::Relaxed)
    });
    assert!(seen.iter().all(|size| size.load(Ordering::Relaxed) == 16));
    assert_eq!(pool.threads_in(3), 2);
    assert_eq!(pool.threads_in(8), 0);
}

#[test]
fn static_work_is_split_by_colocation_and_dynamic_work_covers_every_task_once() {
    let pool = epyc_pool();
    for n in [0, 1, 7, 16, 17, 1000, 10_007] {
        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        pool.for_n(n, |prong| {
            let block = pool.colocation_range(n, prong.colocation_index);
            assert!(
                block.contains(&prong.task_index),
                "static task off its node"
            );
            hits[prong.task_index].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "n={n}");

        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let stolen = AtomicUsize::new(0);
        pool.for_n_dynamic(n, |prong| {
            if !pool
                .colocation_range(n, prong.colocation_index)
                .contains(&prong.task_index)
            {
                stolen.fetch_add(1, Ordering::Relaxed);
            }
            // Uneven: the first colocation's tasks are slow, so the others
            // finish early and steal.
            if prong.task_index < n / 8 {
                std::thread::sleep(Duration::from_micros(20));
            }
            hits[prong.task_index].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "n={n}");
        if n == 10_007 {
            // With colocation 0's block slow, others must have stolen some.
            assert!(stolen.load(Ordering::Relaxed) > 0, "no stealing happened");
        }
    }
    // Blocks are in proportion to threads: 2 of 16 threads each, so 1/8.
    assert_eq!(pool.colocation_range(1600, 5), 1000..1200);
}

#[test]
fn the_callers_share_runs_while_the_remote_nodes_do() {
    // Thread 0 and the last colocation's threads wait for each other: this
    // would never finish if the caller's share ran after the remote nodes'.
    let pool = epyc_pool();
    let caller_started = AtomicBool::new(false);
    let remote_started = AtomicBool::new(false);
    let deadline = Instant::now() + Duration::from_secs(20);
    pool.for_threads(|thread, colocation| {
        if thread == 0 {
            caller_started.store(true, Ordering::Release); // pairs with the load below
            while !remote_started.load(Ordering::Acquire) {
                // pairs with the remote store
                assert!(Instant::now() < deadline, "remote share never overlapped");
                std::thread::yield_now();
            }
        } else if colocation == 7 {
            remote_started.store(true, Ordering::Release); // pairs with the caller's load
            while !caller_started.load(Ordering::Acquire) {
                // pairs with the caller's store
                assert!(Instant::now() < deadline, "caller's share never overlapped");
                std::thread::yield_now();
            }
        }
    });
}

#[test]
fn a_panic_on_a_remote_node_reaches_the_caller_and_the_pool_stays_usable() {
    let pool = epyc_pool();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.for_threads(|thread, _| {
            if thread == 13 || thread == 5 {
                panic!("boom {thread}");
            }
        })
    }));
    let payload = result.expect_err("the panic must propagate");
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(message == "boom 13" || message == "boom 5", "{message}");
    let count = AtomicUsize::new(0);
    pool.for_n_dynamic(1000, |_| {
        count.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), 1000);
}

#[test]
fn a_call_from_inside_a_task_runs_inline_without_deadlock() {
    let pool = epyc_pool();
    let inner = AtomicUsize::new(0);
    pool.for_threads(|thread, _| {
        if thread == 9 {
            pool.for_n_dynamic(100, |_| {
                inner.fetch_add(1, Ordering::Relaxed);
            });
            pool.for_threads(|_, _| {
                inner.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(inner.into_inner(), 100 + 16);
}

#[test]
fn concurrent_callers_are_serialized() {
    // Every share counts itself in and out: if two callers' forks ever
    // overlapped, more shares than the pool has threads would be inside.
    // A wait long enough that no caller gives up and runs inline.
    let pool = DistributedPool::builder(&fixture(EPYC))
        .threads(16)
        .pin(Pin::Cores)
        .busy_wait(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let inside = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for _ in 0..100 {
                    pool.for_threads(|_, _| {
                        let now = inside.fetch_add(1, Ordering::Relaxed) + 1;
                        most.fetch_max(now, Ordering::Relaxed);
                        std::hint::spin_loop();
                        inside.fetch_sub(1, Ordering::Relaxed);
                    });
                }
            });
        }
    });
    let most = most.into_inner();
    assert!(most <= pool.threads(), "{most} shares inside at once");
}

#[test]
fn a_panic_in_the_callers_share_waits_for_the_remote_shares() {
    // The remote shares read the caller's stack after the caller's share
    // has panicked; the fork must join them before unwinding on.
    let pool = epyc_pool();
    for _ in 0..20 {
        let on_stack = [7u64; 64];
        let finished = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.for_threads(|thread, _| {
                if thread == 0 {
                    panic!("caller");
                }
                std::thread::sleep(Duration::from_micros(200));
                assert_eq!(on_stack.iter().sum::<u64>(), 7 * 64);
                finished.fetch_add(1, Ordering::Relaxed);
            })
        }));
        assert!(result.is_err());
        assert_eq!(finished.load(Ordering::Relaxed), pool.threads() - 1);
    }
}

#[test]
fn a_dynamic_call_nested_in_a_dynamic_call_leaves_the_outer_one_whole() {
    let pool = epyc_pool();
    let outer: Vec<AtomicUsize> = (0..500).map(|_| AtomicUsize::new(0)).collect();
    let inner = AtomicUsize::new(0);
    pool.for_n_dynamic(outer.len(), |prong| {
        if prong.task_index % 50 == 0 {
            pool.for_n_dynamic(30, |_| {
                inner.fetch_add(1, Ordering::Relaxed);
            });
        }
        outer[prong.task_index].fetch_add(1, Ordering::Relaxed);
    });
    assert!(outer.iter().all(|hits| hits.load(Ordering::Relaxed) == 1));
    assert_eq!(inner.into_inner(), 10 * 30);
}

#[test]
fn synthetic_topologies_plan_like_real_ones() {
    let topology = Topology::from_synthetic("pack:4 numa:1 core:3 pu:2").unwrap();
    assert_eq!(topology.colocations().len(), 4);
    assert_eq!(topology.cores(), 12);
    let pool = DistributedPool::builder(&topology)
        .threads(6)
        .pin(Pin::HardwareThreads)
        .build()
        .unwrap();
    let sizes: Vec<usize> = (0..4).map(|c| pool.threads_in(c)).collect();
    assert_eq!(sizes, [2, 2, 1, 1]);
    assert!(Topology::from_synthetic("not a topology").is_err());
    assert!(Topology::from_xml_file("/nonexistent.xml").is_err());
}

#[test]
fn memory_is_never_bound_through_a_faked_topology() {
    let topology = fixture(WESTMERE);
    let refused = PinnedVec::<u64>::new(&topology, 0);
    assert!(matches!(refused, Err(Error::Hwloc { .. })));
}
