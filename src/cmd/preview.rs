//! `preview`: what restore would print for a transcript, or the structured extraction, for people
//! debugging. Unlike the hooks it reports errors with a non-zero exit, and reads without a time
//! budget.

use crate::extract::{Extraction, Part};
use crate::input::config::Config;
use crate::pipeline;
use crate::read::transcript::{Limits, ScanStats};
use crate::render::{Meta, Source};
use anyhow::{Result, bail};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

#[derive(Serialize)]
struct PreviewJson<'a> {
    #[serde(flatten)]
    extraction: &'a Extraction,
    scan: &'a ScanStats,
}

/// Prints the snapshot text (or, with `json`, the extraction) for `transcript` to `out`.
pub fn preview(transcript: &Path, json: bool, cfg: &Config, out: &mut impl Write) -> Result<()> {
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: None,
    };
    let built = pipeline::build(transcript, Part::Whole, limits)?;
    if json {
        serde_json::to_writer_pretty(
            &mut *out,
            &PreviewJson {
                extraction: &built.extraction,
                scan: &built.stats,
            },
        )?;
        writeln!(out)?;
        return Ok(());
    }
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: None,
        cwd: None,
        git_branch: None,
        focus: None,
        source: Source::Saved,
    };
    let Some(text) = built.render(&meta) else {
        bail!(
            "nothing to report in {}: save would write no snapshot",
            transcript.display()
        );
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}
