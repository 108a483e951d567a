//! Arbitrary bytes as a transcript: line reader, record parser, extraction and rendering must
//! never panic, and the snapshot must stay within the size budget.

#![no_main]

use compact_guardian::extract::{compacted_part, extract};
use compact_guardian::record::{can_skip, parse_line};
use compact_guardian::render::{HARD_LIMIT, Meta, Source, render, utf16_len};
use compact_guardian::tail::TailReader;
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use std::time::UNIX_EPOCH;

fuzz_target!(|data: &[u8]| {
    let mut reader = TailReader::new(Cursor::new(data), data.len() as u64);
    let mut records = Vec::new();
    while reader
        .read_chunk(|line| {
            let _ = can_skip(line);
            records.extend(parse_line(line));
        })
        .unwrap()
    {}
    records.reverse();
    let meta = Meta { taken_at: UNIX_EPOCH, trigger: Some("auto".into()), cwd: None, git_branch: None, focus: None, source: Source::Saved };
    for part in [&records[..], compacted_part(&records)] {
        let text = render(&extract(part), &meta);
        assert!(utf16_len(&text) <= HARD_LIMIT);
    }
});
