//! `cancelcheck vectors`: the clause vectors, for people, as one JSON document, or as files.

use super::names::DIALECT;
use super::{ExitCode, pretty, print_out};
use cancelcheck::vectors;
use cancelcheck_model::Dialect;
use std::path::PathBuf;

/// `vectors`' flags.
#[derive(clap::Args)]
pub struct VectorsArgs {
    /// Only this dialect's vectors (default: every dialect).
    #[arg(long, value_parser = DIALECT)]
    dialect: Option<Dialect>,
    /// One JSON document on stdout.
    #[arg(long, conflicts_with = "out")]
    json: bool,
    /// Write one JSON document per dialect, DIR/<dialect>.json (an existing file that
    /// differs is never overwritten).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `vectors`.
pub fn cmd(args: VectorsArgs) -> anyhow::Result<ExitCode> {
    let files = vectors::load(args.dialect)?;
    if let Some(dir) = &args.out {
        match vectors::write_dir(dir, &files) {
            Ok(written) => {
                for w in written {
                    let what = if w.unchanged { "unchanged" } else { "wrote" };
                    println!("{what} {}", w.path.display());
                }
            }
            // Output that could not be written (a full disk): exit 3, as the README says.
            Err(e) if e.io => {
                super::out::stderr(&format!("cancelcheck: vectors NOT WRITTEN: {e}\n"));
                return Ok(ExitCode(3));
            }
            Err(e) => return Err(e.into()),
        }
    } else if args.json {
        print_out(pretty(&vectors::document(&files)));
    } else {
        print_out(vectors::text(&files));
    }
    Ok(ExitCode::SUCCESS)
}
