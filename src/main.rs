//! Entry point: everything lives in the library; `cmd::run` decides the exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    compact_guardian::cmd::run(std::env::args_os().collect())
}
