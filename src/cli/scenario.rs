//! `cancelcheck scenario`: the full scenario `run` would run, as the JSON file `--scenario`
//! takes, every field filled in.

use super::names::{BEHAVIOR, DIALECT};
use super::run::{apply_names, validate};
use super::{ExitCode, pretty, print_out};
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::Scenario;

/// `scenario`'s flags.
#[derive(clap::Args)]
pub struct ScenarioArgs {
    /// Protocol dialect (default: acp).
    #[arg(long, value_parser = DIALECT)]
    dialect: Option<Dialect>,
    /// Behavior under test (see `cancelcheck behaviors`; default: honour).
    #[arg(long, value_parser = BEHAVIOR)]
    behavior: Option<Behaviour>,
}

/// `scenario`: prints the default scenario (with the names given) as JSON.
pub fn cmd(args: ScenarioArgs) -> anyhow::Result<ExitCode> {
    let mut s = Scenario::default_for(Dialect::Acp);
    apply_names(&mut s, args.dialect, args.behavior);
    validate(&s)?;
    print_out(pretty(&s));
    Ok(ExitCode::SUCCESS)
}
