//! The one way a snapshot is built from a transcript, for all three commands: scan backwards
//! into the extraction fold, then render. Each command adds only its I/O and policy.

use crate::extract::{Extraction, Extractor, Part, Searched};
use crate::read::transcript::{self, Limits, ScanStats};
use crate::render::{Meta, render};
use anyhow::Result;
use std::path::Path;

/// What was extracted from a transcript, and what reading it took.
#[derive(Debug)]
pub struct Built {
    /// The extraction.
    pub extraction: Extraction,
    /// How the scan went.
    pub stats: ScanStats,
}

impl Built {
    /// The snapshot text, or `None` when there is nothing at all to report.
    pub fn render(&self, meta: &Meta) -> Option<String> {
        (!self.extraction.is_empty()).then(|| render(&self.extraction, meta))
    }
}

/// Reads `part` of the transcript at `path` within `limits` and extracts what the agent needs.
pub fn build(path: &Path, part: Part, limits: Limits) -> Result<Built> {
    build_with(path, Extractor::new(part), limits)
}

/// [`build`] with a prepared fold (tests use a small recent window).
pub fn build_with(path: &Path, mut fold: Extractor, limits: Limits) -> Result<Built> {
    let stats = transcript::scan(path, limits, &mut fold)?;
    let mut extraction = fold.finish(Searched {
        bytes: stats.bytes_scanned,
        whole_file: stats.reached_start,
        out_of_time: stats.hit_deadline,
    });
    extraction.transcript = Some(path.to_string_lossy().into_owned());
    Ok(Built { extraction, stats })
}
