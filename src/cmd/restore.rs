//! `restore`: the SessionStart(compact) hook. Prints the session's fresh snapshot exactly once;
//! without a usable one (none saved, stale, not ours, or the folder unusable), rebuilds the context
//! from the transcript part that was just compacted ([`Part::Compacted`]).

use super::hook::{self, Hook};
use crate::cmd::failopen::debug;
use crate::extract::Part;
use crate::extract::digest::{Digest, MAX_DIGEST_BYTES};
use crate::input::client::{Client, Handover, RESTORE_EVENT, Reply, json_answer};
use crate::input::config::Config;
use crate::pipeline;
use crate::read::transcript::Limits;
use crate::render::audit::restore_line;
use crate::render::{Meta, Source, WhyRebuilt};
use crate::store::history::{self, Outcome};
use crate::store::{Pending, Snapshots, Taken};
use anyhow::{Result, anyhow};
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// A snapshot restored this recently means this run is a duplicate hook, not a new compaction.
const DUPLICATE_HOOK_WINDOW: Duration = Duration::from_secs(60);
/// A snapshot restored this recently belongs to the compaction a later restore runs for: a
/// rebuild then says so instead of "no snapshot was saved".
const RESTORED_THIS_COMPACTION: Duration = Duration::from_secs(15 * 60);

/// Reads hook input from `input` and prints the session's context to `out`.
pub fn restore(
    input: impl Read,
    cfg: &Config,
    text: bool,
    deadline: Instant,
    out: &mut impl Write,
) -> Result<()> {
    let started = Instant::now();
    let hook = hook::begin(input, cfg)?;
    let client = hook.client();
    if client.handover() == Handover::InBoundContext {
        // OpenCode asks at every request after a compaction, naming it (D052).
        return super::opencode::restore(&hook, cfg, deadline, out);
    }
    if hook.input.source.as_deref() == Some("resume") && !resumes_a_deferred_restore(&hook) {
        return Ok(()); // a resumed session is no compaction (Claude Code, or nothing waiting)
    }
    let reply = reply(&hook, client, text);
    // Corrections of the summary found by an audit that ran first (Codex runs PostCompact
    // before this hook): they go at the top of whatever is printed.
    let corrections = hook
        .snapshots
        .as_ref()
        .ok()
        .and_then(|s| s.take_corrections());
    // `problem`: what went wrong with the snapshot folder, reported after the rebuild had its
    // chance.
    let (taken, problem) = print_snapshot(&hook, cfg, deadline, reply, corrections.as_ref(), out);
    let why = rebuild_reason(&hook, taken.as_ref(), cfg);
    let rebuilt = match why {
        Some(why) => rebuild(&hook, cfg, deadline, why, corrections.as_ref(), reply, out),
        None => Ok(false),
    };
    if let Ok(snaps) = &hook.snapshots {
        let attempt = Attempt {
            taken: taken.as_ref(),
            rebuilt: matches!(rebuilt, Ok(true)),
            why,
            started,
        };
        finish(&hook, snaps, corrections, attempt, cfg, deadline);
    }
    rebuilt?;
    if let (Some(Taken::Refused(why)), Ok(snaps)) = (&taken, &hook.snapshots) {
        return Err(anyhow!("ignored {}: {why}", snaps.path().display()));
    }
    problem.map_or(Ok(()), Err)
}

/// How the context is printed: as the client reads it, or as text for a person (`--text`, a
/// terminal).
fn reply(hook: &Hook, client: Client, text: bool) -> Reply {
    match client.restore_reply(hook.input.hook_event_name.as_deref()) {
        Reply::Json if !text && !std::io::stdout().is_terminal() => Reply::Json,
        _ => Reply::Text,
    }
}

/// The context as `reply` writes it: in the JSON form, with the user's `line`.
fn framed(reply: Reply, text: &str, line: &str) -> String {
    match reply {
        Reply::Text => text.to_owned(),
        Reply::Json => format!("{}\n", json_answer(RESTORE_EVENT, Some(text), Some(line))),
    }
}

/// Why the context is to be rebuilt, or `None` when the model already has the saved context:
/// printed here, or by a restore racing this one, or by a duplicate hook moments ago (a rebuilt
/// copy would only repeat it). The session's restored marker is read once, and only when
/// nothing was printed here.
fn rebuild_reason(hook: &Hook, taken: Option<&Taken>, cfg: &Config) -> Option<WhyRebuilt> {
    if matches!(taken, Some(Taken::Printed | Taken::TakenByOther)) {
        return None;
    }
    let restored_ago = hook
        .snapshots
        .as_ref()
        .ok()
        .and_then(Snapshots::restored_ago);
    if restored_ago.is_some_and(|a| a <= DUPLICATE_HOOK_WINDOW) {
        debug(cfg.debug, || {
            format!(
                "nothing printed: a restore {} s ago already handed this compaction's snapshot over (a duplicate hook)",
                restored_ago.map_or(0, |a| a.as_secs())
            )
        });
        return None;
    }
    Some(why_rebuilt(hook, taken, restored_ago))
}

/// What this restore attempted, for what follows it.
struct Attempt<'a> {
    /// What became of the saved snapshot (`None`: the folder could not be used).
    taken: Option<&'a Taken>,
    /// A rebuilt context was printed.
    rebuilt: bool,
    /// Why it was rebuilt (`None`: the model already had the saved context).
    why: Option<WhyRebuilt>,
    started: Instant,
}

/// What follows the printing: corrections nothing printed could carry kept for the `correct`
/// hook, the history entry completed, stale files removed.
fn finish(
    hook: &Hook,
    snaps: &Snapshots,
    corrections: Option<Pending>,
    attempt: Attempt,
    cfg: &Config,
    deadline: Instant,
) {
    // The corrections went with what was printed here (Codex: issue #41 item 4).
    let printed = matches!(attempt.taken, Some(Taken::Printed)) || attempt.rebuilt;
    let carried = corrections.is_some() && printed;
    if let Some(c) = corrections.filter(|_| !printed) {
        // Nothing was printed that could carry them: kept for the `correct` hook.
        let _ = snaps.save_corrections(&c);
    }
    let already_restored = attempt.why.is_none();
    if let Some(outcome) = outcome(attempt.taken, attempt.rebuilt, already_restored) {
        let done = Done {
            outcome,
            why: attempt.why,
            carried,
            started: attempt.started,
        };
        record(hook, snaps, done, cfg, deadline);
    }
    hook::remove_stale(snaps, deadline, cfg);
}

/// Prints the session's fresh snapshot, when there is one, with the corrections at its top and
/// brought up to the compaction if the record grew after `save` read it. What became of the
/// snapshot, or what went wrong with the folder.
fn print_snapshot(
    hook: &Hook,
    cfg: &Config,
    deadline: Instant,
    reply: Reply,
    corrections: Option<&Pending>,
    out: &mut impl Write,
) -> (Option<Taken>, Option<anyhow::Error>) {
    let digest: Option<Digest> = hook
        .snapshots
        .as_ref()
        .ok()
        .and_then(|s| s.peek_digest(MAX_DIGEST_BYTES))
        .and_then(|b| Digest::read(&b));
    // What the record gained after `save` read it (a result Claude Code wrote while PreCompact
    // ran) belongs in the snapshot: rendered again from the record up to the compaction.
    let updated = digest
        .as_ref()
        .and_then(|d| up_to_the_compaction(hook, d, cfg, deadline));
    let digest = digest.filter(|_| reply == Reply::Json);
    let (taken, problem) = match &hook.snapshots {
        Ok(snaps) => match snaps.take_fresh(|text| {
            let text = updated.as_deref().unwrap_or(text);
            let text = match corrections {
                Some(c) => crate::corrections::inserted(text, &c.section),
                None => text.to_owned(),
            };
            let line = restore_line(digest.as_ref(), None);
            out.write_all(framed(reply, &text, &line).as_bytes())?;
            out.flush()
        }) {
            Ok(taken) => (Some(taken), None),
            Err(e) => (None, Some(e)),
        },
        Err(e) => (None, Some(anyhow!("{e:#}"))),
    };
    debug(cfg.debug, || match &taken {
        Some(t) => t.said(),
        None => "the snapshot folder could not be used".to_owned(),
    });
    (taken, problem)
}

/// Why there is nothing to print (asked only when a rebuild follows), as the rebuilt header, the
/// history and the audit say it.
fn why_rebuilt(hook: &Hook, taken: Option<&Taken>, restored_ago: Option<Duration>) -> WhyRebuilt {
    match (taken, &hook.snapshots) {
        (Some(Taken::Stale), _) => WhyRebuilt::Expired,
        (Some(Taken::Refused(_)), _) => WhyRebuilt::NotOurs,
        (None, _) => WhyRebuilt::FolderUnusable,
        // Printed earlier for this compaction: a restore run again, past the moment a duplicate
        // hook is recognised.
        _ if restored_ago.is_some_and(|a| a <= RESTORED_THIS_COMPACTION) => {
            WhyRebuilt::AlreadyRestored
        }
        // No snapshot: in a folder that cannot be written, save could not have left one.
        (_, Ok(snaps)) if snaps.store().write_problem().is_some() => WhyRebuilt::FolderUnusable,
        _ => WhyRebuilt::NotSaved,
    }
}

/// What the history records for this restore; `None` for a duplicate hook (already restored by
/// another run), which leaves the entry as it is.
fn outcome(taken: Option<&Taken>, rebuilt: bool, already_restored: bool) -> Option<Outcome> {
    match (taken, rebuilt) {
        (Some(Taken::Printed), _) => Some(Outcome::Snapshot),
        (_, true) => Some(Outcome::Rebuilt),
        _ if already_restored => None,
        _ => Some(Outcome::Nothing),
    }
}

/// What this restore did, for the history.
struct Done {
    outcome: Outcome,
    why: Option<WhyRebuilt>,
    /// The corrections reached the model with what was printed.
    carried: bool,
    started: Instant,
}

/// Completes this compaction's history entry with what the restore did.
fn record(hook: &Hook, snaps: &Snapshots, done: Done, cfg: &Config, deadline: Instant) {
    let Done {
        outcome,
        why,
        carried,
        started,
    } = done;
    let session = hook.input.session_id.as_deref().unwrap_or_default();
    let step = history::Step::Complete;
    let recorded = history::record(snaps.store(), session, step, deadline, |e| {
        e.restore_time = Some(history::now());
        if carried {
            e.corrected_time = Some(history::now());
        }
        if e.restored == Some(Outcome::Snapshot) {
            return; // a restore run again: the compaction's snapshot was restored
        }
        e.restored = Some(outcome);
        e.restore_ms = Some(started.elapsed().as_millis() as u64);
        e.rebuilt_because = why.filter(|_| outcome != Outcome::Snapshot);
    });
    if let Err(e) = recorded {
        debug(cfg.debug, || format!("history not updated: {e:#}"));
    }
}

/// Whether a `resume` start should restore: Codex runs SessionStart(`compact`) only at the next
/// turn, so a session compacted with `/compact`, quit and resumed starts with `resume` instead,
/// and its snapshot still waits (D026). Only a snapshot the audit marked as deferred counts; a
/// Claude Code session never has one.
fn resumes_a_deferred_restore(hook: &Hook) -> bool {
    hook.snapshots
        .as_ref()
        .is_ok_and(|s| s.has_deferred_snapshot())
}

/// The snapshot rendered again from the record up to this compaction, when the transcript of a
/// client that writes after PreCompact (Claude Code) grew after `save` read it (`None`: it did not, or it cannot be read in time: the
/// saved snapshot is printed as it is).
fn up_to_the_compaction(
    hook: &Hook,
    saved: &Digest,
    cfg: &Config,
    deadline: Instant,
) -> Option<String> {
    let path = hook.input.transcript_path.as_deref().map(Path::new)?;
    let len = std::fs::metadata(path).ok()?.len();
    if !hook.client().writes_after_precompact() || len <= saved.transcript_len? {
        return None;
    }
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let part = pipeline::part_after_save(path, saved.transcript_len);
    let built = pipeline::build_with_calls(path, part, limits, &hook.reported_calls()).ok()?;
    if built.stats.hit_deadline {
        return None;
    }
    debug(cfg.debug, || {
        format!(
            "the transcript grew by {} bytes after save: the snapshot is brought up to the compaction ({})",
            len - saved.transcript_len.unwrap_or(len),
            built.stats.summary()
        )
    });
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: saved.trigger.clone(),
        cwd: hook.input.cwd.clone(),
        git_branch: None,
        focus: saved.focus.clone(),
        source: Source::Updated,
    };
    built.render(&meta)
}

/// The fallback: no usable snapshot, so extract from the conversation that was just compacted.
/// Whether anything was printed.
fn rebuild(
    hook: &Hook,
    cfg: &Config,
    deadline: Instant,
    why: WhyRebuilt,
    corrections: Option<&Pending>,
    reply: Reply,
    out: &mut impl Write,
) -> Result<bool> {
    let input = &hook.input;
    if input.source.as_deref().is_some_and(|s| s != "compact") {
        return Ok(false); // not after a compaction: nothing to restore
    }
    let Some(path) = input.transcript_path.as_deref() else {
        return Ok(false);
    };
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let built = pipeline::build_with_calls(
        Path::new(path),
        Part::Compacted,
        limits,
        &hook.reported_calls(),
    )?;
    debug(cfg.debug, || format!("rebuild: {}", built.stats.summary()));
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: None,
        cwd: input.cwd.clone(),
        git_branch: None,
        focus: None,
        source: Source::Rebuilt(why),
    };
    let Some(text) = built.render(&meta) else {
        return Ok(false);
    };
    let text = match corrections {
        Some(c) => crate::corrections::inserted(&text, &c.section),
        None => text,
    };
    out.write_all(framed(reply, &text, &restore_line(None, Some(why))).as_bytes())?;
    out.flush()?;
    Ok(true)
}
