//! The `cancelcheck` command line; each command lives in its own module under `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
