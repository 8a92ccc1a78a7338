//! `cancelcheck watch`: a transparent stdio proxy that judges a live session.
//!
//! It starts the server (`-- COMMAND ARGS`), passes every byte from its own stdin to the
//! server's and from the server's stdout to its own, unchanged and in order, as soon as it is
//! read; the server's stderr is the server's. Beside the forwarding, one thread splits each
//! direction into frames ([`FrameReader`]), writes each frame as a line of the JSONL transcript
//! (`--log`, read back by `cancelcheck audit`) and feeds it to the probe's judge as it goes
//! ([`Judging`]). When the server's stdout closes and it has exited, the verdict is written to
//! `LOG.verdict` (text, or the `--json` document) and `watch` exits as the server did.
//!
//! The order of the transcript is what the proxy saw: a message of the client's is recorded
//! before it is passed on, one of the server's once it is read, so the server cannot have
//! answered a message recorded after its answer. What the client had read is not in this
//! record ([`Vantage::Between`]).

use crate::audit::transcript::{Format, Writer, jsonl_line};
use crate::audit::{self, Scan, Summary};
use crate::probe::judge::{Dir, Judging, Record, Vantage};
use crate::probe::tools::shell_word;
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{FrameReader, Framing};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::Instant;

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
    /// Write the verdict as the `--json` document.
    #[arg(long)]
    pub json: bool,
    /// The server's command line.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// What the forwarding threads tell the recorder.
enum Event {
    /// Bytes that crossed, the client's (`true`) or the server's, at microseconds since start.
    Bytes(bool, u64, Vec<u8>),
    /// One direction's stream ended.
    Closed(bool),
}

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

/// Copies `from` to `to` a read at a time; with `record_first`, each read is told to the
/// recorder before it is passed on (the client's: the server cannot react to it before it is
/// recorded), else after.
fn pump(
    mut from: impl Read,
    mut to: impl Write,
    client: bool,
    start: Instant,
    tx: mpsc::Sender<Event>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut passing = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let told = Event::Bytes(client, micros(start), buf[..n].to_vec());
        let mut after = Some(told);
        if client {
            let _ = after.take().map(|e| tx.send(e));
        }
        if passing && to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            // The reader went away; keep reading so the writer is never blocked by it.
            passing = false;
        }
        if let Some(e) = after {
            let _ = tx.send(e);
        }
    }
    drop(to);
    let _ = tx.send(Event::Closed(client));
}

/// Writes transcript lines, saying once on stderr if the log cannot be written.
struct Log {
    file: Option<std::io::BufWriter<std::fs::File>>,
    path: PathBuf,
}

impl Log {
    fn open(path: PathBuf) -> Log {
        let file = match std::fs::File::create(&path) {
            Ok(f) => Some(std::io::BufWriter::new(f)),
            Err(e) => {
                Log::failed(&path, &e);
                None
            }
        };
        Log { file, path }
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
        if let Some(f) = &mut self.file
            && let Err(e) = writeln!(f, "{line}")
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
    let mut child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
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
    {
        let tx = tx.clone();
        // Not joined: it may wait on a stdin the client never closes.
        std::thread::spawn(move || pump(std::io::stdin(), to_server, true, start, tx));
    }
    let down = std::thread::spawn(move || pump(from_server, std::io::stdout(), false, start, tx));

    lower_priority();
    let mut log = Log::open(args.log.clone());
    let mut judging = Judging::new(&ctx, Some(Vantage::Between));
    let mut scan = Scan::default();
    let mut frames = [
        FrameReader::new(framing, args.max_frame),
        FrameReader::new(framing, args.max_frame),
    ];
    let mut messages = 0u64;
    let mut unframed = Vec::new();
    // Until the server's stdout closes (the client's stdin may stay open).
    while let Ok(ev) = rx.recv() {
        let (client, t, bytes) = match ev {
            Event::Bytes(c, t, b) => (c, t, b),
            Event::Closed(false) => break,
            Event::Closed(true) => continue,
        };
        let reader = &mut frames[usize::from(!client)];
        reader.push(&bytes);
        while let Some(frame) = reader.next_frame() {
            match frame {
                Ok(f) => {
                    let text = String::from_utf8_lossy(&f.body).into_owned();
                    log.line(&jsonl_line(client, t, &f.body));
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
                Err(e) => {
                    unframed.push(format!("{}: {e}", if client { "client" } else { "server" }))
                }
            }
        }
    }
    let _ = down.join();
    let status = child.wait()?;
    let logged = log.finish();
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
        not_judged: scan.not_judged(&ctx.work_method),
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
    }
    keep_verdict(&args.log, logged.then_some(report.as_str()), &args.dialect);
    Ok(passed_through(status))
}

/// Leaves beside `log` (in `LOG.verdict`) this session's verdict, or none. The log is
/// rewritten by every session (a client starts its server command with the same arguments
/// each time), and its verdict with it: written whole through [`crate::write::replace`], so a
/// reader sees the previous verdict or the new one, never part of one. Where there is no
/// verdict to write (the log could not be written) or it cannot be written, a previous
/// session's is removed, so that what lies beside a log is never another session's verdict.
fn keep_verdict(log: &Path, report: Option<&str>, dialect: &str) {
    let mut path = log.as_os_str().to_owned();
    path.push(".verdict");
    let path = PathBuf::from(path);
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
