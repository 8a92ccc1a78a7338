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

/// An empty scratch folder named `name` for this test binary (made by whoever writes to it),
/// under the folder cargo keeps for tests in its target directory: the traces a run saves stay
/// there for a look until the next run of the same test replaces them, and `cargo clean`
/// removes them, never filling the system's temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}
