//! `save`: the PreCompact hook. Hook JSON in, snapshot file out, summarizer directive on stdout.

use super::hook;
use crate::cmd::failopen::debug;
use crate::extract::Part;
use crate::extract::digest::Digest;
use crate::input::client::Client;
use crate::input::config::Config;
use crate::input::hook_input::HookInput;
use crate::pipeline::{self, Built};
use crate::read::transcript::Limits;
use crate::render::steer::directive;
use crate::render::{Meta, Source};
use crate::store::{Snapshots, history};
use crate::text::{folded_line, utf16_len};
use anyhow::{Context, Result};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Instant, SystemTime};

/// Reads hook input from `input`, snapshots the transcript it names, and prints the summarizer
/// directive to `out` (unless steering is off). Everything, cleanup included, stops at `deadline`
/// and uses what it has. Without a usable snapshot folder it still steers, and reports the folder
/// afterwards.
pub fn save(input: impl Read, cfg: &Config, deadline: Instant, out: &mut impl Write) -> Result<()> {
    let started = Instant::now();
    let hook = hook::begin(input, cfg)?;
    let path = hook
        .input
        .transcript_path
        .as_deref()
        .context("hook input has no transcript_path")?;
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let built =
        pipeline::build_with_calls(Path::new(path), Part::Whole, limits, &hook.reported_calls())?;
    debug(cfg.debug, || built.stats.summary());
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: hook.input.trigger.clone(),
        cwd: hook.input.cwd.clone(),
        git_branch: None,
        focus: hook.input.custom_instructions.clone(),
        source: Source::Saved,
    };
    let rendered = built.render(&meta);
    let units = rendered.as_deref().map_or(0, utf16_len);
    let written = write(hook.snapshots, rendered.as_deref(), cfg);
    if cfg.steer {
        steer(&built, out)?;
    }
    if let Ok(snaps) = &written {
        // Corrections still waiting are about an earlier summary: this compaction replaces it.
        snaps.drop_corrections();
        keep_digest(&hook.input, snaps, &built, units, cfg);
        record(&hook.input, snaps, &built, units, started, deadline, cfg);
        hook::remove_stale(snaps, deadline, cfg);
    }
    written.map(drop)
}

/// Writes the snapshot `text` into the folder; with none, removes any older one, which would
/// be restored instead. A folder that cannot be written loses its older snapshot and digest too.
fn write(snapshots: Result<Snapshots>, text: Option<&str>, cfg: &Config) -> Result<Snapshots> {
    let snaps = snapshots?;
    let Some(text) = text else {
        // Nothing at all to report: no snapshot, and no older one left to be restored instead.
        debug(cfg.debug, || {
            "nothing to report: no snapshot written".to_owned()
        });
        snaps.remove()?;
        return Ok(snaps);
    };
    match snaps.save(text) {
        Ok(dest) => {
            debug(cfg.debug, || {
                format!("wrote {} ({} bytes)", dest.display(), text.len())
            });
            Ok(snaps)
        }
        Err(e) => {
            // A full disk, a file-size limit: an earlier compaction's snapshot and digest must
            // not be restored and audited as this one's (issue #41).
            snaps.discard();
            Err(e)
        }
    }
}

/// Prints the summarizer's directive, when the transcript's client takes one: the transcript
/// read says whose it is (the OpenCode plugin names no client at save), as the digest records.
fn steer(built: &Built, out: &mut impl Write) -> Result<()> {
    if !Client::from(built.stats.format).steers_summary() {
        return Ok(());
    }
    let Some(d) = directive(&built.extraction) else {
        return Ok(());
    };
    out.write_all(d.as_bytes())
        .context("could not print the summarizer directive")?;
    out.flush()
        .context("could not print the summarizer directive")
}

/// Keeps what the PostCompact audit compares the summary with.
fn keep_digest(input: &HookInput, snaps: &Snapshots, built: &Built, units: usize, cfg: &Config) {
    let digest = Digest {
        transcript_len: Some(built.stats.file_bytes),
        trigger: input.trigger.clone(),
        focus: input.custom_instructions.clone(),
        ..Digest::of(&built.extraction, built.stats.format, units > 0)
    }
    .bounded();
    if let Err(e) = serde_json::to_vec(&digest)
        .map_err(anyhow::Error::from)
        .and_then(|b| snaps.save_digest(&b))
    {
        // An older digest would hold the summary to an older compaction's work.
        snaps.drop_digest();
        debug(cfg.debug, || format!("digest not kept: {e:#}"));
    }
}

/// Adds this compaction's entry to the history.
fn record(
    input: &HookInput,
    snaps: &Snapshots,
    built: &Built,
    units: usize,
    started: Instant,
    deadline: Instant,
    cfg: &Config,
) {
    let session = input.session_id.as_deref().unwrap_or_default();
    let recorded = history::record(snaps.store(), session, history::Step::Save, deadline, |e| {
        e.trigger = input.trigger.as_deref().map(|t| folded_line(t, 20));
        e.save_ran = true;
        e.saved = units > 0;
        e.snapshot_units = units;
        e.save_ms = started.elapsed().as_millis() as u64;
        e.scanned_bytes = built.stats.bytes_scanned;
    });
    if let Err(e) = recorded {
        debug(cfg.debug, || format!("history not updated: {e:#}"));
    }
}
