//! In-process benchmarks of the hot path: `cargo bench`. Each reads a synthetic 2 MiB window in
//! the 2.1.3xx layout (the window `save` reads when the last prompts are recent).

#[path = "support/synth.rs"]
mod synth;

use compact_guardian::extract::{Part, extract};
use compact_guardian::pipeline::build;
use compact_guardian::read::record::{Triage, parse_line, triage};
use compact_guardian::read::tail::TailReader;
use compact_guardian::read::transcript::Limits;
use compact_guardian::read::wants::{FarSet, Wants};
use compact_guardian::render::{Meta, Source, render};
use divan::{Bencher, black_box};
use std::io::Cursor;
use std::sync::LazyLock;
use std::time::SystemTime;

fn main() {
    divan::main();
}

/// 2 MiB of transcript, and the same on disk.
static WINDOW: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut out = Vec::new();
    synth::write_transcript(&mut out, 2 * 1024 * 1024).unwrap();
    out
});

/// The window as `save` reads it: no cap, no deadline (the fold stops when satisfied).
const WINDOW_LIMITS: Limits = Limits {
    max_bytes: None,
    deadline: None,
};

static FILE: LazyLock<tempfile::NamedTempFile> = LazyLock::new(|| {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), &*WINDOW).unwrap();
    f
});

/// Splitting 2 MiB into lines, backwards.
#[divan::bench]
fn tail_lines(bencher: Bencher) {
    bencher
        .counter(divan::counter::BytesCount::new(WINDOW.len()))
        .bench(|| {
            let mut r = TailReader::new(Cursor::new(&WINDOW[..]), WINDOW.len() as u64);
            let mut n = 0usize;
            while r.read_chunk(|l| n += l.len()).unwrap() {}
            black_box(n)
        });
}

/// Parsing every line of 2 MiB into records.
#[divan::bench]
fn parse_records(bencher: Bencher) {
    bencher
        .counter(divan::counter::BytesCount::new(WINDOW.len()))
        .bench(|| {
            let n = WINDOW
                .split(|b| *b == b'\n')
                .filter_map(|l| parse_line(black_box(l)))
                .count();
            black_box(n)
        });
}

/// The byte-level triage of every line of 2 MiB (what the reader does beyond the recent window).
#[divan::bench]
fn triage_lines(bencher: Bencher) {
    let wants = Wants {
        lines: true,
        everything: false,
        actions: false,
        far: FarSet::ALL,
    };
    bencher
        .counter(divan::counter::BytesCount::new(WINDOW.len()))
        .bench(|| {
            let n = WINDOW
                .split(|b| *b == b'\n')
                .filter(|l| matches!(triage(black_box(l), wants), Triage::Parse))
                .count();
            black_box(n)
        });
}

/// The whole pipeline's read: file, lines, triage, records, fold.
#[divan::bench]
fn build_from_file(bencher: Bencher) {
    let path = FILE.path();
    bencher
        .counter(divan::counter::BytesCount::new(WINDOW.len()))
        .bench(|| black_box(build(path, Part::Whole, WINDOW_LIMITS).unwrap()));
}

fn all_records() -> Vec<compact_guardian::read::record::Record> {
    WINDOW
        .split(|b| *b == b'\n')
        .filter_map(parse_line)
        .collect()
}

/// The fold over every record of the window.
#[divan::bench]
fn extract_records(bencher: Bencher) {
    let records = all_records();
    bencher.bench(|| black_box(extract(black_box(&records))));
}

/// Rendering the snapshot text.
#[divan::bench]
fn render_snapshot(bencher: Bencher) {
    let ex = extract(&all_records());
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: Some("auto".into()),
        cwd: Some("/w".into()),
        git_branch: None,
        focus: None,
        source: Source::Saved,
    };
    bencher.bench(|| black_box(render(black_box(&ex), &meta)));
}
