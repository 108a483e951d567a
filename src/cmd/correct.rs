//! `correct`: the UserPromptSubmit, PostToolUse and PostToolUseFailure hook (issue #27, D025).
//! Hands the model the corrections the PostCompact audit found in the summary, once, as
//! `additionalContext` (and, after an automatic compaction, whose PostCompact line Claude Code
//! does not show, tells the user in a `systemMessage`): in Claude Code the summary reaches
//! compact-guardian only in PostCompact, after restore has run, so the next prompt or the next
//! tool call (failed or not) is the first moment the model can be told. Runs after every tool
//! call, so it reads its input only as far as the session id and, when nothing waits for that
//! session, drains the rest unparsed: one look at the folder (issue #41).
//!
//! After a command or an edit it also keeps the call's outcome in the session's ledger
//! (`store::ledger`, D083): the hook is told it before the transcript may hold it.
//!
//! Of any number of hooks of one session at once (parallel tool calls), exactly one hands the
//! corrections over; and they are deleted only once printed, so a closed stdout loses nothing
//! (D040).

use super::hook;
use crate::cmd::failopen::debug;
use crate::input::client::{Handover, RESTORE_EVENT, json_answer};
use crate::input::config::Config;
use crate::input::hook_input::{HookInput, Stream};
use crate::read::reported::{self, ReportedCall};
use crate::store::history;
use crate::store::{Snapshots, Store};
use anyhow::{Result, bail};
use std::io::{Read, Write};
use std::time::Instant;

/// Events whose `additionalContext` reaches the model. Claude Code fires PostToolUseFailure
/// instead of PostToolUse for a failed tool call (2.1.3xx): a correction must not wait for the
/// next call that succeeds.
const CONTEXT_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    RESTORE_EVENT,
];

/// Whether the input reports a tool call whose outcome the ledger keeps (a command or an edit):
/// read as far as the tool's name, which comes before its input and output.
fn reports_outcome(stream: &mut Stream<impl Read>) -> std::io::Result<bool> {
    stream.read_to("hook_event_name")?;
    let Some(event) = stream.field("hook_event_name") else {
        return Ok(false);
    };
    if !reported::reports_a_call(&event) {
        return Ok(false);
    }
    stream.read_to("tool_name")?;
    Ok(stream
        .field("tool_name")
        .is_some_and(|tool| reported::kept(&event, &tool)))
}

/// Adds the call the input reports to the session's ledger, for the next compaction's save,
/// restore and audit (issue #46, D083): the transcript may not hold it yet when they read it.
fn keep_outcome(input: &HookInput, snaps: &Snapshots, cfg: &Config) {
    let at = reported::nanos(std::time::SystemTime::now());
    let Some(outcome) = ReportedCall::of(input, at) else {
        return;
    };
    if let Err(e) = snaps.record_call(&outcome) {
        debug(cfg.debug, || format!("outcome not kept: {e:#}"));
    }
}

/// Reads the hook input from `input` and, if corrections wait for its session, prints them.
/// `stdout_usable` says whether what is printed can reach anyone (checked only when something
/// waits, before anything is taken).
pub fn correct(
    input: impl Read,
    cfg: &Config,
    deadline: Instant,
    stdout_usable: impl FnOnce() -> bool,
    out: &mut impl Write,
) -> Result<()> {
    let mut stream = Stream::new(input);
    let Some(dir) = &cfg.dir else {
        return Ok(stream.drain()?);
    };
    stream.read_to("session_id")?;
    let store = Store::new(dir, cfg.ttl);
    let waiting = stream
        .field("session_id")
        .is_some_and(|id| store.corrections_waiting(&id));
    let reports = reports_outcome(&mut stream)?;
    if !waiting && !reports {
        // The client's writes never meet a closed pipe; nothing more is parsed.
        return Ok(stream.drain()?);
    }
    let hook = hook::bind(stream.finish()?, cfg)?;
    let Ok(snaps) = &hook.snapshots else {
        return Ok(());
    };
    if reports {
        keep_outcome(&hook.input, snaps, cfg);
    }
    if !waiting {
        return Ok(());
    }
    hand_over(&hook, snaps, cfg, deadline, stdout_usable, out)
}

/// Prints the corrections waiting for the hook's session, once, if its output reaches the main
/// agent's model, and notes in the history when they were handed over.
fn hand_over(
    hook: &hook::Hook,
    snaps: &Snapshots,
    cfg: &Config,
    deadline: Instant,
    stdout_usable: impl FnOnce() -> bool,
    out: &mut impl Write,
) -> Result<()> {
    let event = hook.input.hook_event_name.as_deref().unwrap_or_default();
    if !CONTEXT_EVENTS.contains(&event) {
        return Ok(()); // kept for a hook whose output the model reads
    }
    if hook.input.agent_id.is_some() {
        // A subagent's tool call (same session): its context is the subagent's, not the main
        // conversation's, which the corrections are about. Kept for the main agent's next step.
        return Ok(());
    }
    // Where the restore, which runs after the audit, hands them over with the snapshot (Codex).
    if hook.client().handover() == Handover::WithRestore && event != RESTORE_EVENT {
        return Ok(());
    }
    if !stdout_usable() {
        bail!("stdout leads nowhere (closed?): the corrections are kept for the next hook");
    }
    let handed = snaps.hand_over_corrections(|pending| {
        // `line`: after an automatic compaction the user saw no PostCompact line, so this is
        // where the summary's verdict reaches them, once.
        let json = json_answer(event, Some(&pending.section), pending.line.as_deref());
        writeln!(out, "{json}")?;
        out.flush()
    })?;
    if handed.is_none() {
        return Ok(()); // another hook of this session took them, or they were not ours
    }
    let session = hook.input.session_id.as_deref().unwrap_or_default();
    let recorded = history::record(
        snaps.store(),
        session,
        history::Step::Deliver,
        deadline,
        |e| e.corrected_time = Some(history::now()),
    );
    if let Err(e) = recorded {
        debug(cfg.debug, || format!("history not updated: {e:#}"));
    }
    Ok(())
}
