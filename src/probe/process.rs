//! The peer as a child process: its stdin fed by a writer thread (so a peer that never reads
//! cannot block the probe), its stdout read by a reader thread into a bounded channel, its stderr
//! drained by a third (so a flood cannot block the peer, and only a bounded tail is kept).
//! Dropping a [`Peer`] kills the child (and its process group) if it still runs and always
//! reaps it.

use crate::children::Groups;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the reader thread saw on the peer's stdout.
pub enum Chunk {
    /// Bytes, as read.
    Bytes(Vec<u8>),
    /// The peer closed its stdout (or reading failed).
    Closed,
}

/// How many chunks of the peer's stdout (64 KiB each at most) wait for the probe to read
/// them before the reader stops reading (and the peer's writes block).
const STDOUT_CHUNKS: usize = 16;

/// How much of the peer's stderr is kept (the end of it).
const STDERR_TAIL: usize = 4096;

/// The peer's stderr: bytes seen in all, and the last few kept.
#[derive(Default)]
struct ErrTail {
    total: u64,
    tail: Vec<u8>,
}

/// A running peer.
pub struct Peer {
    /// Its process group's slot among those killed if the probe is interrupted.
    group: Option<usize>,
    child: Option<Child>,
    to_stdin: Option<Sender<Vec<u8>>>,
    from_stdout: Receiver<Chunk>,
    stderr: Arc<Mutex<ErrTail>>,
    threads: Vec<JoinHandle<()>>,
    /// How the child ended, once it did.
    pub status: Option<std::process::ExitStatus>,
    /// Whether the probe had to kill it.
    pub killed: bool,
    /// Whether its output stayed open after it and its group were gone (held by a process it
    /// started outside its group).
    pub held_open: bool,
}

impl Peer {
    /// Starts `program args...` with piped stdio.
    pub fn spawn(program: &str, args: &[String]) -> std::io::Result<Peer> {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(program);
        cmd.args(args)
            // Its own process group, so that killing it reaches whatever it started.
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::children::die_with_parent(&mut cmd);
        let mut child = cmd.spawn()?;
        let group = Groups::hold(child.id());
        let mut threads = Vec::new();
        let (tx_in, rx_in) = mpsc::channel::<Vec<u8>>();
        if let Some(mut stdin) = child.stdin.take() {
            threads.push(std::thread::spawn(move || {
                // Ends when the sender is dropped (stdin closed) or the peer stops reading
                // for good (a write fails once it is gone).
                while let Ok(bytes) = rx_in.recv() {
                    if stdin
                        .write_all(&bytes)
                        .and_then(|()| stdin.flush())
                        .is_err()
                    {
                        break;
                    }
                }
            }));
        }
        // Bounded: a peer that writes faster than the probe reads is held back by its pipe,
        // never buffered here without end.
        let (tx_out, rx_out) = mpsc::sync_channel(STDOUT_CHUNKS);
        if let Some(mut stdout) = child.stdout.take() {
            threads.push(std::thread::spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match stdout.read(&mut buf) {
                        Ok(0) | Err(_) => {
                            let _ = tx_out.send(Chunk::Closed);
                            return;
                        }
                        Ok(n) => {
                            if tx_out.send(Chunk::Bytes(buf[..n].to_vec())).is_err() {
                                return;
                            }
                        }
                    }
                }
            }));
        }
        let stderr = Arc::new(Mutex::new(ErrTail::default()));
        if let Some(mut err) = child.stderr.take() {
            let keep = stderr.clone();
            threads.push(std::thread::spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    let mut t = keep.lock().unwrap_or_else(|p| p.into_inner());
                    t.total += n as u64;
                    t.tail.extend_from_slice(&buf[..n]);
                    if t.tail.len() > STDERR_TAIL {
                        let cut = t.tail.len() - STDERR_TAIL;
                        t.tail.drain(..cut);
                    }
                }
            }));
        }
        Ok(Peer {
            group,
            child: Some(child),
            to_stdin: Some(tx_in),
            from_stdout: rx_out,
            stderr,
            threads,
            status: None,
            killed: false,
            held_open: false,
        })
    }

    /// Queues bytes for the peer's stdin (never blocks). False once stdin is closed.
    pub fn send(&self, bytes: Vec<u8>) -> bool {
        self.to_stdin
            .as_ref()
            .is_some_and(|tx| tx.send(bytes).is_ok())
    }

    /// Closes the peer's stdin (after what was queued is written).
    pub fn close_stdin(&mut self) {
        self.to_stdin = None;
    }

    /// Whether the probe closed the peer's stdin.
    pub fn stdin_closed(&self) -> bool {
        self.to_stdin.is_none()
    }

    /// The next chunk of stdout, waiting until `deadline` at most (`None`: nothing came).
    pub fn recv(&self, deadline: Instant) -> Option<Chunk> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.from_stdout.recv_timeout(wait) {
            Ok(c) => Some(c),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Chunk::Closed),
        }
    }

    /// Whether the child has exited (reaping it if so).
    pub fn exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(Some(s))) => {
                self.status = Some(s);
                true
            }
            Some(Ok(None)) => false,
            Some(Err(_)) | None => true,
        }
    }

    /// Waits for the child to exit until `deadline`, then kills it; always reaps it.
    pub fn finish(&mut self, deadline: Instant) {
        while !self.exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        let running = !self.exited();
        if let Some(c) = self.child.as_mut() {
            if let Ok(pid) = i32::try_from(c.id()) {
                // The whole group: the peer and anything it started that still holds a pipe
                // (harmless once they are gone).
                // SAFETY: kill(2) with a negative pid signals that process group; no memory
                // is touched.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            if running {
                let _ = c.kill();
                self.killed = true;
                if let Ok(s) = c.wait() {
                    self.status = Some(s);
                }
            }
        }
        if let Some(slot) = self.group.take() {
            Groups::release(slot);
        }
        self.to_stdin = None;
        // Nothing more is read: a reader blocked on a full channel ends with it.
        let (_, closed) = mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.from_stdout, closed));
        // With the child and its group gone their pipes close, so every thread ends; one
        // still reading after a moment reads a pipe a process outside the group holds (a
        // daemon the peer started): it is left to end with that pipe.
        let until = Instant::now() + Duration::from_millis(200);
        for t in self.threads.drain(..) {
            while !t.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                self.held_open = true;
            }
        }
    }

    /// Bytes the peer wrote to stderr in all, and the last ones (lossy UTF-8).
    pub fn stderr(&self) -> (u64, String) {
        let t = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        (t.total, String::from_utf8_lossy(&t.tail).into_owned())
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.finish(Instant::now());
    }
}

/// How a peer's session ended.
#[derive(Clone, Debug)]
pub struct PeerEnd {
    /// Its exit status, as text (`exit status: 0`, `signal: 9 (SIGKILL)`).
    pub status: Option<String>,
    /// Whether the probe killed it.
    pub killed: bool,
    /// Bytes it wrote to stderr.
    pub stderr_bytes: u64,
    /// The last of them.
    pub stderr_tail: String,
    /// The session's wall-clock time.
    pub elapsed: Duration,
    /// The part of it spent waiting for the peer.
    pub waited: Duration,
}

impl PeerEnd {
    /// The end of a session no process of the probe's ran: a peer that could not be started,
    /// or a recorded session (audit): no status, nothing killed, nothing on stderr, no time.
    pub fn no_process() -> PeerEnd {
        PeerEnd {
            status: None,
            killed: false,
            stderr_bytes: 0,
            stderr_tail: String::new(),
            elapsed: Duration::ZERO,
            waited: Duration::ZERO,
        }
    }
}
