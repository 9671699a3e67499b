//! A no_std embedder: it owns its worker threads (raw pthreads) and runs
//! tine's worker loop on them, as another runtime would.
#![no_std]
#![no_main]

use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: abort takes no arguments and never returns.
    unsafe { libc::abort() }
}

/// The prebuilt `core` is compiled with unwinding tables that name this
/// symbol; with `panic = "abort"` nothing ever calls it.
#[no_mangle]
extern "C" fn rust_eh_personality() {}

#[link(name = "c")]
extern "C" {}

extern "C" fn worker(team: *mut c_void) -> *mut c_void {
    // SAFETY: `main` passes a pointer to a Team it keeps alive until it has
    // joined this thread.
    let team = unsafe { &*(team as *const tine::Team) };
    match team.run_worker() {
        Ok(()) => core::ptr::null_mut(),
        Err(_) => 1 as *mut c_void,
    }
}

#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    const THREADS: usize = 3;
    let Ok(team) = tine::Team::new(THREADS) else {
        return 1;
    };
    let mut handles = [0 as libc::pthread_t; THREADS - 1];
    for handle in handles.iter_mut() {
        let team_ptr = &team as *const tine::Team as *mut c_void;
        // SAFETY: `handle` is a valid out-pointer, default attributes are
        // allowed (null), and `team` outlives the thread (joined below).
        if unsafe { libc::pthread_create(handle, core::ptr::null(), worker, team_ptr) } != 0 {
            return 2;
        }
    }
    let sum = AtomicUsize::new(0);
    for _ in 0..100 {
        team.for_n(1000, |prong| {
            sum.fetch_add(prong.task_index, Relaxed);
        });
        team.for_n_dynamic(1000, |prong| {
            sum.fetch_add(prong.task_index, Relaxed);
        });
    }
    team.stop();
    for handle in handles {
        let mut status = core::ptr::null_mut();
        // SAFETY: `handle` was created above and is joined once.
        if unsafe { libc::pthread_join(handle, &mut status) } != 0 || !status.is_null() {
            return 3;
        }
    }
    if sum.load(Relaxed) == 200 * 499_500 {
        0
    } else {
        4
    }
}
