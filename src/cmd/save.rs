//! `save`: the PreCompact hook. Hook JSON in, snapshot file out, summarizer directive on stdout.

use super::hook;
use crate::config::Config;
use crate::extract::extract;
use crate::failopen::debug;
use crate::render::{Meta, Source, render};
use crate::steer::directive;
use crate::transcript::{self, Limits};
use anyhow::{Context, Result, anyhow};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Instant, SystemTime};

/// Reads hook input from `input`, snapshots the transcript it names, and prints the summarizer
/// directive to `out` (unless steering is off). Stops reading the transcript at `deadline`.
/// Without a usable snapshot folder it still steers, and reports the folder afterwards.
pub fn save(input: impl Read, cfg: &Config, deadline: Instant, out: &mut impl Write) -> Result<()> {
    let hook = hook::begin(input, cfg)?;
    if let Ok(snaps) = &hook.snapshots {
        match snaps.store().remove_stale(Some(deadline)) {
            Ok(n) => debug(cfg.debug, || {
                format!(
                    "removed {n} stale file(s) in {}",
                    snaps.store().dir().display()
                )
            }),
            Err(e) => debug(cfg.debug, || format!("stale cleanup failed: {e:#}")),
        }
    }
    let path = hook
        .input
        .transcript_path
        .as_deref()
        .context("hook input has no transcript_path")?;
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let scan = transcript::scan(Path::new(path), limits)?;
    debug(cfg.debug, || format!("scan: {:?}", scan.stats));
    let ex = extract(&scan.records);
    let snaps = hook.snapshots.map_err(|e| anyhow!("{e:#}"));
    if ex.is_empty() {
        // Nothing the user typed: no snapshot, and no older one left to be restored instead.
        snaps?.remove()?;
        debug(cfg.debug, || {
            "no genuine user prompt found: no snapshot written".to_owned()
        });
        return Ok(());
    }
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: hook.input.trigger.clone(),
        cwd: hook.input.cwd.clone(),
        git_branch: None,
        focus: hook.input.custom_instructions.clone(),
        source: Source::Saved,
    };
    let text = render(&ex, &meta);
    let written = snaps.and_then(|s| s.save(&text));
    if let Ok(dest) = &written {
        debug(cfg.debug, || {
            format!("wrote {} ({} bytes)", dest.display(), text.len())
        });
    }
    if cfg.steer
        && let Some(d) = directive(&ex)
    {
        out.write_all(d.as_bytes())
            .context("could not print the summarizer directive")?;
        out.flush()
            .context("could not print the summarizer directive")?;
    }
    written.map(drop)
}
