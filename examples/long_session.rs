//! Writes a synthetic long LSP session (see `cancelcheck::audit::synthetic`) to a file, for
//! measuring `cancelcheck audit` on it:
//!
//! ```text
//! cargo run --release --example long_session -- PAIRS CANCEL_EVERY FILE
//! /usr/bin/time -v target/release/cancelcheck audit --dialect lsp FILE
//! ```

use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pairs, every, file] = args.as_slice() else {
        eprintln!("usage: long_session PAIRS CANCEL_EVERY FILE");
        std::process::exit(2);
    };
    let (Ok(pairs), Ok(every)) = (pairs.parse::<u64>(), every.parse::<u64>()) else {
        eprintln!("PAIRS and CANCEL_EVERY are whole numbers");
        std::process::exit(2);
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(file)?);
    for line in cancelcheck::audit::synthetic::lsp_session(pairs, every) {
        writeln!(out, "{line}")?;
    }
    out.flush()
}
