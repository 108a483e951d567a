//! Reads the records a snapshot needs from a transcript file: the tail, extended backwards only as
//! far as needed.
//!
//! The scan starts with the last [`MIN_WINDOW`] bytes (the original plugin's whole window). While
//! that holds fewer than five genuine prompts, or no task-list state, it keeps reading backwards up
//! to a cap, so prompts separated by megabytes of tool output are still found. It also stops at a
//! deadline, keeping what it has. Only regular files are read, opened without blocking, so a FIFO
//! or a device path can never hang a hook.

use crate::extract::{CHECKLIST_MESSAGES, MAX_INSTRUCTIONS};
use crate::genuine::prompt_text;
use crate::record::{Kind, Record, can_skip, parse_line};
use crate::tail::TailReader;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::fs::File;
use std::path::Path;
use std::time::Instant;

/// The window always read (when the file is that long): the original plugin's 2 MiB.
pub const MIN_WINDOW: u64 = 2 * 1024 * 1024;

/// Bounds on one scan.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Never read more than this many bytes (at least [`MIN_WINDOW`] is read when available).
    pub max_bytes: u64,
    /// Stop extending the window after this instant.
    pub deadline: Option<Instant>,
}

/// What a scan read, for debugging (`preview --json`, `COMPACT_GUARDIAN_DEBUG`).
#[derive(Debug, Default, Clone, Serialize)]
pub struct ScanStats {
    /// The transcript's size.
    pub file_bytes: u64,
    /// Bytes read from its end.
    pub bytes_scanned: u64,
    /// Records kept (lines skipped unparsed or with nothing to extract are not counted).
    pub records: u64,
    /// Lines that did not parse (damaged, truncated, not objects) and were skipped.
    pub skipped_lines: u64,
    /// Lines over the size limit, skipped unread.
    pub oversized_lines: u64,
    /// The scan reached the start of the file.
    pub reached_start: bool,
    /// The scan stopped at its deadline.
    pub hit_deadline: bool,
}

/// Records (oldest first) and what it took to read them.
#[derive(Debug, Default)]
pub struct Scan {
    /// The records of the window, in file order.
    pub records: Vec<Record>,
    /// Scan statistics.
    pub stats: ScanStats,
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
    // O_NONBLOCK: if the path was swapped for a FIFO after the check, open still returns at once.
    let file = crate::platform::open_nonblocking(path)
        .with_context(|| format!("could not open transcript {}", path.display()))?;
    if !file.metadata()?.is_file() {
        bail!("transcript {} is not a regular file", path.display());
    }
    Ok(file)
}

/// Reads the records a snapshot needs from `path`.
pub fn scan(path: &Path, limits: Limits) -> Result<Scan> {
    let file = open_regular(path)?;
    let mut reader = TailReader::from_file(file)
        .with_context(|| format!("could not read transcript {}", path.display()))?;
    let file_bytes = reader.remaining();
    let mut scan = Scan::default();
    scan.stats.file_bytes = file_bytes;
    let mut newest_first: Vec<Record> = Vec::new();
    let mut need = Sufficiency::default();
    let max_bytes = limits.max_bytes.max(MIN_WINDOW);
    let mut replies = 0usize;
    loop {
        let mut skipped = 0u64;
        let more = reader
            .read_chunk(|line| {
                if line.iter().all(u8::is_ascii_whitespace) || can_skip(line) {
                    return;
                }
                match parse_line(line) {
                    // Records with no uuid and nothing to extract (api-request, titles, modes)
                    // would only cost memory.
                    Some(rec) if rec.kind == Kind::Other && rec.uuid.is_none() => {}
                    Some(mut rec) => {
                        need.observe(&rec);
                        // Only the newest replies are read (last reply, checklist); twice the
                        // number used leaves room for replies on an abandoned branch.
                        if rec.kind == Kind::Assistant && !rec.texts.is_empty() {
                            replies += 1;
                            if replies > 2 * CHECKLIST_MESSAGES {
                                rec.texts = Vec::new();
                            }
                        }
                        newest_first.push(rec);
                    }
                    None => skipped += 1,
                }
            })
            .with_context(|| format!("could not read transcript {}", path.display()))?;
        scan.stats.skipped_lines += skipped;
        let scanned = file_bytes - reader.remaining();
        scan.stats.bytes_scanned = scanned;
        if !more {
            scan.stats.reached_start = true;
            break;
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            scan.stats.hit_deadline = true;
            break;
        }
        if scanned >= MIN_WINDOW && (need.satisfied() || scanned >= max_bytes) {
            break;
        }
    }
    scan.stats.oversized_lines = reader.oversized_lines();
    scan.stats.records = newest_first.len() as u64;
    newest_first.reverse();
    scan.records = newest_first;
    Ok(scan)
}

/// Whether the window read so far is enough: five genuine prompts and the task list's state.
#[derive(Debug, Default)]
struct Sufficiency {
    prompts: usize,
    /// A `TodoWrite` (which carries the whole list) or the creation of task #1 (so every later
    /// task's creation is in the window too) has been seen.
    tasks_known: bool,
}

impl Sufficiency {
    fn observe(&mut self, rec: &Record) {
        if rec.sidechain {
            return;
        }
        if self.prompts < MAX_INSTRUCTIONS && prompt_text(rec).is_some() {
            self.prompts += 1;
        }
        if rec.tool_uses.iter().any(|t| t.name == "TodoWrite") {
            self.tasks_known = true;
        }
        if rec
            .tool_results
            .iter()
            .any(|r| r.head.starts_with("Task #1 created"))
        {
            self.tasks_known = true;
        }
    }

    fn satisfied(&self) -> bool {
        self.prompts >= MAX_INSTRUCTIONS && self.tasks_known
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn limits() -> Limits {
        Limits {
            max_bytes: 64 * 1024 * 1024,
            deadline: None,
        }
    }

    fn prompt(i: usize) -> String {
        format!(r#"{{"type":"user","uuid":"p{i}","message":{{"content":"prompt {i}"}}}}"#)
    }

    fn filler(bytes: usize) -> String {
        let pad = "z".repeat(bytes.saturating_sub(80));
        format!(r#"{{"type":"attachment","attachment":{{"type":"x","data":"{pad}"}}}}"#)
    }

    #[test]
    fn extends_past_min_window_to_find_prompts() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for i in 0..5 {
            writeln!(f, "{}", prompt(i)).unwrap();
            for _ in 0..10 {
                writeln!(f, "{}", filler(100_000)).unwrap();
            }
        }
        let s = scan(f.path(), limits()).unwrap();
        let n = s
            .records
            .iter()
            .filter(|r| prompt_text(r).is_some())
            .count();
        assert_eq!(n, 5);
    }

    #[test]
    fn cap_limits_the_scan() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "{}", prompt(0)).unwrap();
        for _ in 0..60 {
            writeln!(f, "{}", filler(100_000)).unwrap();
        }
        let l = Limits {
            max_bytes: 3 * 1024 * 1024,
            deadline: None,
        };
        let s = scan(f.path(), l).unwrap();
        assert!(s.stats.bytes_scanned <= 4 * 1024 * 1024);
        assert!(!s.stats.reached_start);
    }

    #[test]
    fn non_regular_files_are_refused() {
        assert!(scan(Path::new("/"), limits()).is_err());
        assert!(scan(Path::new("/dev/zero"), limits()).is_err());
        assert!(scan(Path::new(""), limits()).is_err());
    }
}
