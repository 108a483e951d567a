//! `restore` for OpenCode (issue #43): what the plugin (`opencode/compact-guardian.js`) asks after
//! a compaction and what it reads back.
//!
//! OpenCode stores nothing a plugin adds to a request, so the model keeps the snapshot only if the
//! plugin adds it to every request until the next compaction (D052). The plugin asks this command
//! at the `session.compacted` event and at the first request it sees after a compaction, naming
//! the compaction (`compaction_id`, the user message that holds it) and giving its summary
//! (`compact_summary`, which OpenCode has stored by then). The first ask of a compaction audits
//! the summary against what `save` protected (as Codex's PostCompact does: same digest, same
//! corrections), takes the saved snapshot (or, without one, asks for the session to rebuild from),
//! puts the corrections at its top and keeps the result bound to that compaction in the snapshot
//! folder. Every later ask for the same compaction, from this OpenCode process or a new one, gets
//! the same text back and nothing else happens.
//!
//! The answer is one JSON line: `{"hookSpecificOutput":{"additionalContext": <text>},
//! "systemMessage": <the user's line, first ask only>}` (the shape Claude Code's SessionStart
//! reads), or `{"needTranscript":true}` when a rebuild needs the session and the plugin gave none
//! (it then exports the session and asks again), or nothing (nothing to give).

use super::audit::{audited, evidence, judge_summary, take_digest};
use super::hook::Hook;
use crate::cmd::failopen::debug;
use crate::corrections;
use crate::extract::Part;
use crate::extract::digest::Digest;
use crate::input::client::{RESTORE_EVENT, json_answer};
use crate::input::config::Config;
use crate::pipeline;
use crate::read::transcript::Limits;
use crate::render::audit::{Findings, Restored, message};
use crate::render::{Meta, Source, WhyRebuilt};
use crate::store::history::{self, Entry, Outcome, Step};
use crate::store::{Pending, Snapshots, Taken};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use std::time::{Instant, SystemTime};

/// The largest bound context read back: a snapshot (at most 30,000 bytes of UTF-8) and its
/// corrections, in JSON.
const MAX_CONTEXT_BYTES: u64 = 128 * 1024;

/// What the model is given after one compaction, kept until the next.
#[derive(Debug, Serialize, Deserialize)]
struct Bound {
    /// The compaction it was given for (the id of the user message holding it).
    compaction: String,
    /// The snapshot (saved, or rebuilt).
    snapshot: String,
    /// What the summary got wrong, put at the snapshot's top.
    corrections: Option<String>,
}

impl Bound {
    /// The text the model reads.
    fn context(&self) -> String {
        match &self.corrections {
            Some(section) => corrections::inserted(&self.snapshot, section),
            None => self.snapshot.clone(),
        }
    }
}

/// Answers the plugin's ask after a compaction (see the module documentation).
pub fn restore(hook: &Hook, cfg: &Config, deadline: Instant, out: &mut impl Write) -> Result<()> {
    let started = Instant::now();
    let compaction = hook
        .input
        .compaction_id
        .as_deref()
        .context("the OpenCode plugin named no compaction_id")?;
    let snaps = hook.snapshots.as_ref().ok();
    // Given before, for this compaction: the same text, nothing else.
    if let Some(bound) = snaps.and_then(|s| bound(s, compaction)) {
        debug(cfg.debug, || {
            "the context of this compaction was given before: given again".to_owned()
        });
        return answer(out, &bound, None);
    }
    let transcript = hook.input.transcript_path.as_deref().map(Path::new);
    if transcript.is_none() && !snaps.is_some_and(Snapshots::snapshot_present) {
        // Nothing saved to give: only the session can rebuild it, and only the plugin can read
        // the session. Nothing is taken before it does.
        return need_transcript(out);
    }
    let audit = audit_summary(hook, cfg, deadline);
    let given = what_to_give(hook, compaction, transcript, &audit, cfg, deadline)?;
    let (text, why) = match given {
        Given::Context { text, why } => (text, why),
        Given::BoundByOther(bound) => return answer(out, &bound, None),
        Given::NeedTranscript => return need_transcript(out),
        Given::Nothing => return Ok(()), // nothing at all to report
    };
    let bound = Bound {
        compaction: compaction.to_owned(),
        snapshot: text,
        corrections: audit.section.clone(),
    };
    keep(snaps, &bound, cfg);
    let entry = record(hook, &audit, why, started, deadline, cfg);
    let line = user_line(hook, &audit, why, entry.as_ref());
    answer(out, &bound, Some(&line))?;
    if let Some(s) = snaps {
        super::hook::remove_stale(s, deadline, cfg);
    }
    Ok(())
}

/// What the first ask of a compaction found in its summary: Codex's order, the audit before the
/// restore, which carries its corrections.
struct Audit {
    /// What `save` protected (taken: a later ask does not audit again).
    digest: Option<Digest>,
    /// What the summary got wrong, when there was a summary to judge.
    findings: Option<Findings>,
    /// The corrections, for the top of the context: found now, or by an earlier ask that could
    /// not hand them over.
    section: Option<String>,
}

/// Audits the summary OpenCode stored against what `save` protected, as the PostCompact audit
/// does: the same summary rules (D043), the same evidence brought up to the compaction when the
/// session is at hand (D056).
fn audit_summary(hook: &Hook, cfg: &Config, deadline: Instant) -> Audit {
    let snaps = hook.snapshots.as_ref().ok();
    let digest = take_digest(snaps);
    let findings = judge_summary(hook, hook.client(), digest.as_ref(), cfg, deadline);
    // Corrections an earlier ask found but could not hand over (it needed the session first).
    let earlier = snaps.and_then(Snapshots::take_corrections);
    let section = findings
        .as_ref()
        .and_then(|f| corrections::section(&f.corrections))
        .or(earlier.map(|p| p.section));
    Audit {
        digest,
        findings,
        section,
    }
}

/// What is given for a compaction nothing was bound to yet.
enum Given {
    /// This context: the saved snapshot (`why` is `None`), or one rebuilt for `why`.
    Context {
        text: String,
        why: Option<WhyRebuilt>,
    },
    /// What another ask (a second OpenCode process) took the snapshot for and bound first.
    BoundByOther(Bound),
    /// Nothing without the session: the plugin is asked for it.
    NeedTranscript,
    /// Nothing at all.
    Nothing,
}

/// Decides what the model is given: the saved snapshot, taken; without one, the context rebuilt
/// from the session excerpt, or, without an excerpt, the ask for one (the corrections kept for
/// it).
fn what_to_give(
    hook: &Hook,
    compaction: &str,
    transcript: Option<&Path>,
    audit: &Audit,
    cfg: &Config,
    deadline: Instant,
) -> Result<Given> {
    let snaps = hook.snapshots.as_ref().ok();
    let mut saved_text = None;
    let taken = match snaps {
        Some(s) => Some(s.take_fresh(|text| {
            saved_text = Some(text.to_owned());
            Ok(())
        })?),
        None => None,
    };
    let why = match &taken {
        Some(Taken::Printed) => None,
        Some(Taken::Stale) => Some(WhyRebuilt::Expired),
        Some(Taken::Refused(_)) => Some(WhyRebuilt::NotOurs),
        None => Some(WhyRebuilt::FolderUnusable),
        Some(Taken::Missing | Taken::TakenByOther) => Some(WhyRebuilt::NotSaved),
    };
    // Another ask (a second OpenCode process) took the snapshot first and may have bound it.
    if matches!(taken, Some(Taken::TakenByOther))
        && let Some(bound) = snaps.and_then(|s| bound(s, compaction))
    {
        return Ok(Given::BoundByOther(bound));
    }
    Ok(match (saved_text, transcript) {
        (Some(text), _) => Given::Context { text, why },
        (None, Some(path)) => match rebuild(path, hook, cfg, deadline, why)? {
            Some(text) => Given::Context { text, why },
            None => Given::Nothing,
        },
        (None, None) => {
            // The snapshot was there a moment ago and is not now: keep what the audit found for
            // the ask that brings the session.
            if let (Some(s), Some(section)) = (snaps, &audit.section) {
                let pending = Pending {
                    section: section.clone(),
                    line: None,
                    // The excerpt is the plugin's temporary file, not the session: the
                    // corrections wait for the next ask, up to their own limit (D040).
                    transcript: None,
                };
                let _ = s.save_corrections(&pending);
            }
            Given::NeedTranscript
        }
    })
}

/// Keeps what is given bound to its compaction, for every later ask (from any process).
fn keep(snaps: Option<&Snapshots>, bound: &Bound, cfg: &Config) {
    if let Some(s) = snaps
        && let Err(e) = serde_json::to_vec(bound)
            .map_err(anyhow::Error::from)
            .and_then(|b| s.save_context(&b))
    {
        // Given now, but a later request (or process) will not find it: say so.
        debug(cfg.debug, || format!("context not kept: {e:#}"));
    }
}

/// Completes this compaction's history entry: restored (the snapshot, or rebuilt for `why`) and
/// audited by this ask. The entry as it now is.
fn record(
    hook: &Hook,
    audit: &Audit,
    why: Option<WhyRebuilt>,
    started: Instant,
    deadline: Instant,
    cfg: &Config,
) -> Option<Entry> {
    let snaps = hook.snapshots.as_ref().ok()?;
    let session = hook.input.session_id.as_deref().unwrap_or_default();
    history::record(snaps.store(), session, Step::Complete, deadline, |e| {
        let now = history::now();
        e.restore_time = Some(now);
        e.restored = Some(match why {
            None => Outcome::Snapshot,
            Some(_) => Outcome::Rebuilt,
        });
        e.restore_ms = Some(started.elapsed().as_millis() as u64);
        e.rebuilt_because = why;
        audited(e, now, audit.digest.as_ref(), audit.findings.as_ref());
        if audit.section.is_some() {
            e.corrected_time = Some(now);
        }
    })
    .inspect_err(|e| debug(cfg.debug, || format!("history not updated: {e:#}")))
    .ok()
    .flatten()
}

/// The user's line, shown the first time: what the model was given, and what the summary got
/// wrong (as Codex's audit says it).
fn user_line(hook: &Hook, audit: &Audit, why: Option<WhyRebuilt>, entry: Option<&Entry>) -> String {
    let restored = match why {
        None => Restored::Snapshot,
        Some(why) => Restored::Rebuilt(why),
    };
    message(
        audit.digest.as_ref(),
        restored,
        audit.findings.as_ref(),
        &evidence(hook, audit.digest.is_some(), entry),
        audit.section.is_some(),
    )
}

/// The context kept for `compaction`, if it is the one kept.
fn bound(snaps: &Snapshots, compaction: &str) -> Option<Bound> {
    let bytes = snaps.read_context(MAX_CONTEXT_BYTES)?;
    let bound: Bound = serde_json::from_slice(&bytes).ok()?;
    // Only text this tool wrote reaches the model (a damaged or planted file does not).
    let ours = crate::snapshot::is_snapshot(&bound.snapshot)
        && bound
            .corrections
            .as_deref()
            .is_none_or(corrections::is_section);
    (bound.compaction == compaction && ours).then_some(bound)
}

/// Rebuilds the context from the session excerpt at `path` (the part before the compaction).
fn rebuild(
    path: &Path,
    hook: &Hook,
    cfg: &Config,
    deadline: Instant,
    why: Option<WhyRebuilt>,
) -> Result<Option<String>> {
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let built = pipeline::build_with_calls(path, Part::Compacted, limits, &hook.reported_calls())?;
    debug(cfg.debug, || format!("rebuild: {}", built.stats.summary()));
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: None,
        cwd: hook.input.cwd.clone(),
        git_branch: None,
        focus: None,
        source: Source::Rebuilt(why.unwrap_or(WhyRebuilt::NotSaved)),
    };
    Ok(built.render(&meta))
}

/// Prints the answer: the context, and the user's line when there is one.
fn answer(out: &mut impl Write, bound: &Bound, line: Option<&str>) -> Result<()> {
    let json = json_answer(RESTORE_EVENT, Some(&bound.context()), line);
    writeln!(out, "{json}")?;
    Ok(out.flush()?)
}

/// Asks the plugin for the session, to rebuild the context from.
fn need_transcript(out: &mut impl Write) -> Result<()> {
    writeln!(out, "{}", serde_json::json!({"needTranscript": true}))?;
    Ok(out.flush()?)
}
