//! Subcommand dispatch and the process-level policy: hooks fail open, preview fails loudly.

mod audit;
mod cli;
mod codex_trust;
mod correct;
mod failopen;
mod hook;
mod opencode;
mod opencode_install;
mod preview;
mod restore;
mod save;
mod status;

pub use audit::audit;
pub use correct::correct;
pub use preview::preview;
pub use restore::restore;
pub use save::save;
pub use status::status;

use crate::input::config::{Config, HARD_LIMIT_MARGIN};
use clap::Parser;
use cli::{Cli, Command};
use failopen::{run_hook, say};
use std::ffi::OsString;
use std::io::{IsTerminal, StdinLock, StdoutLock, Write};
use std::process::ExitCode;
use std::time::Instant;

/// What the exit code of a command a person (or a health check) runs says. Hooks always end in
/// [`Exit::Done`] (fail open: `failopen`); clap's own errors exit 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// It did what was asked (`status`: compactions are protected).
    Done,
    /// `status`: compactions are not protected (the folder is unusable, or the newest compaction
    /// found no binary).
    NotProtected,
    /// The command could not do what was asked (its one stderr line says why).
    Failed,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        match e {
            Exit::Done => ExitCode::SUCCESS,
            Exit::NotProtected | Exit::Failed => ExitCode::FAILURE,
        }
    }
}

/// Runs the program for `args`; the returned code is the process exit code.
pub fn run(args: Vec<OsString>) -> ExitCode {
    // A file-size limit must fail a write, never end the process by signal (before any write).
    crate::platform::survive_file_size_limit();
    // Only the hook entry points fail open; anything else on the command line is a person, who
    // gets clap's error naming the bad word (with a suggestion) and exit code 2.
    let is_hook = args
        .get(1)
        .is_some_and(|a| crate::cmd::cli::HOOKS.iter().any(|h| a == h));
    if args.len() <= 1 {
        // A person trying the command: show what it does (hooks always pass a subcommand).
        let _ = <Cli as clap::CommandFactory>::command().print_help();
        return Exit::Done.into();
    }
    let parsed = match crate::cmd::cli::hook_command(&args) {
        Some(command) => Ok(Cli { command }),
        None => Cli::try_parse_from(&args),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !is_hook || !e.use_stderr() => e.exit(), // a person: --help, --version, typos
        Err(e) => {
            // A hook command line that clap rejects must still not fail the session.
            say(&format!("compact-guardian: {}", e.kind()));
            return Exit::Done.into();
        }
    };
    let cfg = Config::from_env();
    // The hooks, one row each; the commands a person runs answer here.
    let hook = match cli.command {
        Command::Save => HookRun::new("save", SAVE_EXAMPLE, false, save),
        Command::Restore { text } => {
            HookRun::new("restore", RESTORE_EXAMPLE, true, move |i, c, d, o| {
                restore(i, c, text, d, o)
            })
        }
        Command::Audit => HookRun::new("audit", AUDIT_EXAMPLE, false, audit),
        Command::Correct => HookRun::new("correct", CORRECT_EXAMPLE, false, |i, c, d, o| {
            correct(i, c, d, crate::platform::stdout_is_usable, o)
        }),
        Command::Status { json } => return print_status(&cfg, json).into(),
        Command::InstallOpencode { dir, remove } => {
            return install_opencode(&cfg, dir, remove).into();
        }
        Command::Preview { json, transcript } => {
            return print_preview(&cfg, json, &transcript).into();
        }
    };
    hook.run(&cfg)
}

/// What a hook does with its stdin, its settings, its deadline and stdout: the one thing that
/// differs between the hooks.
type HookBody = Box<
    dyn FnOnce(
        StdinLock<'static>,
        &Config,
        Instant,
        &mut StdoutLock<'static>,
    ) -> anyhow::Result<()>,
>;

/// A hook, one row of the table in [`run`]: every hook runs the same way, under
/// [`run_hook`] (exit 0 whatever happens, at most one stderr line, the watchdog), with stdin
/// refused when it is a terminal; the hooks differ only in these.
struct HookRun {
    /// The subcommand, named in its messages.
    name: &'static str,
    /// Hook JSON for it, shown to a person who runs it by hand.
    example: &'static str,
    /// Refused before anything is claimed when stdout leads nowhere: printing into nowhere
    /// would consume the snapshot (restore).
    needs_stdout: bool,
    body: HookBody,
}

impl HookRun {
    // Taking the body as a closure bound (not a `Box` built by the caller) lets the compiler see
    // that it works for every borrow of the settings and stdout.
    fn new(
        name: &'static str,
        example: &'static str,
        needs_stdout: bool,
        body: impl FnOnce(
            StdinLock<'static>,
            &Config,
            Instant,
            &mut StdoutLock<'static>,
        ) -> anyhow::Result<()>
        + 'static,
    ) -> HookRun {
        HookRun {
            name,
            example,
            needs_stdout,
            body: Box::new(body),
        }
    }

    /// Runs the hook, failing open.
    fn run(self, cfg: &Config) -> ExitCode {
        let hard_limit = cfg.budget + HARD_LIMIT_MARGIN;
        run_hook(self.name, cfg.debug, hard_limit, || {
            if self.needs_stdout && !crate::platform::stdout_is_usable() {
                anyhow::bail!(
                    "stdout leads nowhere (closed?): the snapshot is kept for a later restore"
                );
            }
            let stdin = stdin_or_refuse(self.name, self.example)?;
            (self.body)(
                stdin,
                cfg,
                Instant::now() + cfg.budget,
                &mut std::io::stdout().lock(),
            )
        })
    }
}

/// `status`, for a person or a health check: exit 1 when compactions are not protected.
fn print_status(cfg: &Config, json: bool) -> Exit {
    let mut out = std::io::stdout().lock();
    match status(cfg, json, &mut out).and_then(|healthy| Ok((healthy, out.flush()?))) {
        Ok((true, ())) => Exit::Done,
        Ok((false, ())) => Exit::NotProtected,
        Err(e) => {
            say(&format!("compact-guardian status: {e:#}"));
            Exit::Failed
        }
    }
}

/// `install-opencode`: writes (or, `--remove`, removes) the OpenCode plugin file; fails loudly.
fn install_opencode(cfg: &Config, dir: Option<std::path::PathBuf>, remove: bool) -> Exit {
    let mut out = std::io::stdout().lock();
    let done = if remove {
        opencode_install::remove(dir, cfg, &mut out)
    } else {
        opencode_install::install(dir, cfg, &mut out)
    };
    match done.and_then(|()| Ok(out.flush()?)) {
        Ok(()) => Exit::Done,
        Err(e) => {
            say(&format!("compact-guardian install-opencode: {e:#}"));
            Exit::Failed
        }
    }
}

/// `preview`, for a person: fails loudly.
fn print_preview(cfg: &Config, json: bool, transcript: &std::path::Path) -> Exit {
    let mut out = std::io::stdout().lock();
    match preview(transcript, json, cfg, &mut out).and_then(|()| Ok(out.flush()?)) {
        Ok(()) => Exit::Done,
        Err(e) => {
            say(&format!("compact-guardian preview: {e:#}"));
            Exit::Failed
        }
    }
}

// Hook JSON for each hook, shown to a person who runs one by hand.
const SAVE_EXAMPLE: &str = r#"{"session_id":"s","transcript_path":"t.jsonl","trigger":"manual"}"#;
const RESTORE_EXAMPLE: &str =
    r#"{"session_id":"s","transcript_path":"t.jsonl","source":"compact"}"#;
const AUDIT_EXAMPLE: &str = r#"{"session_id":"s","compact_summary":"All tasks are done."}"#;
const CORRECT_EXAMPLE: &str = r#"{"session_id":"s","hook_event_name":"UserPromptSubmit"}"#;

/// Stdin, unless it is a terminal: a person who runs a hook by hand gets told, with an example
/// for that hook, instead of a hang.
fn stdin_or_refuse(hook: &str, example: &str) -> anyhow::Result<StdinLock<'static>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        anyhow::bail!(
            "expects the hook's JSON on stdin, e.g. echo '{example}' | compact-guardian {hook}"
        );
    }
    Ok(stdin.lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::config::MAX_BUDGET;
    use std::time::Duration;

    #[test]
    fn the_largest_budget_ends_before_the_hook_timeout_in_hooks_json() {
        // The watchdog ends a hook at its budget plus HARD_LIMIT_MARGIN; the client kills it at
        // the timeout hooks.json gives it. The watchdog must come first, with a second to spare
        // for the launcher.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/plugin/hooks/hooks.json");
        let hooks: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut checked = 0;
        for groups in hooks["hooks"].as_object().unwrap().values() {
            for group in groups.as_array().unwrap() {
                for hook in group["hooks"].as_array().unwrap() {
                    let command = hook["command"].as_str().unwrap();
                    if !crate::cmd::cli::HOOKS
                        .iter()
                        .any(|sub| command.ends_with(&format!(" {sub}")))
                    {
                        continue;
                    }
                    let timeout = Duration::from_secs(hook["timeout"].as_u64().unwrap());
                    assert!(
                        MAX_BUDGET + HARD_LIMIT_MARGIN + Duration::from_secs(1) <= timeout,
                        "{command}: timeout {timeout:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 6);
    }
}
