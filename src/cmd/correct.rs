//! `correct`: the UserPromptSubmit, PostToolUse and PostToolUseFailure hook (issue #27, D025).
//! Hands the model the corrections the PostCompact audit found in the summary, once, as
//! `additionalContext` (and, after an automatic compaction, whose PostCompact line Claude Code
//! does not show, tells the user in a `systemMessage`): in Claude Code the summary reaches
//! compact-guardian only in PostCompact, after restore has run, so the next prompt or the next
//! tool call (failed or not) is the first moment the model can be told. Runs after every tool
//! call, so when nothing is waiting it costs one look at the folder.

use super::hook;
use crate::config::Config;
use crate::failopen::debug;
use crate::history;
use crate::store::Store;
use anyhow::Result;
use std::io::{Read, Write};

/// Events whose `additionalContext` reaches the model. Claude Code fires PostToolUseFailure
/// instead of PostToolUse for a failed tool call (2.1.3xx): a correction must not wait for the
/// next call that succeeds.
const CONTEXT_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "SessionStart",
];

/// Reads the hook input from `input` and, if corrections wait for its session, prints them.
pub fn correct(mut input: impl Read, cfg: &Config, out: &mut impl Write) -> Result<()> {
    let pending = cfg
        .dir
        .as_ref()
        .is_some_and(|d| Store::new(d, cfg.ttl).corrections_pending());
    if !pending {
        // Read what the client sends (a tool's whole output, at times), so that it never writes
        // into a closed pipe; nothing is parsed.
        std::io::copy(&mut input, &mut std::io::sink())?;
        return Ok(());
    }
    let hook = hook::begin(input, cfg)?;
    let Ok(snaps) = &hook.snapshots else {
        return Ok(());
    };
    let event = hook.input.hook_event_name.as_deref().unwrap_or_default();
    if !CONTEXT_EVENTS.contains(&event) {
        return Ok(()); // kept for a hook whose output the model reads
    }
    if hook.input.agent_id.is_some() {
        // A subagent's tool call (same session): its context is the subagent's, not the main
        // conversation's, which the corrections are about. Kept for the main agent's next step.
        return Ok(());
    }
    // In Codex the restore, which runs after the audit, hands them over with the snapshot.
    if hook.transcript_is_codex() && event != "SessionStart" {
        return Ok(());
    }
    let Some(pending) = snaps.take_corrections() else {
        return Ok(());
    };
    let mut json = serde_json::json!({
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": pending.section}
    });
    if let Some(line) = pending.line {
        // After an automatic compaction the user saw no PostCompact line: this is where the
        // summary's verdict reaches them, once.
        json["systemMessage"] = line.into();
    }
    writeln!(out, "{json}")?;
    out.flush()?;
    let session = hook.input.session_id.as_deref().unwrap_or_default();
    let recorded = history::record(snaps.store(), session, history::Step::Complete, |e| {
        e.corrected_time = Some(history::now());
    });
    if let Err(e) = recorded {
        debug(cfg.debug, || format!("history not updated: {e:#}"));
    }
    Ok(())
}
