//! Helpers the command-line test binaries share: running the built binary, scratch folders,
//! reading its output. (Each test binary compiles this module; not every one uses all of it.)
#![allow(dead_code)]

pub mod recipes;
pub mod xml;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built binary with `args`.
pub fn cancelcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Bytes as text, lossily.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh, empty directory for one test, removed when the test passes (kept for a look when
/// it fails).
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh folder named for the test binary and `name`.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "cancelcheck-{}-{}-{name}",
            env!("CARGO_CRATE_NAME"),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Stdout as JSON (panics, showing it, when it is not).
pub fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", text(&o.stdout)))
}

/// The `dialects` of an exported document (`vectors --json`, `clauses --json`), checked to be
/// every dialect, once each, in `Dialect::ALL`'s order.
pub fn every_dialect_in_order(doc: &Value) -> &Vec<Value> {
    let dialects = doc["dialects"].as_array().expect("dialects");
    let ids: Vec<&str> = dialects
        .iter()
        .map(|d| d["dialect"].as_str().unwrap_or_default())
        .collect();
    let all: Vec<&str> = cancelcheck_model::Dialect::ALL
        .iter()
        .map(|d| d.id())
        .collect();
    assert_eq!(ids, all);
    dialects
}

/// Whether process `pid` runs (neither gone nor a zombie only its reaper still holds).
pub fn alive(pid: i32) -> bool {
    // `PID (COMM) STATE ...`
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// The pid a process wrote to `file`, once it has; panics if `running` says the process that
/// starts it ended first.
pub fn pid_in(file: &Path, mut running: impl FnMut() -> bool) -> i32 {
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            return pid;
        }
        assert!(running(), "ended before {} was written", file.display());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Caps the address space of the process `cmd` starts at 256 MiB, the bound the README states
/// for a flood, so that one keeping what a peer floods aborts instead of taking the machine
/// down.
pub fn under_256_mib(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent's.
    unsafe {
        cmd.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 256 << 20,
                rlim_max: 256 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// The test peer's binary beside the command line's, built if this test run did not build it
/// (`cargo test -p cancelcheck` alone).
pub fn testpeer() -> PathBuf {
    let cli = Path::new(env!("CARGO_BIN_EXE_cancelcheck"));
    let peer = cli.with_file_name(format!(
        "cancelcheck-testpeer{}",
        std::env::consts::EXE_SUFFIX
    ));
    if !peer.exists() {
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "cancelcheck-testpeer",
                "--bin",
                "cancelcheck-testpeer",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the test peer failed");
    }
    peer
}
