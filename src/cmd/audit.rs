//! `audit`: the PostCompact hook (issue #19). Compares the compaction summary with what `save`
//! protected and tells the user, in one `systemMessage`, what was restored and what the summary
//! got wrong; records the outcome in the history. Fail-open like the other hooks.

use super::hook;
use crate::audit::{Digest, Evidence, Restored, compare, message};
use crate::config::Config;
use crate::failopen::debug;
use crate::history::{self, Step};
use crate::render::WhyRebuilt;
use anyhow::Result;
use std::io::{Read, Write};
use std::time::Duration;

/// The largest digest read (one is a few KB).
const MAX_DIGEST_BYTES: u64 = 64 * 1024;
/// A restore this recent belongs to this compaction.
const RECENT_RESTORE: Duration = Duration::from_secs(120);

/// Reads the PostCompact hook input from `input` and prints the verdict to `out`.
pub fn audit(input: impl Read, cfg: &Config, out: &mut impl Write) -> Result<()> {
    let hook = hook::begin(input, cfg)?;
    let session = hook.input.session_id.clone().unwrap_or_default();
    let snaps = hook.snapshots.as_ref().ok();
    let digest: Option<Digest> = snaps
        .and_then(|s| s.take_digest(MAX_DIGEST_BYTES))
        .and_then(|b| serde_json::from_slice::<Digest>(&b).ok())
        .map(Digest::bounded); // as written, or planted: bounded and cleaned either way
    // Codex's PostCompact carries no summary, and Claude Code's may be empty: then only what was
    // restored is said.
    let summary = hook
        .input
        .compact_summary
        .as_deref()
        .filter(|s| !s.trim().is_empty());
    let findings = digest.as_ref().zip(summary).map(|(d, s)| compare(d, s));
    debug(cfg.debug, || format!("audit: {findings:?}"));
    // One read of the history: this compaction's entry as save and restore left it, completed.
    let entry = snaps.and_then(|s| {
        let recorded = history::record(s.store(), &session, Step::Complete, |e| {
            e.audited = true;
            e.audit_time = Some(history::now());
            let Some(d) = &digest else {
                return; // a repeated audit: the first one's counts stand
            };
            e.open_items = d.open.len();
            if let Some(f) = &findings {
                e.called_done = f.called_done.len();
                e.not_mentioned = f.not_mentioned.len();
                e.latest_kept = f.latest_kept;
                e.plan_kept = f.plan_kept;
            }
        });
        recorded
            .inspect_err(|e| debug(cfg.debug, || format!("history not updated: {e:#}")))
            .ok()
            .flatten()
    });
    let restored = match entry.as_ref().and_then(|e| e.restored.as_deref()) {
        Some("snapshot") => Restored::Snapshot,
        Some("rebuilt") => Restored::Rebuilt(
            entry
                .as_ref()
                .and_then(|e| e.rebuilt_because)
                .unwrap_or(WhyRebuilt::NotSaved),
        ),
        _ if snaps.is_some_and(|s| s.recently_restored(RECENT_RESTORE)) => Restored::Snapshot,
        _ => Restored::Nothing,
    };
    // Nothing arrived: whether the folder could have held it is the first thing to know.
    let folder_problem = match (&digest, &hook.snapshots) {
        (Some(_), _) => None,
        (None, Ok(s)) => s.store().write_problem(),
        (None, Err(e)) => Some(format!("{e:#}")),
    };
    let evidence = Evidence {
        save_ran: entry.as_ref().is_some_and(|e| e.save_ran),
        nothing_to_save: entry.as_ref().is_some_and(|e| e.save_ran && !e.saved),
        folder_problem,
    };
    let verdict = message(digest.as_ref(), restored, findings.as_ref(), &evidence);
    let json = serde_json::json!({ "systemMessage": verdict });
    writeln!(out, "{json}")?;
    out.flush()?;
    Ok(())
}
