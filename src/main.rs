//! Entry point: everything lives in the library; `run` (the `cmd` module) decides the exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    compact_guardian::run(std::env::args_os().collect())
}
