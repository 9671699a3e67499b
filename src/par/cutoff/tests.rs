//! The cutoff's rule, its trust and its override, on one thread's
//! remembered sites.

use super::{
    set_override, Cutoff, Decision, Override, FORK_WORTH_NS, QUIET_MARGIN, TRUST_CALLS_MIN,
    TRUST_NS,
};

/// Remembers `ps` per position for `key`, as a measuring call would.
fn seed(key: usize, ps: u64) {
    let mut cutoff = Cutoff::new(key, 1);
    // A measuring call would also remember its own clock when dropped.
    cutoff.quiet = false;
    cutoff.remember(ps);
}

#[test]
fn a_cheap_site_is_measured_whole_and_a_costly_one_is_probed() {
    // Keys of their own (their slots are theirs on this test thread).
    let (cheap, costly) = (0x1_0000, 0x2_0010);
    // 1 ns per position: 256 positions are far below the fork's worth.
    seed(cheap, 1_000);
    for _ in 0..Cutoff::trust_for(1_000, 1) {
        let trusted = Cutoff::new(cheap, 256);
        assert_eq!(trusted.decision(), Decision::Serial);
        assert!(trusted.started.is_none(), "a trusted call reads no clock");
    }
    let measured = Cutoff::new(cheap, 256);
    assert_eq!(measured.decision(), Decision::Serial);
    assert!(measured.quiet && measured.started.is_some());
    drop(measured); // remembers the rate, and trusts it again
    assert!(Cutoff::new(cheap, 256).started.is_none());

    // A site whose call would cost over an eighth of a fork's worth
    // (at its remembered rate) is probed block by block, as before.
    let ps = FORK_WORTH_NS * 1000 / QUIET_MARGIN / 256 + 1;
    seed(costly, ps);
    for _ in 0..Cutoff::trust_for(ps, 1) {
        drop(Cutoff::new(costly, 256));
    }
    let probed = Cutoff::new(costly, 256);
    assert_eq!(probed.decision(), Decision::Undecided);
    assert!(!probed.quiet);
}

#[test]
fn trust_covers_a_fixed_stretch_of_work_within_63_to_255_calls() {
    // Calls of 1 µs and more: 63; of 247 ns and less: 255; between,
    // about `TRUST_NS` of work, fewer calls as they grow.
    assert_eq!(Cutoff::trust_for(1_000, 1_000), TRUST_CALLS_MIN);
    assert_eq!(Cutoff::trust_for(u64::MAX, usize::MAX), TRUST_CALLS_MIN);
    assert_eq!(Cutoff::trust_for(1_000, 247), u8::MAX);
    assert_eq!(Cutoff::trust_for(0, 256), u8::MAX);
    assert_eq!(Cutoff::trust_for(1_000, 500), (TRUST_NS / 500) as u8);
    let mut last = u8::MAX;
    for positions in (1..2_000).step_by(7) {
        let calls = Cutoff::trust_for(1_000, positions);
        assert!((TRUST_CALLS_MIN..=u8::MAX).contains(&calls));
        assert!(calls <= last, "fewer calls for longer ones");
        last = calls;
    }
}

#[test]
fn the_trusted_compare_decides_as_the_rule() {
    for ps in [0, 1, 7, 999, 1_000, 15_625, 4_000_000, 4_000_001, u64::MAX] {
        let up_to = Cutoff::serial_up_to(ps);
        let edge = [up_to.saturating_sub(1), up_to, up_to.saturating_add(1)];
        for n in [0, 1, 2, 255, 256, 257, 4_000, 1 << 20, usize::MAX]
            .into_iter()
            .chain(edge)
        {
            assert_eq!(
                Cutoff::judge(ps, n) == Decision::Serial,
                n <= up_to,
                "{ps} ps per position, {n} positions"
            );
        }
    }
}

#[test]
fn a_trusted_site_spends_its_trust_and_an_override_clears_it() {
    let key = 0x3_0020;
    seed(key, 1_000);
    for _ in 0..Cutoff::trust_for(1_000, 1) {
        assert!(Cutoff::trusted_serial(key, 256));
    }
    assert!(!Cutoff::trusted_serial(key, 256), "the 256th call measures");
    seed(key, 1_000);
    assert!(!Cutoff::trusted_serial(key, 4_000), "a call worth a fork");
    assert!(!Cutoff::trusted_serial(key + 1, 256), "another site");
    assert!(Cutoff::trusted_serial(key, 256));
    let before = set_override(Override::AlwaysFork);
    assert!(!Cutoff::trusted_serial(key, 256), "an override is obeyed");
    assert_eq!(Cutoff::new(key, 256).decision(), Decision::Fork);
    set_override(before);

    // A call that began before the override and ends under it (its
    // closure set it) leaves no trusted site behind.
    let measuring = Cutoff::new(key, 256);
    let before = set_override(Override::AlwaysFork);
    measuring.remember(1_000);
    drop(measuring);
    assert!(
        !Cutoff::trusted_serial(key, 256),
        "the override still holds"
    );
    set_override(before);
}
