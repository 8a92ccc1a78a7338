//! `cancelcheck scenario`: the full scenario `run` would run, as the JSON file `--scenario`
//! takes, every field filled in.

use super::names::{BEHAVIOR, DIALECT};
use super::run::validate;
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

/// `scenario`: prints the built-in scenario of the dialect and behaviour named (the one `run`
/// runs with the same names) as JSON; where it differs from the dialect's default so that the
/// behaviour's fault can act, stderr says how and why.
pub fn cmd(args: ScenarioArgs) -> anyhow::Result<ExitCode> {
    let (d, b) = (
        args.dialect.unwrap_or(Dialect::DEFAULT),
        args.behavior.unwrap_or(Behaviour::Honour),
    );
    let s = Scenario::built_in(d, b);
    validate(&s)?;
    if let Some((why, fix)) = Scenario::built_in_adjustment(d, b) {
        eprintln!(
            "cancelcheck scenario: {}",
            super::run::adjustment_line(fix, why, &s)
        );
    }
    print_out(pretty(&s));
    Ok(ExitCode::SUCCESS)
}
