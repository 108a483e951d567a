//! Subcommand dispatch and the process-level policy: hooks fail open, preview fails loudly.

mod audit;
mod hook;
mod preview;
mod restore;
mod save;
mod status;

pub use audit::audit;
pub use preview::preview;
pub use restore::restore;
pub use save::save;
pub use status::status;

use crate::cli::{Cli, Command};
use crate::config::Config;
use crate::failopen::{run_hook, say};
use clap::Parser;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How much longer than the soft budget a hook may run before the watchdog ends it.
const HARD_LIMIT_MARGIN: Duration = Duration::from_secs(3);

/// Runs the program for `args`; the returned code is the process exit code.
pub fn run(args: Vec<OsString>) -> ExitCode {
    // Only the hook entry points fail open; anything else on the command line is a person, who
    // gets clap's error naming the bad word (with a suggestion) and exit code 2.
    let is_hook = args
        .get(1)
        .is_some_and(|a| a == "save" || a == "restore" || a == "audit");
    if args.len() <= 1 {
        // A person trying the command: show what it does (hooks always pass a subcommand).
        let _ = <Cli as clap::CommandFactory>::command().print_help();
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !is_hook || !e.use_stderr() => e.exit(), // a person: --help, --version, typos
        Err(e) => {
            // A hook command line that clap rejects must still not fail the session.
            say(&format!("compact-guardian: {}", e.kind()));
            return ExitCode::SUCCESS;
        }
    };
    let cfg = Config::from_env();
    let hard_limit = cfg.budget + HARD_LIMIT_MARGIN;
    match cli.command {
        Command::Save => run_hook("save", cfg.debug, hard_limit, || {
            let stdin = stdin_or_refuse()?;
            save(
                stdin,
                &cfg,
                Instant::now() + cfg.budget,
                &mut std::io::stdout().lock(),
            )
        }),
        Command::Restore => run_hook("restore", cfg.debug, hard_limit, || {
            // Checked before anything is claimed: printing into nowhere would consume the snapshot.
            if !crate::platform::stdout_is_usable() {
                anyhow::bail!(
                    "stdout leads nowhere (closed?): the snapshot is kept for a later restore"
                );
            }
            let stdin = stdin_or_refuse()?;
            restore(
                stdin,
                &cfg,
                Instant::now() + cfg.budget,
                &mut std::io::stdout().lock(),
            )
        }),
        Command::Audit => run_hook("audit", cfg.debug, hard_limit, || {
            let stdin = stdin_or_refuse()?;
            audit(stdin, &cfg, &mut std::io::stdout().lock())
        }),
        Command::Status { json } => {
            let mut out = std::io::stdout().lock();
            match status(&cfg, json, &mut out).and_then(|()| Ok(out.flush()?)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    say(&format!("compact-guardian status: {e:#}"));
                    ExitCode::FAILURE
                }
            }
        }
        Command::Preview { json, transcript } => {
            let mut out = std::io::stdout().lock();
            match preview(&transcript, json, &cfg, &mut out).and_then(|()| Ok(out.flush()?)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    say(&format!("compact-guardian preview: {e:#}"));
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Stdin, unless it is a terminal: a person who runs a hook by hand gets told instead of a hang.
fn stdin_or_refuse() -> anyhow::Result<std::io::StdinLock<'static>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        anyhow::bail!(
            "expects the hook's JSON on stdin, e.g. echo '{{\"session_id\":\"s\",\"transcript_path\":\"t.jsonl\"}}' | compact-guardian save"
        );
    }
    Ok(stdin.lock())
}
