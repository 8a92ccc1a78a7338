//! `cancelcheck properties` and `cancelcheck behaviors`: the catalog and the behavior table.

use super::{ExitCode, emit};
use cancelcheck::export;

/// The one flag both take.
#[derive(clap::Args)]
pub struct JsonFlag {
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

/// `properties`.
pub fn properties(args: JsonFlag) -> anyhow::Result<ExitCode> {
    emit(&export::properties(), args.json);
    Ok(ExitCode::SUCCESS)
}

/// `behaviors`.
pub fn behaviors(args: JsonFlag) -> anyhow::Result<ExitCode> {
    emit(&export::behaviours(), args.json);
    Ok(ExitCode::SUCCESS)
}
