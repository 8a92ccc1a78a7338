//! What the probe's tests against the test peer share: the probe's arguments parsed as the
//! command line parses them, and a scratch folder.

use cancelcheck::probe::ProbeArgs;
use clap::Parser;
use std::path::PathBuf;

/// `cancelcheck probe`'s arguments, a later flag overriding an earlier one.
#[derive(Parser)]
#[command(args_override_self = true)]
pub struct Cli {
    #[command(flatten)]
    pub args: ProbeArgs,
}

/// An empty scratch folder of this test process named `name` (made by whoever writes to it).
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cancelcheck-probe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
