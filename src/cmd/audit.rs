//! `audit`: the PostCompact hook (issue #19). Compares the compaction summary with what `save`
//! protected, keeps the corrections for the model, and tells the user what the summary got wrong
//! (or why nothing was protected): plain text in Claude Code, whose restore has already said what
//! it handed over and which prints PostCompact output as it is; a `systemMessage` in Codex, whose
//! restore comes later (D027). Records the outcome in the history. Fail-open like the other hooks.

use super::hook::{self, Hook};
use crate::cmd::failopen::debug;
use crate::corrections;
use crate::extract::digest::{Digest, MAX_DIGEST_BYTES};
use crate::input::client::{Client, Reply, json_answer};
use crate::input::config::Config;
use crate::json::MAX_TEXT;
use crate::pipeline;
use crate::read::reported::ReportedCall;
use crate::read::transcript::{self, Limits};
use crate::render::WhyRebuilt;
use crate::render::audit::{Evidence, Findings, Restored, compare_within, message};
use crate::store::history::{self, Entry, Outcome, Step};
use crate::store::{Pending, Snapshots};
use anyhow::Result;
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// A restore this recent belongs to this compaction.
const RESTORED_BEFORE_AUDIT: Duration = Duration::from_secs(120);
/// The most of a Codex rollout read back to its newest compaction summary (the `compacted` line
/// was written just before this hook ran).
const SUMMARY_SCAN_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the PostCompact hook input from `input` and prints the verdict to `out`.
pub fn audit(
    input: impl Read,
    cfg: &Config,
    deadline: Instant,
    out: &mut impl Write,
) -> Result<()> {
    let hook = hook::begin(input, cfg)?;
    let session = hook.input.session_id.clone().unwrap_or_default();
    let snaps = hook.snapshots.as_ref().ok();
    let digest = take_digest(snaps);
    let client = client_of(&hook, digest.as_ref());
    let findings = judge_summary(&hook, client, digest.as_ref(), cfg, deadline);
    let told = keep_corrections(&hook, findings.as_ref(), client, cfg);
    if client.restore_is_deferred()
        && let Some(s) = snaps
    {
        // The compaction happened, and the restore comes at the next turn, however much later
        // (the next prompt, or a resume): the snapshot waits for it (D026).
        if let Err(e) = s.defer(hook.input.transcript_path.as_deref()) {
            debug(cfg.debug, || format!("deferral not marked: {e:#}"));
        }
    }
    debug(cfg.debug, || described(digest.as_ref(), findings.as_ref()));
    // One read of the history: this compaction's entry as save and restore left it, completed.
    let entry = snaps.and_then(|s| {
        let recorded = record(
            s,
            &session,
            client,
            digest.as_ref(),
            findings.as_ref(),
            deadline,
        );
        recorded
            .inspect_err(|e| debug(cfg.debug, || format!("history not updated: {e:#}")))
            .ok()
            .flatten()
    });
    let verdict = Verdict {
        digest: digest.as_ref(),
        restored: restored(entry.as_ref(), client, snaps),
        findings: findings.as_ref(),
        evidence: evidence(&hook, digest.is_some(), entry.as_ref()),
        told,
    };
    verdict.print(client, out)
}

/// The client whose compaction this is: the one the digest names (D026: save read the
/// transcript), else the hook's own.
fn client_of(hook: &Hook, digest: Option<&Digest>) -> Client {
    let saved = digest
        .and_then(|d| d.client.as_deref())
        .and_then(Client::from_name);
    saved.unwrap_or_else(|| hook.client())
}

/// The digest `save` left for this compaction, taken: it serves one audit.
pub(super) fn take_digest(snaps: Option<&Snapshots>) -> Option<Digest> {
    snaps
        .and_then(|s| s.take_digest(MAX_DIGEST_BYTES))
        .and_then(|b| Digest::read(&b))
}

/// What `client`'s summary of this compaction got wrong, against `digest` and the session the
/// hook names: the audit's judgement, which OpenCode's restore makes too.
pub(super) fn judge_summary(
    hook: &Hook,
    client: Client,
    digest: Option<&Digest>,
    cfg: &Config,
    deadline: Instant,
) -> Option<Findings> {
    let summary = summary_to_judge(hook, client, digest.is_some(), cfg, deadline);
    let transcript = hook.input.transcript_path.as_deref().map(Path::new);
    let calls = hook.reported_calls();
    judge(
        digest,
        summary.as_deref(),
        transcript,
        &calls,
        cfg,
        deadline,
    )
}

/// The summary to judge, or `None`. Codex runs PostCompact before its restore (which waits for
/// the next turn) and gives it no summary; it has written the summary into the rollout, though.
/// Claude Code gives the summary here (it may be empty) and has already run its restore.
fn summary_to_judge<'a>(
    hook: &'a Hook,
    client: Client,
    has_digest: bool,
    cfg: &Config,
    deadline: Instant,
) -> Option<Cow<'a, str>> {
    let transcript = hook.input.transcript_path.as_deref().map(Path::new);
    let summary: Option<Cow<str>> = match hook.input.compact_summary.as_deref() {
        Some(s) if !s.trim().is_empty() => Some(Cow::Borrowed(s)),
        _ if !client.gives_audit_the_summary() && has_digest => transcript
            .and_then(|p| {
                let limits = Limits {
                    max_bytes: Some(SUMMARY_SCAN_BYTES),
                    deadline: Some(deadline),
                };
                transcript::newest_codex_summary(p, limits)
            })
            .map(Cow::Owned),
        _ => None,
    };
    // A summary read only in part is never judged as if whole: what it leaves out is unknown
    // (issue #41). Codex's comes from the rollout, read like any text, to `json::MAX_TEXT`.
    let cut = hook.input.summary_cut
        || (hook
            .input
            .compact_summary
            .as_deref()
            .is_none_or(|s| s.trim().is_empty())
            && summary.as_deref().is_some_and(|s| s.len() + 4 >= MAX_TEXT))
        || summary
            .as_deref()
            .is_some_and(|s| !corrections::judgeable(s));
    if cut {
        debug(cfg.debug, || {
            "the summary was longer than what is read or judged of it: not compared".to_owned()
        });
    }
    summary.filter(|_| !cut)
}

/// The summary compared with what `save` protected. The evidence is brought up to the
/// compaction: a client may write the last result after PreCompact ran (Claude Code 2.1.332 in
/// 14 of 14 runs), and the record up to this compaction's boundary is what the summary
/// describes, unless it describes a span that ended when `save` ran (a precomputed summary).
/// Judged within its share of the hook's budget ([`judge_by`]): a judgement not done by then is
/// none (D061), as for a summary too long to judge, and the hook still answers in time.
fn judge(
    digest: Option<&Digest>,
    summary: Option<&str>,
    transcript: Option<&Path>,
    calls: &[ReportedCall],
    cfg: &Config,
    deadline: Instant,
) -> Option<Findings> {
    let (digest, summary) = (digest?, summary?);
    let by = judge_by(deadline, cfg);
    let judged = match transcript {
        Some(path)
            if corrections::covers_a_span(summary, Some(by)) == Some(false)
                && !held_since_save(digest) =>
        {
            Some(caught_up(digest, path, calls, cfg, deadline))
        }
        _ => None,
    };
    let findings = compare_within(judged.as_ref().unwrap_or(digest), summary, Some(by));
    if findings.is_none() {
        debug(cfg.debug, || {
            "the summary could not be judged within the hook's budget: not compared".to_owned()
        });
    }
    findings
}

/// When the judge must have answered: the hook's deadline, less a quarter of its budget kept for
/// what follows (the corrections and the history written, OpenCode's restore rebuilding the
/// context from the session when no snapshot was saved).
fn judge_by(deadline: Instant, cfg: &Config) -> Instant {
    deadline.checked_sub(cfg.budget / 4).unwrap_or(deadline)
}

/// Keeps the corrections for the model; whether they were kept. They go to the model through the
/// next hook that can hand them over: Codex's restore, or, in Claude Code, whose restore has
/// run, `correct` at the next prompt or tool call (D025).
fn keep_corrections(
    hook: &Hook,
    findings: Option<&Findings>,
    client: Client,
    cfg: &Config,
) -> bool {
    // Claude Code shows PostCompact output only after a manual `/compact`; after an automatic
    // one the summary's verdict travels with the corrections and `correct` shows it (D027).
    let unseen = !client.shows_audit_answer(hook.input.trigger.as_deref());
    let pending = findings.and_then(|f| {
        corrections::section(&f.corrections).map(|section| Pending {
            section,
            line: f.verdict(true).filter(|_| unseen),
            transcript: hook.input.transcript_path.clone(),
        })
    });
    match (pending, hook.snapshots.as_ref().ok()) {
        (Some(p), Some(s)) => s
            .save_corrections(&p)
            .inspect_err(|e| debug(cfg.debug, || format!("corrections not kept: {e:#}")))
            .is_ok(),
        _ => false,
    }
}

/// What the audit found, for `COMPACT_GUARDIAN_DEBUG`.
fn described(digest: Option<&Digest>, findings: Option<&Findings>) -> String {
    match (digest, findings) {
        (None, _) => {
            "no digest: save did not run for this compaction, or an audit took it".to_owned()
        }
        (Some(_), None) => {
            "no summary to compare (none given, or not found in the rollout)".to_owned()
        }
        (Some(d), Some(f)) => format!(
            "{} open items; {} corrections for the model ({}); {} items not mentioned; latest instruction {}",
            d.open.len(),
            f.corrections.len(),
            f.corrections
                .iter()
                .map(|c| format!("{:?}", c.kind))
                .collect::<Vec<_>>()
                .join(", "),
            f.not_mentioned.len(),
            match f.latest_kept {
                Some(true) => "kept",
                Some(false) => "left out",
                None => "not judged",
            }
        ),
    }
}

/// Completes this compaction's history entry with the audit's counts; the entry as it now is.
fn record(
    snaps: &Snapshots,
    session: &str,
    client: Client,
    digest: Option<&Digest>,
    findings: Option<&Findings>,
    deadline: Instant,
) -> Result<Option<Entry>> {
    history::record(snaps.store(), session, Step::Complete, deadline, |e| {
        e.deferred |= client.restore_is_deferred();
        audited(e, history::now(), digest, findings);
    })
}

/// Marks `e` audited at `now`, with the audit's counts (OpenCode's restore audits too).
pub(super) fn audited(
    e: &mut Entry,
    now: u64,
    digest: Option<&Digest>,
    findings: Option<&Findings>,
) {
    e.audited = true;
    e.audit_time = Some(now);
    let Some(d) = digest else {
        return; // a repeated audit: the first one's counts stand
    };
    e.open_items = d.open.len();
    if let Some(f) = findings {
        e.called_done = f.called_done().len();
        e.not_mentioned = f.not_mentioned.len();
        e.latest_kept = f.latest_kept;
        e.plan_kept = f.plan_kept;
        e.corrections = f.corrections.len();
    }
}

/// What reached the model for this compaction, as the history (or the restored marker) says.
fn restored(entry: Option<&Entry>, client: Client, snaps: Option<&Snapshots>) -> Restored {
    match entry.and_then(|e| e.restored) {
        Some(Outcome::Snapshot) => Restored::Snapshot,
        Some(Outcome::Rebuilt) => Restored::Rebuilt(
            entry
                .and_then(|e| e.rebuilt_because)
                .unwrap_or(WhyRebuilt::NotSaved),
        ),
        // A restore deferred to the next turn (Codex) comes after this hook: a restored marker
        // is an earlier compaction's.
        _ if client.restore_is_deferred() => Restored::Deferred,
        _ if snaps.is_some_and(|s| s.recently_restored(RESTORED_BEFORE_AUDIT)) => {
            Restored::Snapshot
        }
        _ => Restored::Nothing,
    }
}

/// Why nothing may have been protected: whether save ran, and, when nothing arrived, whether the
/// folder could have held it (the first thing to know).
pub(super) fn evidence(hook: &Hook, has_digest: bool, entry: Option<&Entry>) -> Evidence {
    let folder_problem = match (has_digest, &hook.snapshots) {
        (true, _) => None,
        (false, Ok(s)) => s.store().write_problem(),
        (false, Err(e)) => Some(format!("{e:#}")),
    };
    Evidence {
        save_ran: entry.is_some_and(|e| e.save_ran),
        nothing_to_save: entry.is_some_and(|e| e.save_ran && !e.saved),
        folder_problem,
    }
}

/// Everything the user's line is made from.
struct Verdict<'a> {
    digest: Option<&'a Digest>,
    restored: Restored,
    findings: Option<&'a Findings>,
    evidence: Evidence,
    told: bool,
}

impl Verdict<'_> {
    /// Prints the verdict the way the client shows it.
    fn print(&self, client: Client, out: &mut impl Write) -> Result<()> {
        let (digest, restored, findings, evidence) =
            (self.digest, self.restored, self.findings, &self.evidence);
        match client.audit_reply() {
            Reply::Json => {
                // A `systemMessage` (Codex: its restore has not run yet).
                let verdict = message(digest, restored, findings, evidence, self.told);
                writeln!(out, "{}", json_answer("PostCompact", None, Some(&verdict)))?;
            }
            Reply::Text => {
                // Claude Code, whose restore has told the user what it handed over.
                if let Some(line) = claude_line(digest, restored, findings, evidence, self.told) {
                    writeln!(out, "{line}")?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// Whether the summary this audit judges was probably written long before the compaction it is
/// used for: Claude Code precomputes a summary when PreCompact runs and may apply it minutes or
/// days later (measured on 2.1.332, docs/research), while a compaction's own summarizer answers
/// within minutes. Such a summary describes the record as `save` read it, not as it is now.
pub(super) fn held_since_save(saved: &Digest) -> bool {
    history::now().saturating_sub(saved.saved_at) > HELD_SUMMARY.as_secs()
}

/// A summary used this long after its PreCompact was precomputed (see [`held_since_save`]).
const HELD_SUMMARY: Duration = Duration::from_secs(10 * 60);

/// `saved` with its evidence read again from the record up to this compaction's boundary, or as
/// it is when that cannot be read within the budget.
pub(super) fn caught_up(
    saved: &Digest,
    path: &Path,
    calls: &[ReportedCall],
    cfg: &Config,
    deadline: Instant,
) -> Digest {
    // Read back to the session's start (D089), within half the budget: the judge needs the
    // rest. A read cut short still serves, its facts' reach short of the start.
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline.checked_sub(cfg.budget / 2).unwrap_or(deadline)),
    };
    let part = pipeline::part_after_save(path, saved.transcript_len);
    match pipeline::build_deep(path, part, limits, calls) {
        Ok(b)
            if !b.extraction.is_empty()
                && (!b.stats.hit_deadline || b.extraction.searched.enough) =>
        {
            debug(cfg.debug, || {
                format!(
                    "evidence read again up to this compaction: {} open items; facts: {}",
                    b.extraction.open_work().1.len(),
                    b.extraction.facts.described()
                )
            });
            saved
                .clone()
                .with_evidence_of(Digest::of(&b.extraction, b.stats.format, true))
        }
        Ok(_) => saved.clone(),
        Err(e) => {
            debug(cfg.debug, || format!("evidence not read again: {e:#}"));
            saved.clone()
        }
    }
}

/// The PostCompact line in Claude Code, whose restore has already told the user what it handed
/// over: what the summary got wrong, or that it kept what was saved (an empty output shows as a
/// bare "completed successfully" after a manual `/compact`, issue #39), or, when no snapshot
/// reached the model, why. `None` when there is nothing to compare (a repeated audit, a summary
/// Claude Code did not send).
fn claude_line(
    digest: Option<&Digest>,
    restored: Restored,
    findings: Option<&Findings>,
    evidence: &Evidence,
    told: bool,
) -> Option<String> {
    match (restored, digest) {
        (Restored::Snapshot, Some(_)) => {
            findings.and_then(|f| f.verdict(told).or_else(|| f.kept()))
        }
        (Restored::Snapshot, None) => None,
        _ => Some(message(digest, restored, findings, evidence, told)),
    }
}
