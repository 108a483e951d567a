//! The one way a snapshot is built from a transcript, for all three commands: scan backwards
//! into the extraction fold, then render. Each command adds only its I/O and policy.

use crate::extract::{Extraction, Extractor, Part, Searched};
use crate::read::reported::ReportedCall;
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
    build_with_calls(path, part, limits, &[])
}

/// [`build`], told first the tool calls the session's hooks reported (`calls`, oldest first:
/// its ledger, D083), which the transcript may not hold yet.
pub fn build_with_calls(
    path: &Path,
    part: Part,
    limits: Limits,
    calls: &[ReportedCall],
) -> Result<Built> {
    // Read before the transcript: a write in between makes a call both reported and written,
    // which the fold counts once. Without reported calls it is not needed.
    let written = (!calls.is_empty())
        .then(|| std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .flatten();
    let fold = Extractor::new(part).with_reported_calls(calls, written);
    build_with(path, fold, limits)
}

/// [`build_with_calls`] with the facts read back to the session's start (the audit's reach,
/// D089): what only an absence can prove ("no commit ran") is known only then. Reading stops at
/// `limits` as ever; the facts then do not reach the start, and say so.
pub fn build_deep(
    path: &Path,
    part: Part,
    limits: Limits,
    calls: &[ReportedCall],
) -> Result<Built> {
    let written = (!calls.is_empty())
        .then(|| std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .flatten();
    let fold = Extractor::new(part)
        .deep()
        .with_reported_calls(calls, written);
    build_with(path, fold, limits)
}

/// The most bytes written after `save` that [`part_after_save`] reads: results and a
/// compaction's own records are a few hundred KB at most.
const MAX_APPENDED: u64 = 8 * 1024 * 1024;

/// Which part of the transcript at `path` holds the conversation the compaction that `save`
/// read up to `saved_len` bytes summarized, read again after it: the whole record when nothing
/// written since marks a compaction (the newest boundary, if any, is an earlier compaction's,
/// however long the agent went on after it without a prompt), else what precedes this
/// compaction's own boundary ([`Part::Compacted`], D006). Unknown (no length, the file cut or
/// grown past `MAX_APPENDED`): [`Part::Compacted`].
pub fn part_after_save(path: &Path, saved_len: Option<u64>) -> Part {
    use std::io::{Read, Seek, SeekFrom};
    let read = || -> Option<Vec<u8>> {
        let saved = saved_len?;
        // The transcript reader's open: a FIFO or a device put at the path after the save is
        // refused at once, never waited on until the watchdog (issue #55).
        let mut file = crate::read::transcript::open_regular(path).ok()?;
        let len = file.metadata().ok()?.len();
        if len < saved || len - saved > MAX_APPENDED {
            return None;
        }
        file.seek(SeekFrom::Start(saved)).ok()?;
        let mut appended = Vec::new();
        file.take(len - saved).read_to_end(&mut appended).ok()?;
        Some(appended)
    };
    // Claude Code's boundary, Codex's `compacted` line, OpenCode's compaction part.
    let marks = |bytes: &[u8]| {
        [&b"compact_boundary"[..], b"\"compacted\"", b"compaction"]
            .iter()
            .any(|m| memchr::memmem::find(bytes, m).is_some())
    };
    match read() {
        Some(appended) if !marks(&appended) => Part::Whole,
        _ => Part::Compacted,
    }
}

/// [`build`] with a prepared fold (tests use a small recent window).
pub fn build_with(path: &Path, mut fold: Extractor, limits: Limits) -> Result<Built> {
    let stats = transcript::scan(path, limits, &mut fold)?;
    let enough = fold.enough();
    let mut extraction = fold.finish(Searched {
        bytes: stats.bytes_scanned,
        whole_file: stats.reached_start,
        out_of_time: stats.hit_deadline,
        enough,
    });
    extraction.transcript = Some(path.to_string_lossy().into_owned());
    Ok(Built { extraction, stats })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An autonomous session: its newest boundary is an earlier compaction's, and the agent went
    /// on without a prompt. Read again after this compaction's save, the whole record counts
    /// until this compaction writes its own boundary.
    #[test]
    fn a_boundary_written_before_the_save_is_an_earlier_compactions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let before =
            "{\"type\":\"system\",\"subtype\":\"compact_boundary\"}\n{\"type\":\"assistant\"}\n";
        std::fs::write(&path, before).unwrap();
        let saved = Some(before.len() as u64);
        assert_eq!(part_after_save(&path, saved), Part::Whole);
        let late_result = format!("{before}{{\"type\":\"user\"}}\n");
        std::fs::write(&path, &late_result).unwrap();
        assert_eq!(part_after_save(&path, saved), Part::Whole);
        let own =
            format!("{late_result}{{\"type\":\"system\",\"subtype\":\"compact_boundary\"}}\n");
        std::fs::write(&path, own).unwrap();
        assert_eq!(part_after_save(&path, saved), Part::Compacted);
        // Unknown: as before.
        assert_eq!(part_after_save(&path, None), Part::Compacted);
        assert_eq!(part_after_save(&path, Some(1 << 40)), Part::Compacted);
    }
}
