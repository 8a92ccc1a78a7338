//! `--dialect` and `--behavior` as clap value parsers: `--help` lists every name, and a name
//! that does not exist gets the message every command and file reader gives
//! ([`cancelcheck::names`]).

use cancelcheck::names;
use cancelcheck_model::{Behaviour, Dialect};
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

/// Parses `--dialect`.
#[derive(Clone, Copy, Debug)]
pub struct DialectParser;

/// Parses `--behavior`.
#[derive(Clone, Copy, Debug)]
pub struct BehaviorParser;

/// The error clap prints (and exits 2 with): `--FLAG: unknown KIND ...`.
fn refuse(arg: Option<&clap::Arg>, msg: String) -> clap::Error {
    let flag = arg.map_or(String::new(), |a| {
        format!("--{}: ", a.get_long().unwrap_or_default())
    });
    clap::Error::raw(ErrorKind::InvalidValue, format!("{flag}{msg}\n"))
}

impl TypedValueParser for DialectParser {
    type Value = Dialect;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Dialect, clap::Error> {
        names::parse_dialect(&value.to_string_lossy()).map_err(|m| refuse(arg, m))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Dialect::ALL
                .into_iter()
                .map(|d| PossibleValue::new(d.id()).help(d.rules().title)),
        ))
    }
}

impl TypedValueParser for BehaviorParser {
    type Value = Behaviour;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Behaviour, clap::Error> {
        names::parse_behavior(&value.to_string_lossy()).map_err(|m| refuse(arg, m))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Behaviour::all().map(|b| {
            PossibleValue::new(b.name()).help(b.info().summary)
        })))
    }
}
