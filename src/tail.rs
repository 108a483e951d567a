//! Reads a file's lines backwards, newest first, in fixed-size chunks, with bounded memory.
//!
//! Transcripts grow without bound and the interesting part is the end, so the reader starts at the
//! end of the file and walks back one chunk at a time; the caller decides after each chunk whether
//! it has seen enough. Memory is one chunk plus at most one line of [`MAX_LINE`] bytes: a longer
//! line is skipped (counted in [`TailReader::oversized_lines`]), never buffered whole.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes read per step. Reading backwards needs a seek per chunk; 1 MiB amortises it while keeping
/// the peak resident size small.
pub const CHUNK: usize = 1024 * 1024;

/// The longest line that is parsed. Longer lines (a pasted screenshot, a huge tool result) are
/// skipped: what they hold is not worth the memory.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

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
}

impl TailReader<File> {
    /// A reader positioned at the end of `file`.
    pub fn from_file(mut file: File) -> io::Result<Self> {
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
        }
    }

    /// Bytes not yet read (the offset the reader has reached).
    pub fn remaining(&self) -> u64 {
        self.pos
    }

    /// Lines skipped for being longer than [`MAX_LINE`].
    pub fn oversized_lines(&self) -> u64 {
        self.oversized
    }

    /// Reads the next chunk backwards and calls `on_line` for each complete line in it, newest
    /// first. Returns `false` once the start of the file has been reached and every line emitted.
    /// A line split across chunks is emitted when its start is read. The partial line left at the
    /// front when the caller stops reading is never emitted: it is the cut first line of the window.
    pub fn read_chunk(&mut self, mut on_line: impl FnMut(&[u8])) -> io::Result<bool> {
        if self.pos == 0 {
            return Ok(false);
        }
        let start = self.pos.saturating_sub(CHUNK as u64);
        let len = usize::try_from(self.pos - start).unwrap_or(CHUNK);
        self.file.seek(SeekFrom::Start(start))?;
        self.chunk.resize(len, 0);
        self.file.read_exact(&mut self.chunk)?;
        self.pos = start;

        let mut line_end = self.chunk.len();
        while let Some(nl) = memchr::memrchr(b'\n', &self.chunk[..line_end]) {
            self.emit(start, nl + 1, line_end, &mut on_line)?;
            line_end = nl;
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
        if len > MAX_LINE {
            self.oversized += 1;
            return Ok(());
        }
        self.line.resize(len, 0);
        self.file.seek(SeekFrom::Start(begin))?;
        self.file.read_exact(&mut self.line)?;
        on_line(&self.line);
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

    #[test]
    fn last_line_without_newline_is_emitted() {
        let (got, _) = all_lines(b"a\nb\nc");
        assert_eq!(got, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    }

    #[test]
    fn oversized_line_is_skipped_neighbours_kept() {
        let mut data = b"first\n".to_vec();
        data.extend(std::iter::repeat_n(b'y', MAX_LINE + CHUNK * 2 + 17));
        data.extend_from_slice(b"\nlast\n");
        let (got, over) = all_lines(&data);
        assert_eq!(over, 1);
        assert_eq!(got, vec![b"first".to_vec(), b"last".to_vec(), Vec::new()]);
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
