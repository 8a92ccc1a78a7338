//! `--dialect` and `--behavior` as clap value parsers: `--help` lists every name, and a name
//! that does not exist gets the message every command and file reader gives
//! ([`cancelcheck::names`]).

use cancelcheck::names;
use cancelcheck_model::{Behaviour, Dialect};
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

/// A value parser for a kind of name: how a name is parsed (the message for one that does
/// not exist included) and every name there is, with a line of help each.
#[derive(Clone, Copy)]
pub struct NameParser<T> {
    parse: fn(&str) -> Result<T, String>,
    names: fn() -> Vec<(&'static str, &'static str)>,
}

/// Parses `--dialect`.
pub const DIALECT: NameParser<Dialect> = NameParser {
    parse: names::parse_dialect,
    names: || {
        Dialect::ALL
            .iter()
            .map(|d| (d.id(), d.rules().title))
            .collect()
    },
};

/// Parses `--behavior`.
pub const BEHAVIOR: NameParser<Behaviour> = NameParser {
    parse: names::parse_behaviour,
    names: || {
        Behaviour::all()
            .map(|b| (b.name(), b.info().summary))
            .collect()
    },
};

impl<T: Clone + Send + Sync + 'static> TypedValueParser for NameParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        (self.parse)(&value.to_string_lossy()).map_err(|msg| {
            let flag = arg.map_or(String::new(), |a| {
                format!("--{}: ", a.get_long().unwrap_or_default())
            });
            clap::Error::raw(ErrorKind::InvalidValue, format!("{flag}{msg}\n"))
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            (self.names)()
                .into_iter()
                .map(|(name, help)| PossibleValue::new(name).help(help)),
        ))
    }
}

/// A name, or `all` of them (`explore`'s sweeps).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pick<T> {
    /// Every one that applies.
    All,
    /// This one.
    One(T),
}

impl<T: Copy> Pick<T> {
    /// The one named, `None` for `all`.
    pub fn one(self) -> Option<T> {
        match self {
            Pick::All => None,
            Pick::One(t) => Some(t),
        }
    }
}

/// The line of help `all` gets.
const ALL_HELP: &str = "every one (a sweep: one search each; --shard splits it)";

/// Parses `explore --dialect`: a dialect or `all`.
pub const DIALECT_OR_ALL: NameParser<Pick<Dialect>> = NameParser {
    parse: |s| match s {
        "all" => Ok(Pick::All),
        _ => names::parse_dialect(s)
            .map(Pick::One)
            .map_err(|e| format!("{e} (or all: a sweep)")),
    },
    names: || {
        let mut n = (DIALECT.names)();
        n.push(("all", ALL_HELP));
        n
    },
};

/// Parses `explore --behavior`: a behavior or `all` (those that apply to each dialect).
pub const BEHAVIOR_OR_ALL: NameParser<Pick<Behaviour>> = NameParser {
    parse: |s| match s {
        "all" => Ok(Pick::All),
        _ => names::parse_behaviour(s)
            .map(Pick::One)
            .map_err(|e| format!("{e} (or all: a sweep)")),
    },
    names: || {
        let mut n = (BEHAVIOR.names)();
        n.push(("all", ALL_HELP));
        n
    },
};
