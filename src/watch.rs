//! `cancelcheck watch`: a transparent stdio proxy that judges a live session.
//!
//! It starts the server (`-- COMMAND ARGS`), passes every byte from its own stdin to the
//! server's and from the server's stdout to its own, unchanged and in order, as soon as it is
//! read; the server's stderr is the server's. The thread forwarding each direction splits
//! what it reads into frames ([`FrameReader`]) and, before passing the bytes on, writes each
//! whole frame through to the JSONL transcript (`--log`, read back by `cancelcheck audit`) and
//! tells it to the judge, on a thread of its own ([`Judging`]). When the server's stdout closes
//! and it has exited, the verdict is written to `LOG.verdict` (text, or the `--json`
//! document, replaced whole) and `watch` exits as the server did.
//!
//! The order of the transcript is what the proxy saw: every message is recorded before it is
//! passed on, so the server cannot have answered a message recorded after its answer, and a
//! `watch` killed at any moment has recorded every message it forwarded. What the client had
//! read is not in this record ([`Vantage::Between`]).

use crate::audit::transcript::{Format, Writer, jsonl_closed_line, jsonl_line};
use crate::audit::{self, Scan, Summary};
use crate::probe::judge::{Dir, Judging, Record, Vantage};
use crate::probe::tools::shell_word;
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{Frame, FrameReader, Framing};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The options of `cancelcheck watch`.
#[derive(clap::Args, Debug, Clone)]
pub struct WatchArgs {
    /// The dialect the session speaks: acp, acp-rfd, mcp-2025-11-25, mcp-2026-07-28 or lsp.
    #[arg(long)]
    pub dialect: String,
    /// ndjson (default) or content-length (default for lsp).
    #[arg(long)]
    pub framing: Option<String>,
    /// The method of the requests judged (default: the dialect's usual work request; ACP
    /// `session/prompt`).
    #[arg(long)]
    pub method: Option<String>,
    /// Where the transcript is written (JSONL); the verdict goes beside it, in `LOG.verdict`.
    #[arg(long, default_value = "cancelcheck-watch.jsonl")]
    pub log: PathBuf,
    /// The largest message judged, in bytes (larger ones are forwarded all the same).
    #[arg(long, default_value_t = 16 << 20)]
    pub max_frame: usize,
    /// A lower bound, in ms, on how long a judged request takes when nothing cancels it (see
    /// `cancelcheck audit --min-work-ms`): decides an error answer that came after a cancel
    /// but before the server was shown to have read it.
    #[arg(long, value_name = "MS")]
    pub min_work_ms: Option<u64>,
    /// Write the verdict as the `--json` document.
    #[arg(long)]
    pub json: bool,
    /// The server's command line.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// What the forwarding threads tell the judge, in the order the log holds it.
enum Event {
    /// A whole message, the client's (`true`) or the server's, at microseconds since start.
    Message(bool, u64, Frame),
    /// Bytes of one direction that are not a frame (client's `true`): what was wrong.
    Unframed(bool, String),
    /// One direction's stream ended (the client's `true`), at microseconds since start.
    Closed(bool, u64),
}

/// The log and the judge's channel, taken together: a message is written to the log and
/// told to the judge under one lock, so the judge reads the messages in the log's order.
struct Tap {
    log: Log,
    tx: mpsc::Sender<Event>,
}

/// How often `watch` looks whether the server exited while its output stays open.
const EXIT_POLL: Duration = Duration::from_millis(100);

/// How long the server's output may stay open after the server exited (held by a process it
/// started, such as a daemon) before the session is taken to have ended with the server.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// The server's pid, for the signal handler.
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward_signal(sig: libc::c_int) {
    let pid = CHILD.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe and touches no memory of ours.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Passes the signals a supervisor or a terminal sends `watch` on to the server.
fn forward_signals(pid: u32) {
    CHILD.store(i32::try_from(pid).unwrap_or(0), Ordering::Relaxed);
    for sig in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ] {
        // SAFETY: the handler only loads an atomic and calls kill(2), both async-signal-safe.
        unsafe {
            libc::signal(
                sig,
                forward_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Gives the recording and judging thread (this one) a lower scheduling priority than the
/// forwarding threads, so that judging never holds a message back on a busy machine.
fn lower_priority() {
    // SAFETY: gettid(2) and setpriority(2) on this thread only; they touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid);
        if let Ok(tid) = libc::id_t::try_from(tid) {
            libc::setpriority(libc::PRIO_PROCESS, tid, 10);
        }
    }
}

fn micros(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Copies `from` to `to` a read at a time. Each read is split into frames, and every whole
/// frame in it is written to the log and told to the judge *before* the read is passed on: a
/// message is on disk before the other party can have it, so a `watch` killed at any moment
/// has logged every message it forwarded, and the server cannot have answered a message the
/// log holds after its answer.
fn pump(
    mut from: impl Read,
    mut to: impl Write,
    client: bool,
    start: Instant,
    mut frames: FrameReader,
    tap: &Mutex<Tap>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut passing = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let t = micros(start);
        frames.push(&buf[..n]);
        if let Some(first) = frames.next_frame() {
            let mut tap = tap
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut next = Some(first);
            while let Some(frame) = next {
                let ev = match frame {
                    Ok(f) => {
                        tap.log.line(&jsonl_line(client, t, &f.body));
                        Event::Message(client, t, f)
                    }
                    Err(e) => Event::Unframed(client, e.to_string()),
                };
                let _ = tap.tx.send(ev);
                next = frames.next_frame();
            }
        }
        if passing && to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            // The reader went away; keep reading so the writer is never blocked by it.
            passing = false;
        }
    }
    let t = micros(start);
    {
        let mut tap = tap
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The end of either party's output is logged, so that the log's audit decides what
        // this watch decides: the server's ends the session, unless the client's came first.
        // Logged before the other party can learn of it (its input closed below).
        tap.log.line(&jsonl_closed_line(client, t));
        let _ = tap.tx.send(Event::Closed(client, t));
    }
    drop(to);
}

/// Writes transcript lines, saying once on stderr if the log cannot be written. Each line is
/// written through to the file as its message is forwarded (one `write` of the whole line,
/// never held in a buffer of the process), so a `watch` killed at any moment leaves every
/// message it forwarded on disk, with at most its last line cut short.
struct Log {
    file: Option<std::fs::File>,
    path: PathBuf,
    line: Vec<u8>,
}

impl Log {
    fn open(path: PathBuf) -> Log {
        let file = match std::fs::File::create(&path) {
            Ok(f) => Some(f),
            Err(e) => {
                Log::failed(&path, &e);
                None
            }
        };
        Log {
            file,
            path,
            line: Vec::new(),
        }
    }

    fn failed(path: &std::path::Path, e: &std::io::Error) {
        // Said once: the line is dropped after the first failure.
        let _ = writeln!(
            std::io::stderr(),
            "cancelcheck watch: cannot write the transcript {}: {e}; the session goes on, unrecorded",
            path.display()
        );
    }

    fn line(&mut self, line: &str) {
        self.line.clear();
        self.line.extend_from_slice(line.as_bytes());
        self.line.push(b'\n');
        if let Some(f) = &mut self.file
            && let Err(e) = f.write_all(&self.line)
        {
            Log::failed(&self.path, &e);
            self.file = None;
        }
    }

    fn finish(&mut self) -> bool {
        match self.file.take().map(|mut f| f.flush()) {
            Some(Ok(())) => true,
            Some(Err(e)) => {
                Log::failed(&self.path, &e);
                false
            }
            None => false,
        }
    }
}

/// The exit code that passes the server's status through: its code, or 128 + the signal that
/// ended it.
fn passed_through(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c & 0xff).unwrap_or(1),
        (None, Some(s)) => u8::try_from((128 + s) & 0xff).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Runs the proxy until the server has exited and its stdout closed; returns the exit code to
/// pass through. A server that cannot be started is an error (exit 2).
pub fn run(args: WatchArgs) -> anyhow::Result<u8> {
    let dialect = crate::probe::json_rpc_dialect(&args.dialect, "watch")?;
    let framing = match args.framing.as_deref() {
        None => cancelcheck_wire::shapes::of(dialect).default_framing(),
        Some(f) => Framing::from_name(f).ok_or_else(|| {
            anyhow::anyhow!("--framing: expected ndjson or content-length, found {f:?}")
        })?,
    };
    let mut ctx = Context::new(dialect);
    ctx.work_method = Scan::default().method(dialect, args.method.as_deref());
    let start = Instant::now();
    let mut cmd = Command::new(&args.command[0]);
    cmd.args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Killed with `watch`, however it dies (a SIGKILL included).
    crate::children::die_with_parent(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| {
        anyhow::anyhow!(
            "cannot start {:?}: {e} (give the server's command after `--`)",
            args.command[0]
        )
    })?;
    forward_signals(child.id());
    let (tx, rx) = mpsc::channel();
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the server's stdin and stdout could not be opened");
    };
    let tap = Arc::new(Mutex::new(Tap {
        log: Log::open(args.log.clone()),
        tx,
    }));
    {
        let tap = Arc::clone(&tap);
        let frames = FrameReader::new(framing, args.max_frame);
        // Not joined: it may wait on a stdin the client never closes.
        std::thread::spawn(move || pump(std::io::stdin(), to_server, true, start, frames, &tap));
    }
    let down = {
        let tap = Arc::clone(&tap);
        let frames = FrameReader::new(framing, args.max_frame);
        std::thread::spawn(move || pump(from_server, std::io::stdout(), false, start, frames, &tap))
    };

    lower_priority();
    let mut judging = Judging::bounded(&ctx, Some(Vantage::Between));
    if let Some(ms) = args.min_work_ms {
        judging.push(&crate::probe::judge::min_work_record(ms));
    }
    let mut scan = Scan::default();
    let mut messages = 0u64;
    let mut unframed = Vec::new();
    // Until the server's stdout closes (the client's stdin may stay open), or the server has
    // exited and its output stays open a while longer, held by a process it started.
    let mut exited: Option<Instant> = None;
    let mut held_open = false;
    loop {
        let ev = match rx.recv_timeout(EXIT_POLL) {
            Ok(ev) => ev,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if exited.is_none() && matches!(child.try_wait(), Ok(Some(_))) {
                    exited = Some(Instant::now());
                }
                if exited.is_some_and(|at| at.elapsed() >= EXIT_GRACE) {
                    // The session ended with the server; what holds its output is not it.
                    let t = micros(start);
                    tap.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .log
                        .line(&jsonl_closed_line(false, t));
                    judging.push(&Record {
                        t_us: t,
                        dir: Dir::Note,
                        offset: 0,
                        text: crate::probe::judge::output_closed(false),
                        stream: None,
                    });
                    held_open = true;
                    break;
                }
                continue;
            }
        };
        let (client, t, f) = match ev {
            Event::Message(c, t, f) => (c, t, f),
            Event::Unframed(c, e) => {
                unframed.push(format!("{}: {e}", if c { "client" } else { "server" }));
                continue;
            }
            Event::Closed(client, t) => {
                judging.push(&Record {
                    t_us: t,
                    dir: Dir::Note,
                    offset: 0,
                    text: crate::probe::judge::output_closed(client),
                    stream: None,
                });
                if client {
                    continue;
                }
                break;
            }
        };
        let text = String::from_utf8_lossy(&f.body).into_owned();
        let writer = if client {
            Writer::Client
        } else {
            Writer::Server
        };
        scan.push(dialect, writer, &text);
        judging.push(&Record {
            t_us: t,
            dir: if client { Dir::Sent } else { Dir::Received },
            offset: f.offset,
            text,
            stream: None,
        });
        messages += 1;
    }
    if !held_open {
        let _ = down.join();
    }
    let status = child.wait()?;
    let logged = tap
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .log
        .finish();
    let summary = Summary {
        command: "watch",
        file: args.log.display().to_string(),
        format: Format::Jsonl,
        vantage: Vantage::Between,
        client_is_recorder: true,
        lines: messages,
        messages,
        skipped: 0,
        truncated: None,
        not_judged: scan.not_judged(dialect, &ctx.work_method),
        method: ctx.work_method.clone(),
    };
    let (mut report, _) = audit::render(
        dialect,
        &summary,
        audit::session_outcome(judging.finish()),
        args.json,
    );
    if !args.json {
        for u in &unframed {
            report.push_str(&format!("not framed ({}): {u}\n", framing.as_str()));
        }
        report.push_str(&format!("server: {status}\n"));
        if held_open {
            report.push_str("server's output: still open 1 s after it exited, held by a process it started; the session was taken to end with the server\n");
        }
    }
    keep_verdict(&args.log, logged.then_some(report.as_str()), &args.dialect);
    Ok(passed_through(status))
}

/// Whether nothing is at `path`, or a regular file that begins as a verdict `watch` writes
/// (its report's first line, `watch: `, or its `--json` document naming the scenario `audit`).
fn verdict_or_none(path: &Path) -> bool {
    use std::io::Read;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return true;
    };
    if !meta.is_file() {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(16 << 10).read_to_end(&mut head));
    let head = String::from_utf8_lossy(&head);
    read.is_ok()
        && (head.is_empty()
            || head.starts_with("watch: ")
            || (head.starts_with('{') && head.contains("\"name\": \"audit\"")))
}

/// Leaves beside `log` (in `LOG.verdict`) this session's verdict, or none. The log is
/// rewritten by every session (a client starts its server command with the same arguments
/// each time), and its verdict with it: written whole through [`crate::write::replace`], so a
/// reader sees the previous verdict or the new one, never part of one. Where there is no
/// verdict to write (the log could not be written) or it cannot be written, a previous
/// session's is removed, so that what lies beside a log is never another session's verdict.
/// A file there that is not a verdict `watch` wrote is never removed nor replaced: it is left
/// alone, said on stderr, and no verdict is written.
fn keep_verdict(log: &Path, report: Option<&str>, dialect: &str) {
    let mut path = log.as_os_str().to_owned();
    path.push(".verdict");
    let path = PathBuf::from(path);
    if !verdict_or_none(&path) {
        let _ = writeln!(
            std::io::stderr(),
            "cancelcheck watch: {} is not a verdict watch wrote: left alone, and this session's verdict is not written (`cancelcheck audit --dialect {dialect} {}` gives it; or name another log with --log)",
            path.display(),
            shell_word(&log.display().to_string())
        );
        return;
    }
    let Some(report) = report else {
        let _ = std::fs::remove_file(&path);
        return;
    };
    if let Err(e) = crate::write::replace(&path, report.as_bytes()) {
        let _ = std::fs::remove_file(&path);
        let _ = writeln!(
            std::io::stderr(),
            "cancelcheck watch: cannot write the verdict {}: {e}; none is left beside the log (`cancelcheck audit --dialect {dialect} {}` gives it)",
            path.display(),
            shell_word(&log.display().to_string())
        );
    }
}
