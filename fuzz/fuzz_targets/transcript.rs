//! Arbitrary bytes as a transcript: line reader, byte triage, record parser, the newest-first
//! fold and rendering must never panic; the snapshot must stay within the size budget; and the
//! triage must never lose a prompt that parsing every line finds.

#![no_main]

use compact_guardian::extract::{Extractor, Part, Searched, extract_part};
use compact_guardian::read::record::{Triage, parse_line, triage};
use compact_guardian::read::tail::TailReader;
use compact_guardian::read::transcript::Fold;
use compact_guardian::read::wants::{FarSet, Wants};
use compact_guardian::render::{HARD_LIMIT, Meta, Source, render, utf16_len};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use std::time::UNIX_EPOCH;

fuzz_target!(|data: &[u8]| {
    let meta = Meta { taken_at: UNIX_EPOCH, trigger: Some("auto".into()), cwd: None, git_branch: None, focus: None, source: Source::Saved };
    for part in [Part::Whole, Part::Compacted] {
        // Streaming, every line through the triage.
        let mut reader = TailReader::new(Cursor::new(data), data.len() as u64);
        let mut fold = Extractor::new(part).with_recent_window(0);
        let mut records = Vec::new();
        let wants = Wants { lines: true, everything: false, actions: false, far: FarSet::ALL };
        while reader
            .read_chunk(|line| {
                records.extend(parse_line(line));
                match triage(line, wants) {
                    Triage::Parse => {
                        if let Some(r) = parse_line(line) {
                            fold.record(r);
                        }
                    }
                    Triage::Link(l) => fold.link(l),
                    Triage::Skip => {}
                }
            })
            .unwrap()
        {}
        let streamed = fold.finish(Searched::default());
        records.reverse();
        let reference = extract_part(&records, part);
        assert_eq!(streamed.instructions, reference.instructions);
        let text = render(&reference, &meta);
        assert!(utf16_len(&text) <= HARD_LIMIT);
        assert_eq!(compact_guardian::render::wholeness_error(&text), None);
    }
});
