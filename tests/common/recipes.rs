//! Running the recipes the repository ships (CI workflows, scripts) as their steps would.

use std::path::Path;
use std::process::{Command, Output};

/// The binary's folder, first on a `PATH` for scripts that call `cancelcheck`.
pub fn path_with_binary() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_cancelcheck"));
    format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs `script` with `sh` in `dir`, with `env`; returns its output.
pub fn sh(dir: &Path, script: &str, env: &[(&str, &str)]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path_with_binary())
        .envs(env.iter().copied())
        .output()
        .expect("sh runs")
}

/// The text of the literal block (`|`) that starts on the first line ending in `|` at or
/// after the line holding `marker`, its indentation removed.
pub fn literal_block(yaml: &str, marker: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no {marker:?}"));
    let start = (at..lines.len())
        .find(|&i| lines[i].trim_end().ends_with('|'))
        .unwrap_or_else(|| panic!("no block after {marker:?}"))
        + 1;
    let indent_of = |l: &str| l.len() - l.trim_start().len();
    let indent = indent_of(lines[start]);
    lines[start..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent_of(l) >= indent)
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn repo_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}
