//! Reads a file's lines backwards, newest first, in fixed-size chunks, with bounded memory.
//!
//! Transcripts grow without bound and the interesting part is the end, so the reader starts at the
//! end of the file and walks back one chunk at a time; the caller decides after each chunk whether
//! it has seen enough. Memory is one chunk plus at most one line of `MAX_LINE` bytes: a longer
//! line is never buffered whole but read in pieces into a shrunk copy (the `shrink` module: its
//! keys and structure, long strings cut), so the words a user typed beside megabytes of pasted
//! images are still read; a line that cannot be shrunk is passed on as its head, which does not
//! parse (`TailReader::oversized_lines`).

use memchr::memmem::Finder;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes read per step. Reading backwards needs a seek per chunk; 1 MiB amortises it while keeping
/// the peak resident size small.
pub(crate) const CHUNK: usize = 1024 * 1024;

/// The longest line that is read whole. Longer lines (pasted screenshots, a huge tool result) are
/// read shrunk.
pub(crate) const MAX_LINE: usize = 4 * 1024 * 1024;

/// A backward line reader over a file.
pub struct TailReader<R> {
    file: R,
    /// Everything at or after this offset has been read.
    pos: u64,
    chunk: Vec<u8>,
    /// A line that runs past the start of the current chunk ends at this offset (exclusive).
    pending_end: Option<u64>,
    /// Buffer for a line read in one piece once its start is found.
    line: Vec<u8>,
    oversized: u64,
    shrunk: u64,
    /// Where the lines with a hit start, for [`TailReader::read_chunk_matching`].
    starts: Vec<usize>,
}

impl TailReader<File> {
    /// A reader positioned at the end of `file`.
    pub(crate) fn from_file(mut file: File) -> io::Result<Self> {
        let len = file.seek(SeekFrom::End(0))?;
        Ok(Self::new(file, len))
    }
}

impl<R: Read + Seek> TailReader<R> {
    /// A reader over `file` whose end is at `len`.
    pub fn new(file: R, len: u64) -> Self {
        TailReader {
            file,
            pos: len,
            chunk: Vec::new(),
            pending_end: None,
            line: Vec::new(),
            oversized: 0,
            shrunk: 0,
            starts: Vec::new(),
        }
    }

    /// Bytes not yet read (the offset the reader has reached).
    pub fn remaining(&self) -> u64 {
        self.pos
    }

    /// Lines longer than `MAX_LINE` that could not be shrunk, skipped.
    pub(crate) fn oversized_lines(&self) -> u64 {
        self.oversized
    }

    /// Lines longer than `MAX_LINE` read shrunk.
    pub(crate) fn shrunk_lines(&self) -> u64 {
        self.shrunk
    }

    /// Reads the next chunk backwards and calls `on_line` for each complete line in it, newest
    /// first. Returns `false` once the start of the file has been reached and every line emitted.
    /// A line split across chunks is emitted when its start is read. The partial line left at the
    /// front when the caller stops reading is never emitted: it is the cut first line of the window.
    pub fn read_chunk(&mut self, mut on_line: impl FnMut(&[u8])) -> io::Result<bool> {
        let Some(start) = self.read_previous_chunk()? else {
            return Ok(false);
        };

        let mut line_end = self.chunk.len();
        // One iterator over the chunk's newlines: a search set up per line would cost more than
        // a short line's triage.
        if let Some(last) = memchr::memrchr(b'\n', &self.chunk) {
            // The newest line may be pending (read whole from the file): the only one that is.
            self.emit(start, last + 1, line_end, &mut on_line)?;
            line_end = last;
            for nl in memchr::memrchr_iter(b'\n', &self.chunk[..last]) {
                on_line(&self.chunk[nl + 1..line_end]);
                line_end = nl;
            }
        }
        if start == 0 {
            self.emit(start, 0, line_end, &mut on_line)?;
            return Ok(false);
        }
        // The chunk starts inside a line: remember where that line ends.
        if self.pending_end.is_none() {
            self.pending_end = Some(start + line_end as u64);
        }
        Ok(true)
    }

    /// Like [`TailReader::read_chunk`], but calls `on_line` only for the lines that hold one of
    /// `needles`, still newest first. The chunk is searched whole for each needle (a `memmem`
    /// pass, about what `grep -F` costs) instead of being split into lines: a chunk without a hit
    /// costs its searches and nothing else. A line crossing chunk edges is read whole and checked.
    pub(crate) fn read_chunk_matching(
        &mut self,
        needles: &[Finder],
        mut on_line: impl FnMut(&[u8]),
    ) -> io::Result<bool> {
        let Some(start) = self.read_previous_chunk()? else {
            return Ok(false);
        };
        let len = self.chunk.len();

        let mut matching = |line: &[u8]| {
            if needles.iter().any(|f| f.find(line).is_some()) {
                on_line(line);
            }
        };
        let Some(last_nl) = memchr::memrchr(b'\n', &self.chunk) else {
            // No line starts in this chunk, unless the file does.
            if start == 0 {
                self.emit(start, 0, len, &mut matching)?;
                return Ok(false);
            }
            self.pending_end.get_or_insert(start + len as u64);
            return Ok(true);
        };
        // The newest line may continue into the chunk read before: read it whole.
        let mut body_end = len;
        if self.pending_end.is_some() {
            self.emit(start, last_nl + 1, len, &mut matching)?;
            body_end = last_nl;
        }
        // Whole lines from after the first newline (or the file's start) to `body_end`.
        let first_nl = memchr::memchr(b'\n', &self.chunk).unwrap_or(last_nl);
        let body_start = if start == 0 { 0 } else { first_nl + 1 };
        if body_start < body_end {
            let body = &self.chunk[body_start..body_end];
            self.starts.clear();
            for f in needles {
                for hit in f.find_iter(body) {
                    self.starts
                        .push(memchr::memrchr(b'\n', &body[..hit]).map_or(0, |nl| nl + 1));
                }
            }
            self.starts.sort_unstable_by(|a, b| b.cmp(a));
            self.starts.dedup();
            for &from in &self.starts {
                let to = memchr::memchr(b'\n', &body[from..]).map_or(body.len(), |nl| from + nl);
                on_line(&body[from..to]);
            }
        }
        if start == 0 {
            return Ok(false);
        }
        self.pending_end = Some(start + first_nl as u64);
        Ok(true)
    }

    /// Reads the chunk before what was read into `self.chunk`; its file offset, or `None` at the
    /// start of the file.
    fn read_previous_chunk(&mut self) -> io::Result<Option<u64>> {
        if self.pos == 0 {
            return Ok(None);
        }
        let start = self.pos.saturating_sub(CHUNK as u64);
        let len = usize::try_from(self.pos - start).unwrap_or(CHUNK);
        self.file.seek(SeekFrom::Start(start))?;
        self.chunk.resize(len, 0);
        self.file.read_exact(&mut self.chunk)?;
        self.pos = start;
        Ok(Some(start))
    }

    /// Emits the line starting at `chunk[from]`: either `chunk[from..to]`, or, when a line that
    /// crosses chunk boundaries is pending, that whole line read from the file.
    fn emit(
        &mut self,
        chunk_start: u64,
        from: usize,
        to: usize,
        on_line: &mut impl FnMut(&[u8]),
    ) -> io::Result<()> {
        let Some(end) = self.pending_end.take() else {
            on_line(&self.chunk[from..to]);
            return Ok(());
        };
        let begin = chunk_start + from as u64;
        let len = usize::try_from(end - begin).unwrap_or(usize::MAX);
        self.file.seek(SeekFrom::Start(begin))?;
        if len > MAX_LINE {
            if crate::read::shrink::shrink((&mut self.file).take(end - begin), &mut self.line)? {
                self.shrunk += 1;
            } else {
                // Its head, which does not parse: the reader can still tell it was there.
                self.oversized += 1;
            }
            on_line(&self.line);
        } else {
            self.line.resize(len, 0);
            self.file.read_exact(&mut self.line)?;
            on_line(&self.line);
        }
        if self.line.capacity() > CHUNK {
            self.line = Vec::new(); // do not keep a multi-megabyte buffer for the rest of the scan
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn all_lines(data: &[u8]) -> (Vec<Vec<u8>>, u64) {
        let mut r = TailReader::new(Cursor::new(data.to_vec()), data.len() as u64);
        let mut out = Vec::new();
        while r.read_chunk(|l| out.push(l.to_vec())).unwrap() {}
        out.reverse();
        (out, r.oversized_lines())
    }

    #[test]
    fn lines_come_back_complete_across_chunk_edges() {
        let mut data = Vec::new();
        let mut expect = Vec::new();
        for i in 0..5000 {
            let line = format!("{i}:{}", "x".repeat(i * 37 % 3000));
            data.extend_from_slice(line.as_bytes());
            data.push(b'\n');
            expect.push(line.into_bytes());
        }
        expect.push(Vec::new()); // after the final newline
        let (got, over) = all_lines(&data);
        assert_eq!(over, 0);
        assert_eq!(got, expect);
    }

    /// Every line `read_chunk_matching` emits, newest first.
    fn matching_lines(data: &[u8], needles: &[&[u8]]) -> Vec<Vec<u8>> {
        let finders: Vec<Finder> = needles.iter().map(|n| Finder::new(*n)).collect();
        let mut r = TailReader::new(Cursor::new(data.to_vec()), data.len() as u64);
        let mut out = Vec::new();
        while r
            .read_chunk_matching(&finders, |l| out.push(l.to_vec()))
            .unwrap()
        {}
        out
    }

    #[test]
    fn matching_emits_exactly_the_lines_with_a_needle_across_chunk_edges() {
        // Lines of every length around the chunk size, some over it, needles at line starts,
        // ends and middles, a final line without a newline.
        let mut data = Vec::new();
        let mut x: u64 = 7;
        for i in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = match i % 97 {
                0 => CHUNK + (x % 5000) as usize,
                1 => CHUNK * 2 + 3,
                _ => (x % 3000) as usize,
            };
            let mut line = vec![b'.'; len];
            if x.is_multiple_of(3) && len > 10 {
                let at = (x as usize / 3) % (len - 9);
                line[at..at + 9].copy_from_slice(b"TodoWrite");
            }
            if x.is_multiple_of(7) && len > 6 {
                line[len - 6..].copy_from_slice(b"Task #");
            }
            data.extend_from_slice(&line);
            data.push(b'\n');
        }
        data.extend_from_slice(b"TodoWrite at the end");
        let needles: &[&[u8]] = &[b"TodoWrite", b"Task #"];
        let (mut all, _) = all_lines(&data);
        all.reverse();
        let expect: Vec<Vec<u8>> = all
            .into_iter()
            .filter(|l| l.len() <= MAX_LINE)
            .filter(|l| needles.iter().any(|n| memchr::memmem::find(l, n).is_some()))
            .collect();
        assert!(expect.len() > 1000);
        assert_eq!(matching_lines(&data, needles), expect);
    }

    #[test]
    fn matching_a_file_of_one_line_and_of_no_hits() {
        assert_eq!(
            matching_lines(b"xx TodoWrite yy", &[b"TodoWrite"]),
            vec![b"xx TodoWrite yy".to_vec()]
        );
        let big = vec![b'z'; CHUNK * 3];
        assert!(matching_lines(&big, &[b"TodoWrite"]).is_empty());
        let mut one = vec![b'z'; CHUNK * 2];
        one.extend_from_slice(b"TodoWrite\n");
        assert_eq!(matching_lines(&one, &[b"TodoWrite"]).len(), 1);
    }

    #[test]
    fn last_line_without_newline_is_emitted() {
        let (got, _) = all_lines(b"a\nb\nc");
        assert_eq!(got, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    }

    #[test]
    fn oversized_json_line_is_read_shrunk_across_chunks() {
        let pasted = "A".repeat(MAX_LINE + CHUNK * 2);
        let line = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"image","data":"{pasted}"}},{{"type":"text","text":"typed words"}}]}}}}"#
        );
        let data = format!("first\n{line}\nlast\n");
        let mut r = TailReader::new(Cursor::new(data.into_bytes()), 0);
        r.pos = r.file.get_ref().len() as u64;
        let mut got = Vec::new();
        while r.read_chunk(|l| got.push(l.to_vec())).unwrap() {}
        assert_eq!((r.oversized_lines(), r.shrunk_lines()), (0, 1));
        let shrunk: serde_json::Value = serde_json::from_slice(&got[2]).unwrap();
        assert_eq!(shrunk["message"]["content"][1]["text"], "typed words");
        assert!(got[2].len() < crate::read::shrink::KEEP_STRING + 200);
        assert_eq!(got[1], b"last");
        assert_eq!(got[3], b"first");
    }

    #[test]
    fn oversized_line_that_cannot_be_shrunk_comes_as_its_head_neighbours_kept() {
        let mut data = b"first\n".to_vec();
        data.extend(std::iter::repeat_n(b'y', MAX_LINE + CHUNK * 2 + 17));
        data.extend_from_slice(b"\nlast\n");
        let (got, over) = all_lines(&data);
        assert_eq!(over, 1);
        let head = vec![b'y'; crate::read::shrink::GIVE_UP_HEAD];
        assert_eq!(
            got,
            vec![b"first".to_vec(), head, b"last".to_vec(), Vec::new()]
        );
    }

    #[test]
    fn stopping_early_drops_the_cut_first_line() {
        let mut data = Vec::new();
        for i in 0..(CHUNK / 10) {
            data.extend_from_slice(format!("{i:09}\n").as_bytes());
        }
        data.extend_from_slice(b"tail\n");
        let mut r = TailReader::new(Cursor::new(data.clone()), data.len() as u64);
        let mut got = Vec::new();
        r.read_chunk(|l| got.push(l.to_vec())).unwrap();
        // Every emitted line is whole: ten bytes of digits or the tail.
        assert!(
            got.iter()
                .all(|l| l.is_empty() || l == b"tail" || l.len() == 9)
        );
    }
}
