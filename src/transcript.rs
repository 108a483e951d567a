//! Reads a transcript backwards, newest line first, feeding a [`Fold`] until it is satisfied, the
//! file starts, or the deadline passes. It knows nothing of what is extracted: the fold says what
//! it still wants, and each line is triaged from its raw bytes ([`record::triage`]) so that the
//! lines that cannot matter (most of a long session: tool results, attachments, bookkeeping) cost
//! a few byte searches, not a JSON parse. Only regular files are read, opened without blocking,
//! so a FIFO or a device path can never hang a hook. Memory is the reader's chunk and line buffers
//! plus whatever the fold keeps.

use crate::record::{self, Link, Record, Triage, Wants, parse_line};
use crate::tail::TailReader;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::fs::File;
use std::path::Path;
use std::time::Instant;

/// What the reader feeds, newest first.
pub trait Fold {
    /// What kinds of line still matter.
    fn wants(&self) -> Wants;
    /// A parsed record.
    fn record(&mut self, rec: Record);
    /// A line reduced to its place in the parent chain.
    fn link(&mut self, link: Link);
    /// How many bytes from the end have been read (after each chunk).
    fn scanned(&mut self, bytes: u64);
    /// Whether reading further back can change nothing.
    fn satisfied(&self) -> bool;
}

/// Bounds on one scan.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// Never read more than this many bytes (`None`: to the start of the file).
    pub max_bytes: Option<u64>,
    /// Stop reading after this instant.
    pub deadline: Option<Instant>,
}

/// What a scan read, for debugging (`preview --json`, `COMPACT_GUARDIAN_DEBUG`).
#[derive(Debug, Default, Clone, Serialize)]
pub struct ScanStats {
    /// The transcript's size.
    pub file_bytes: u64,
    /// Bytes read from its end.
    pub bytes_scanned: u64,
    /// Lines parsed as JSON.
    pub parsed_lines: u64,
    /// Lines reduced to their parent link from raw bytes.
    pub link_lines: u64,
    /// Lines skipped from raw bytes.
    pub skipped_unparsed: u64,
    /// Lines that did not parse (damaged, truncated, not objects) and were skipped.
    pub skipped_lines: u64,
    /// Lines over the size limit, skipped unread.
    pub oversized_lines: u64,
    /// The scan reached the start of the file.
    pub reached_start: bool,
    /// The scan stopped at its deadline.
    pub hit_deadline: bool,
}

/// Opens `path` for reading only if it is a regular file, without ever blocking on a FIFO.
pub fn open_regular(path: &Path) -> Result<File> {
    if path.as_os_str().is_empty() {
        bail!("no transcript path given");
    }
    let meta = std::fs::metadata(path)
        .with_context(|| format!("could not stat transcript {}", path.display()))?;
    if !meta.is_file() {
        bail!("transcript {} is not a regular file", path.display());
    }
    // Non-blocking: if the path was swapped for a FIFO after the check, open still returns at once.
    let file = crate::platform::open_nonblocking(path)
        .with_context(|| format!("could not open transcript {}", path.display()))?;
    if !file.metadata()?.is_file() {
        bail!("transcript {} is not a regular file", path.display());
    }
    Ok(file)
}

/// Reads `path` backwards into `fold` within `limits`.
pub fn scan(path: &Path, limits: Limits, fold: &mut impl Fold) -> Result<ScanStats> {
    let file = open_regular(path)?;
    let mut reader = TailReader::from_file(file)
        .with_context(|| format!("could not read transcript {}", path.display()))?;
    let file_bytes = reader.remaining();
    let mut stats = ScanStats {
        file_bytes,
        ..ScanStats::default()
    };
    loop {
        // What is wanted only shrinks; asking once a chunk keeps the per-line cost to the triage.
        let wants = fold.wants();
        let more = reader
            .read_chunk(|line| {
                if line.iter().all(u8::is_ascii_whitespace) {
                    return;
                }
                match record::triage(line, wants) {
                    Triage::Skip => stats.skipped_unparsed += 1,
                    Triage::Link(link) => {
                        stats.link_lines += 1;
                        fold.link(link);
                    }
                    Triage::Parse => {
                        stats.parsed_lines += 1;
                        match parse_line(line) {
                            Some(rec) => fold.record(rec),
                            None => stats.skipped_lines += 1,
                        }
                    }
                }
            })
            .with_context(|| format!("could not read transcript {}", path.display()))?;
        stats.bytes_scanned = file_bytes - reader.remaining();
        fold.scanned(stats.bytes_scanned);
        if !more {
            stats.reached_start = true;
            break;
        }
        if fold.satisfied()
            || limits
                .max_bytes
                .is_some_and(|max| stats.bytes_scanned >= max)
        {
            break;
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            stats.hit_deadline = true;
            break;
        }
    }
    stats.oversized_lines = reader.oversized_lines();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Extractor, Part};
    use std::io::Write;

    fn prompt(i: usize) -> String {
        format!(r#"{{"type":"user","uuid":"p{i}","message":{{"content":"prompt {i}"}}}}"#)
    }

    fn filler(bytes: usize) -> String {
        let pad = "z".repeat(bytes.saturating_sub(80));
        format!(r#"{{"type":"attachment","attachment":{{"type":"x","data":"{pad}"}}}}"#)
    }

    #[test]
    fn extends_past_the_recent_window_to_find_prompts() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for i in 0..5 {
            writeln!(f, "{}", prompt(i)).unwrap();
            for _ in 0..30 {
                writeln!(f, "{}", filler(100_000)).unwrap();
            }
        }
        let mut ex = Extractor::new(Part::Whole);
        let stats = scan(f.path(), Limits::default(), &mut ex).unwrap();
        assert!(stats.reached_start);
        assert_eq!(ex.finish(Default::default()).instructions.len(), 5);
    }

    #[test]
    fn max_bytes_limits_the_scan() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "{}", prompt(0)).unwrap();
        for _ in 0..60 {
            writeln!(f, "{}", filler(100_000)).unwrap();
        }
        let l = Limits {
            max_bytes: Some(3 * 1024 * 1024),
            deadline: None,
        };
        let s = scan(f.path(), l, &mut Extractor::new(Part::Whole)).unwrap();
        assert!(s.bytes_scanned <= 4 * 1024 * 1024);
        assert!(!s.reached_start);
    }

    #[test]
    fn non_regular_files_are_refused() {
        let mut ex = Extractor::new(Part::Whole);
        assert!(scan(Path::new("/"), Limits::default(), &mut ex).is_err());
        assert!(scan(Path::new("/dev/zero"), Limits::default(), &mut ex).is_err());
        assert!(scan(Path::new(""), Limits::default(), &mut ex).is_err());
    }
}
