//! The processes this one starts (the probe's peers, `watch`'s server) never outlive it: each
//! is killed by the kernel when its starting thread dies, a SIGKILL included
//! ([`die_with_parent`], Linux's parent-death signal), and the probe's peers, each in a process
//! group of its own that a terminal's Ctrl-C never reaches, are killed, whole groups, when the
//! probe is interrupted or terminated ([`Groups`]), and when it is killed (SIGKILL), by a
//! warden process that outlives it by a moment: what a peer started in its group goes too.

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

/// How many process groups can be live at once (`--jobs` peers, each with its server): the
/// most `--jobs` the probe takes, so that every peer's group is held.
pub const SLOTS: usize = 256;

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
        let slot = GROUPS.iter().position(|g| {
            g.compare_exchange(0, pgid, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        tell_warden(pgid);
        Some(slot)
    }

    /// Forgets the group of `slot` (it was killed and reaped).
    pub fn release(slot: usize) {
        if let Some(g) = GROUPS.get(slot) {
            let pgid = g.swap(0, Ordering::AcqRel);
            if pgid > 0 {
                tell_warden(-pgid);
            }
        }
    }
}

/// The write end of the warden's pipe; -1 when there is no warden.
static WARDEN: AtomicI32 = AtomicI32::new(-1);

/// Tells the warden a group to kill should this process die (`pgid` > 0) or one it need no
/// longer kill (-`pgid`): four bytes, which a pipe writes whole.
fn tell_warden(message: i32) {
    let fd = WARDEN.load(Ordering::Acquire);
    if fd >= 0 {
        let bytes = message.to_ne_bytes();
        // SAFETY: write(2) from a live buffer of 4 bytes. A warden gone (EPIPE; SIGPIPE is
        // ignored in Rust programs) changes nothing here.
        unsafe {
            libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        }
    }
}

/// Starts the warden: a forked process that holds the read end of a pipe only this process
/// writes to (close-on-exec, so no peer inherits it). The pipe's end of file is this process's
/// death, however it died; the warden then kills every group it was told of and not told to
/// forget, and exits. Without a warden (no pipe or no fork) a SIGKILL still kills each peer
/// itself ([`die_with_parent`]).
fn start_warden() {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let [read, write] = fds;
    // SAFETY: the child runs only `warden`, which calls async-signal-safe functions alone
    // (this process may have other threads) and never returns.
    match unsafe { libc::fork() } {
        0 => unsafe { warden(read, write) },
        -1 => unsafe {
            libc::close(read);
            libc::close(write);
        },
        _ => {
            // SAFETY: the read end is the warden's alone.
            unsafe { libc::close(read) };
            WARDEN.store(write, Ordering::Release);
        }
    }
}

/// The warden's life (see [`start_warden`]): it holds no descriptor of its parent's but its
/// pipe (a peer's pipe held here would never close), ignores the signals a terminal or a
/// supervisor sends the parent's group, and reads until the pipe's end.
///
/// # Safety
/// Only in the child of a fork: it uses its own stack and async-signal-safe calls alone.
unsafe fn warden(read: libc::c_int, write: libc::c_int) -> ! {
    const PIPE: libc::c_int = 3;
    unsafe {
        libc::close(write);
        // Out of the way of 0..=3 before they are reassigned.
        let high = libc::fcntl(read, libc::F_DUPFD, 10);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            if null >= 0 {
                libc::dup2(null, fd);
            }
        }
        if high < 0 || libc::dup2(high, PIPE) != PIPE {
            libc::_exit(1);
        }
        if libc::syscall(libc::SYS_close_range, PIPE + 1, libc::c_uint::MAX, 0) != 0 {
            for fd in PIPE + 1..4096 {
                libc::close(fd);
            }
        }
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut held = [0i32; SLOTS];
        let mut buf = [0u8; 4];
        loop {
            let n = libc::read(PIPE, buf.as_mut_ptr().cast(), buf.len());
            if n == 4 {
                let message = i32::from_ne_bytes(buf);
                let (find, put) = if message > 0 {
                    (0, message)
                } else {
                    (message.wrapping_neg(), 0)
                };
                if let Some(slot) = held.iter_mut().find(|g| **g == find) {
                    *slot = put;
                }
            } else if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            } else {
                break;
            }
        }
        for &pgid in &held {
            if pgid > 0 {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        libc::_exit(0)
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
    start_warden();
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
