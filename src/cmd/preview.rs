//! `preview`: what restore would print for a transcript, or the structured extraction, for people
//! debugging. Unlike the hooks it reports errors with a non-zero exit.

use crate::config::Config;
use crate::extract::{Extraction, extract};
use crate::render::{Meta, Source, render};
use crate::transcript::{self, Limits, ScanStats};
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
    let scan = transcript::scan(transcript, limits)?;
    let ex = extract(&scan.records);
    if json {
        serde_json::to_writer_pretty(
            &mut *out,
            &PreviewJson {
                extraction: &ex,
                scan: &scan.stats,
            },
        )?;
        writeln!(out)?;
        return Ok(());
    }
    if ex.is_empty() {
        bail!(
            "no prompt typed by the user in {}: save would write no snapshot",
            transcript.display()
        );
    }
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: None,
        cwd: None,
        git_branch: None,
        focus: None,
        source: Source::Saved,
    };
    out.write_all(render(&ex, &meta).as_bytes())?;
    Ok(())
}
