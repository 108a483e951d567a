//! Reads a transcript backwards, newest line first, feeding a [`Fold`] until it is satisfied, the
//! file starts, or the deadline passes. It knows nothing of what is extracted: the fold says what
//! it still wants, and each line is triaged from its raw bytes ([`record::triage`]) so that the
//! lines that cannot matter (most of a long session: tool results, attachments, bookkeeping) cost
//! a few byte searches, not a JSON parse. Only regular files are read, opened without blocking,
//! so a FIFO or a device path can never hang a hook. Memory is the reader's chunk and line buffers
//! plus whatever the fold keeps.

use crate::read::record::{self, Format, Link, Record, Triage, parse_line};
use crate::read::tail::{self, TailReader};
use crate::read::wants::Wants;
use anyhow::{Context, Result, bail};
use memchr::memmem::Finder;
use serde::Serialize;
use std::fs::File;
use std::io::Read;
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
    /// A line that was to be parsed but could not be (damaged, or too large to read even
    /// shrunk): the fold may need to know that something it could not see is there.
    fn unreadable(&mut self, line: &[u8]);
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
    /// Bytes only searched for the few names still wanted, not split into lines.
    pub needle_bytes: u64,
    /// Lines parsed as JSON.
    pub parsed_lines: u64,
    /// Lines reduced to their parent link from raw bytes.
    pub link_lines: u64,
    /// Lines skipped from raw bytes.
    pub skipped_unparsed: u64,
    /// Lines that did not parse (damaged, truncated, not objects) and were skipped.
    pub skipped_lines: u64,
    /// Lines over the size limit that could not be shrunk, skipped unread.
    pub oversized_lines: u64,
    /// Lines over the size limit read shrunk (long strings cut, far elements dropped).
    pub shrunk_lines: u64,
    /// The scan reached the start of the file.
    pub reached_start: bool,
    /// The scan stopped at its deadline.
    pub hit_deadline: bool,
    /// Which client wrote the transcript, from its first line.
    pub format: Format,
}

impl ScanStats {
    /// One line for `COMPACT_GUARDIAN_DEBUG`: how much was read and how.
    pub fn summary(&self) -> String {
        let mb = |b: u64| b as f64 / 1_048_576.0;
        format!(
            "read {:.1} of {:.1} MB of a {} transcript: {} lines parsed, {} reduced to their parent link, {} skipped unparsed, {} unreadable, {} read shrunk, {} too large; {}{}",
            mb(self.bytes_scanned),
            mb(self.file_bytes),
            match self.format {
                Format::ClaudeCode => "Claude Code",
                Format::Codex => "Codex",
                Format::OpenCode => "OpenCode",
            },
            self.parsed_lines,
            self.link_lines,
            self.skipped_unparsed,
            self.skipped_lines,
            self.shrunk_lines,
            self.oversized_lines,
            if self.reached_start {
                "reached its start"
            } else {
                "stopped before its start"
            },
            if self.hit_deadline {
                " (the time budget ran out)"
            } else {
                ""
            }
        )
    }
}

/// Opens `path` for reading only if it is a regular file, without ever blocking on a FIFO.
pub(crate) fn open_regular(path: &Path) -> Result<File> {
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

/// The format the file's first line shows (one small read; a failed read counts as Claude Code).
fn first_line_format(file: &mut File) -> Format {
    let mut head = [0u8; 512];
    let n = file.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    Format::of_first_line(head)
}

/// The summary of the newest compaction a Codex rollout records (its newest `compacted` line),
/// read backwards within `limits`: Codex gives its PostCompact hook no summary, but writes this
/// line before running it. `None` for a Claude Code transcript (whose PostCompact hook is given
/// the summary) or when none is found.
pub(crate) fn newest_codex_summary(path: &Path, limits: Limits) -> Option<String> {
    /// Stops at the first compaction boundary met.
    struct Newest(Option<String>);
    impl Fold for Newest {
        fn wants(&self) -> Wants {
            Wants {
                lines: true,
                ..Wants::default()
            }
        }
        fn record(&mut self, rec: Record) {
            if self.0.is_none() && rec.kind == record::RecordKind::CompactBoundary {
                self.0 = rec.texts.into_iter().next();
            }
        }
        fn link(&mut self, _: Link) {}
        fn unreadable(&mut self, _: &[u8]) {}
        fn scanned(&mut self, _: u64) {}
        fn satisfied(&self) -> bool {
            self.0.is_some()
        }
    }
    let mut file = open_regular(path).ok()?;
    if first_line_format(&mut file) != Format::Codex {
        return None;
    }
    let mut fold = Newest(None);
    scan(path, limits, &mut fold).ok()?;
    fold.0.filter(|s| !s.trim().is_empty())
}

/// The client that wrote the transcript at `path`, from its first line (`None`: unreadable).
pub(crate) fn format_of(path: &Path) -> Option<Format> {
    let mut file = open_regular(path).ok()?;
    Some(first_line_format(&mut file))
}

/// Reads `path` backwards into `fold` within `limits`.
pub fn scan(path: &Path, limits: Limits, fold: &mut impl Fold) -> Result<ScanStats> {
    let mut file = open_regular(path)?;
    let format = first_line_format(&mut file);
    let mut reader = TailReader::from_file(file)
        .with_context(|| format!("could not read transcript {}", path.display()))?;
    let file_bytes = reader.remaining();
    let mut stats = ScanStats {
        format,
        file_bytes,
        ..ScanStats::default()
    };
    // The finders for what was wanted when they were built: what is wanted only shrinks, so they
    // are built at most a few times a scan.
    let mut finders: Option<(Wants, Vec<Finder<'static>>)> = None;
    // The deadline is looked at inside chunks too: a chunk of costly lines (long prompts, shrunk
    // records) must not hold a hook past its budget. Once it has passed, the rest is skipped.
    let mut clock = Clock::new(limits.deadline);
    loop {
        // What is wanted only shrinks; asking once a chunk keeps the per-line cost to the triage.
        let wants = fold.wants();
        refresh(&mut finders, wants);
        let search = finders.as_ref(); // built for `wants`, or none when every line matters
        if search.is_some() {
            stats.needle_bytes += reader.remaining().min(tail::CHUNK as u64);
        }
        let mut on_line = |line: &[u8]| {
            if clock.out_of_time(line.len()) || line.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            take_line(line, wants, fold, &mut stats);
        };
        // Once only a few names can matter (tasks or plans far back), the chunk is searched for
        // them whole and only the lines holding one are triaged (D016).
        let more = match search {
            Some((_, f)) => reader.read_chunk_matching(f, &mut on_line),
            None => reader.read_chunk(&mut on_line),
        }
        .with_context(|| format!("could not read transcript {}", path.display()))?;
        stats.bytes_scanned = file_bytes - reader.remaining();
        fold.scanned(stats.bytes_scanned);
        if done(&mut stats, more, &mut clock, fold, limits) {
            break;
        }
    }
    stats.oversized_lines = reader.oversized_lines();
    stats.shrunk_lines = reader.shrunk_lines();
    Ok(stats)
}

/// The finders for the needles of `wants`, rebuilt when it changed (what is wanted only shrinks,
/// so at most a few times a scan); none when every line matters.
fn refresh(finders: &mut Option<(Wants, Vec<Finder<'static>>)>, wants: Wants) {
    if finders.as_ref().is_none_or(|(w, _)| *w != wants) {
        let built = wants
            .needles()
            .map(|n| n.iter().map(|n| Finder::new(*n)).collect());
        *finders = built.map(|f| (wants, f));
    }
}

/// Whether the scan stops after a chunk (`more`: the file holds more before it), and why, in
/// `stats`: the deadline, the file's start, the fold satisfied or the bytes it may read read.
fn done(
    stats: &mut ScanStats,
    more: bool,
    clock: &mut Clock,
    fold: &impl Fold,
    limits: Limits,
) -> bool {
    if clock.expired {
        // Lines of this chunk were skipped unread: the file was not read to its start.
        stats.hit_deadline = true;
        return true;
    }
    if !more {
        stats.reached_start = true;
        return true;
    }
    if fold.satisfied()
        || limits
            .max_bytes
            .is_some_and(|max| stats.bytes_scanned >= max)
    {
        return true;
    }
    if clock.passed() {
        stats.hit_deadline = true;
        return true;
    }
    false
}

/// One line for the fold, as its triage says: skipped unparsed, a link, or parsed into a record.
fn take_line(line: &[u8], wants: Wants, fold: &mut impl Fold, stats: &mut ScanStats) {
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
                None => {
                    stats.skipped_lines += 1;
                    fold.unreadable(line);
                }
            }
        }
    }
}

/// The deadline, looked at every [`Clock::EVERY`] lines or bytes, not on every line.
struct Clock {
    deadline: Option<Instant>,
    /// Lines and kilobytes until the next look (a line costs one, plus one per kilobyte).
    until_look: i64,
    /// The deadline was seen passed: every line from then on is skipped unread.
    expired: bool,
}

impl Clock {
    /// Lines (a kilobyte of line counting as one more) between two looks at the time.
    const EVERY: i64 = 256;

    fn new(deadline: Option<Instant>) -> Clock {
        Clock {
            deadline,
            // Without a deadline the time is never looked at.
            until_look: if deadline.is_some() {
                Self::EVERY
            } else {
                i64::MAX
            },
            expired: false,
        }
    }

    /// Whether the deadline has passed, looked at after every [`Clock::EVERY`] lines or so (a
    /// line of `len` bytes brings the look closer by its kilobytes). One subtraction and one
    /// compare a line: on 30-byte records the look-up was a tenth of the reader's own cost.
    #[inline]
    fn out_of_time(&mut self, len: usize) -> bool {
        self.until_look -= 1 + (len >> 10) as i64;
        if self.until_look > 0 {
            return false;
        }
        self.look()
    }

    /// The slow path of [`Clock::out_of_time`]: looks at the time and starts counting again
    /// (once expired, every line comes here and is told so).
    #[cold]
    fn look(&mut self) -> bool {
        if self.deadline.is_none() {
            self.until_look = i64::MAX;
            return false;
        }
        if !self.passed() {
            self.until_look = Self::EVERY;
        }
        self.expired
    }

    /// Whether the deadline has passed (looked at now).
    fn passed(&mut self) -> bool {
        self.expired = self.expired || self.deadline.is_some_and(|d| Instant::now() >= d);
        self.expired
    }
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

    const TODO: &str = r#"{"type":"assistant","uuid":"t1","message":{"content":[{"type":"tool_use","id":"w1","name":"TodoWrite","input":{"todos":[{"content":"old open task","status":"pending"}]}}]}}"#;

    fn tools_used(tools: &str) -> String {
        format!(r#"{{"type":"tools-used","tools":[{tools}],"sessionId":"s"}}"#)
    }

    /// A session: `head` lines, then `filler_mb` MiB of small tool records, then `tail` lines.
    fn session(head: &[String], filler_mb: usize, tail: &[String]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in head {
            writeln!(f, "{l}").unwrap();
        }
        let small = r#"{"type":"assistant","uuid":"x","parentUuid":"y","message":{"content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"ls"}}]}}"#;
        for _ in 0..filler_mb * 1024 * 1024 / small.len() {
            writeln!(f, "{small}").unwrap();
        }
        for l in tail {
            writeln!(f, "{l}").unwrap();
        }
        f
    }

    fn recent_prompts() -> Vec<String> {
        (0..5).map(prompt).collect()
    }

    #[test]
    fn far_task_list_is_found_by_the_needle_search() {
        // Prompts recent, the task list 20 MiB back behind small records, no `tools-used`
        // (CLIs before 2.1.3xx): found, and the far bytes were only searched, not split.
        let f = session(&[TODO.to_owned()], 20, &recent_prompts());
        let mut ex = Extractor::new(Part::Whole);
        let stats = scan(f.path(), Limits::default(), &mut ex).unwrap();
        let got = ex.finish(Default::default());
        assert_eq!(got.tasks.len(), 1, "{got:?}");
        assert_eq!(got.tasks[0].content, "old open task");
        assert!(stats.needle_bytes > 10 * 1024 * 1024, "{stats:?}");
    }

    #[test]
    fn tools_used_without_task_tools_ends_the_task_search() {
        // CLI 2.1.3xx keeps a running list of the tools a session used: without a task tool in
        // the newest one, nothing further back can be a task list (a stale TodoWrite from before
        // the list existed is not looked for).
        let mut tail = vec![tools_used(r#""Bash","Edit""#)];
        tail.extend(recent_prompts());
        let f = session(&[TODO.to_owned()], 20, &tail);
        let mut ex = Extractor::new(Part::Whole);
        let stats = scan(f.path(), Limits::default(), &mut ex).unwrap();
        assert!(stats.bytes_scanned < 4 * 1024 * 1024, "{stats:?}");
        assert!(ex.finish(Default::default()).tasks.is_empty());
    }

    #[test]
    fn tools_used_naming_a_task_tool_keeps_looking() {
        let mut tail = vec![tools_used(r#""Bash","TodoWrite""#)];
        tail.extend(recent_prompts());
        let f = session(&[TODO.to_owned()], 20, &tail);
        let mut ex = Extractor::new(Part::Whole);
        scan(f.path(), Limits::default(), &mut ex).unwrap();
        assert_eq!(ex.finish(Default::default()).tasks.len(), 1);
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
    fn deadline_is_looked_at_inside_a_chunk() {
        // A chunk of 10,000 prompts with the deadline already passed: reading stops within a few
        // hundred lines, not at the end of the chunk.
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for i in 0..10_000 {
            writeln!(f, "{}", prompt(i)).unwrap();
        }
        let l = Limits {
            max_bytes: None,
            deadline: Some(Instant::now()),
        };
        let s = scan(f.path(), l, &mut Extractor::new(Part::Whole)).unwrap();
        assert!(s.hit_deadline, "{s:?}");
        assert!(s.parsed_lines <= Clock::EVERY as u64, "{s:?}");
    }

    #[test]
    fn a_typed_prompt_beside_megabytes_of_images_is_the_latest_instruction() {
        // Issue #26: a 4.8 MB prompt record (four pasted screenshots) newer than an ordinary
        // prompt. It was skipped unread and the older prompt was called the latest.
        let image = format!(
            r#"{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{}"}}}}"#,
            "iVBORw0KGgo".repeat(110_000)
        );
        let big = format!(
            r#"{{"type":"user","uuid":"p9","parentUuid":"p0","promptSource":"typed","message":{{"role":"user","content":[{image},{image},{image},{image},{{"type":"text","text":"make the header match these screenshots"}}]}}}}"#
        );
        assert!(big.len() > crate::read::tail::MAX_LINE);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "{}", prompt(0)).unwrap();
        writeln!(f, "{big}").unwrap();
        let mut ex = Extractor::new(Part::Whole);
        let stats = scan(f.path(), Limits::default(), &mut ex).unwrap();
        assert_eq!((stats.shrunk_lines, stats.oversized_lines), (1, 0));
        let got = ex.finish(Default::default());
        assert_eq!(
            got.instructions.last().map(String::as_str),
            Some("make the header match these screenshots"),
            "{got:?}"
        );
    }

    #[test]
    fn non_regular_files_are_refused() {
        let mut ex = Extractor::new(Part::Whole);
        assert!(scan(Path::new("/"), Limits::default(), &mut ex).is_err());
        assert!(scan(Path::new("/dev/zero"), Limits::default(), &mut ex).is_err());
        assert!(scan(Path::new(""), Limits::default(), &mut ex).is_err());
    }
}
