//! Command-line definition (clap). The `///` comments are the `--help` text.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Keeps a Claude Code, Codex or OpenCode session's open work across compaction.
///
/// Installed as a Claude Code or Codex plugin, `save` runs as the PreCompact hook, `restore` as
/// the SessionStart hook (matcher `compact`), `audit` at PostCompact and `correct` after each
/// prompt and tool call; in OpenCode, the plugin `install-opencode` writes runs them. The hooks
/// read their JSON on stdin and always exit 0.
/// Settings come from the environment: COMPACT_GUARDIAN_DIR, COMPACT_GUARDIAN_TTL_SECS,
/// COMPACT_GUARDIAN_SCAN_BYTES, COMPACT_GUARDIAN_BUDGET_MS, COMPACT_GUARDIAN_STEER,
/// COMPACT_GUARDIAN_DEBUG (see the README).
#[derive(Debug, Parser)]
#[command(name = "compact-guardian", version, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands the client runs as hooks: they fail open (exit 0), whatever the command line.
pub const HOOKS: [&str; 4] = ["save", "restore", "audit", "correct"];

/// The command a hook's command line names, when it is exactly `<binary> <hook>`, as every
/// client runs it: read without building clap's parser, which cost `correct`, run after every
/// tool call, a seventh of its instructions (D084). Anything else (a flag, a person) goes to clap.
pub fn hook_command(args: &[std::ffi::OsString]) -> Option<Command> {
    let [_, word] = args else { return None };
    Some(match word.to_str()? {
        "save" => Command::Save,
        "restore" => Command::Restore { text: false },
        "audit" => Command::Audit,
        "correct" => Command::Correct,
        _ => return None,
    })
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// PreCompact hook: snapshot the session's open work from its transcript.
    ///
    /// Reads the hook JSON (session_id, transcript_path, cwd, trigger, custom_instructions) on
    /// stdin, writes `compact-snapshot-<session_id>.md` in the snapshot folder, and prints a short
    /// directive for the summarizer (COMPACT_GUARDIAN_STEER=0 turns it off). Always exits 0.
    Save,
    /// SessionStart(compact) hook: print the session's fresh snapshot once, then delete it.
    ///
    /// Reads the hook JSON (session_id, transcript_path, source) on stdin. Without a fresh
    /// snapshot, rebuilds one from the transcript part before the last compaction. For Claude
    /// Code it prints JSON (the snapshot as additionalContext, a line for the user as
    /// systemMessage); for Codex, at a terminal or with --text, the snapshot as text. Always
    /// exits 0.
    Restore {
        /// Print the snapshot as text, as the model reads it (for a person, e.g. piped to less).
        #[arg(long)]
        text: bool,
    },
    /// PostCompact hook: tell the user what was restored and what the summary got wrong.
    ///
    /// Reads the hook JSON (session_id, compact_summary) on stdin, compares the summary with what
    /// save protected, and prints one `systemMessage`. Always exits 0.
    Audit,
    /// UserPromptSubmit, PostToolUse and PostToolUseFailure hook: hand the model the summary's
    /// corrections, once.
    ///
    /// Reads the hook JSON (session_id, hook_event_name) on stdin. When the PostCompact audit
    /// found claims of the summary that the record contradicts, prints them once as
    /// `additionalContext`; otherwise prints nothing. Always exits 0.
    Correct,
    /// Is it working? The binary, the snapshot folder, and the last compactions.
    Status {
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Install the OpenCode plugin: writes compact-guardian.js into OpenCode's plugins folder.
    ///
    /// One file for OpenCode 1 and 2, which both load it from that folder; it runs this binary
    /// at OpenCode's compactions (it remembers this binary's path). Start OpenCode again
    /// afterwards. The folder is ~/.config/opencode/plugins ($OPENCODE_CONFIG_DIR/plugins when
    /// that is set, else $XDG_CONFIG_HOME/opencode/plugins) unless --dir names another, e.g. a
    /// project's .opencode/plugins.
    InstallOpencode {
        /// The folder to write compact-guardian.js into (or, with --remove, to remove it from).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Remove the plugin from every folder OpenCode 1 or 2 loads it from instead.
        #[arg(long)]
        remove: bool,
    },
    /// Print what restore would print for a snapshot made from TRANSCRIPT now (for debugging).
    Preview {
        /// Print the structured extraction as JSON instead of the snapshot text.
        #[arg(long)]
        json: bool,
        /// A session transcript (.jsonl).
        transcript: PathBuf,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_hook_name_is_a_subcommand() {
        for h in HOOKS {
            assert!(Cli::try_parse_from(["compact-guardian", h]).is_ok(), "{h}");
        }
    }

    #[test]
    fn a_hooks_command_line_is_read_as_clap_reads_it() {
        for h in HOOKS {
            let args = ["compact-guardian", h].map(std::ffi::OsString::from);
            let fast = format!("{:?}", hook_command(&args));
            let clap = format!("{:?}", Cli::try_parse_from(&args).ok().map(|c| c.command));
            assert_eq!(fast, clap, "{h}");
        }
        let person = ["compact-guardian", "restore", "--text"].map(std::ffi::OsString::from);
        assert!(hook_command(&person).is_none());
        let other = ["compact-guardian", "status"].map(std::ffi::OsString::from);
        assert!(hook_command(&other).is_none());
    }
}
