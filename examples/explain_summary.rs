//! For whoever tunes the corrections (#38, #54): how each sentence of a summary is read (its
//! section's role, whether it asserts, its clauses), and the corrections, given the record: a
//! transcript read as the audit reads it (back to the session's start, D089), or a digest `save`
//! kept (whose facts do not reach the start: no absence is judged).
//!
//! `cargo run --example explain_summary -- <summary-file> [<transcript.jsonl> | <digest.json>]`

use compact_guardian::corrections;
use compact_guardian::extract::Part;
use compact_guardian::extract::digest::Digest;
use compact_guardian::pipeline;
use compact_guardian::read::transcript::Limits;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(summary) = args.first() else {
        eprintln!("usage: explain_summary <summary-file> [<transcript.jsonl> | <digest.json>]");
        std::process::exit(2);
    };
    let summary = std::fs::read_to_string(summary).expect("the summary file");
    print!("{}", corrections::explain(&summary));
    let Some(record) = args.get(1) else { return };
    let digest = if record.ends_with(".jsonl") {
        let limits = Limits {
            max_bytes: None,
            deadline: None,
        };
        let built = pipeline::build_deep(record.as_ref(), Part::Whole, limits, &[])
            .expect("the transcript");
        println!("\nfacts: {}", built.extraction.facts.described());
        Digest::of(&built.extraction, built.stats.format, true)
    } else {
        let bytes = std::fs::read(record).expect("the digest file");
        Digest::read(&bytes).expect("a digest save wrote")
    };
    println!("\ncorrections:");
    for c in corrections::corrections(&digest, &summary) {
        println!("- {:?}: {}", c.kind, c.text);
    }
}
