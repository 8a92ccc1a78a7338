//! The processes this one starts (the probe's peers, `watch`'s server) never outlive it: each
//! is killed by the kernel when its starting thread dies, a SIGKILL included
//! ([`die_with_parent`], Linux's parent-death signal), and the probe's peers, each in a process
//! group of its own that a terminal's Ctrl-C never reaches, are killed, whole groups, when the
//! probe is interrupted or terminated ([`Groups`]).

use std::process::Command;
use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

/// Has the kernel kill the child with SIGKILL when the thread that starts it dies, however it
/// dies; a child whose parent died before this took effect exits at once.
pub fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is async-signal-safe; it runs before the fork.
    let parent = unsafe { libc::getpid() };
    // SAFETY: prctl, getppid and _exit are async-signal-safe and touch no memory of the
    // parent's.
    unsafe {
        cmd.pre_exec(move || {
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// How many process groups can be live at once (`--jobs` peers, each with its server).
const SLOTS: usize = 256;

/// The process groups of the live peers, read by the signal handler (0: a free slot).
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

static INSTALL: Once = Once::new();

/// The process groups to kill when this process is interrupted (SIGINT, SIGTERM, SIGHUP).
pub struct Groups;

impl Groups {
    /// Registers process group `pgid`, to be killed if this process is interrupted before
    /// [`Groups::release`]; installs the handler the first time. `None` when every slot is
    /// taken (the group is then killed only on the way out as usual).
    pub fn hold(pgid: u32) -> Option<usize> {
        INSTALL.call_once(install);
        let pgid = i32::try_from(pgid).ok().filter(|&p| p > 0)?;
        GROUPS.iter().position(|g| {
            g.compare_exchange(0, pgid, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Forgets the group of `slot` (it was killed and reaped).
    pub fn release(slot: usize) {
        if let Some(g) = GROUPS.get(slot) {
            g.store(0, Ordering::Release);
        }
    }
}

extern "C" fn kill_groups_and_die(sig: libc::c_int) {
    for g in &GROUPS {
        let pgid = g.load(Ordering::Acquire);
        if pgid > 0 {
            // SAFETY: kill(2) is async-signal-safe and touches no memory of ours.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    // Then die of the signal, as without the handler.
    // SAFETY: signal(2) and raise(3) are async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only loads atomics and calls kill, signal and raise, all
        // async-signal-safe.
        unsafe {
            libc::signal(
                sig,
                kill_groups_and_die as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}
