//! Writes a synthetic transcript in the 2.1.3xx layout for benchmarks:
//! `cargo run --release --example synth_transcript -- <bytes> <out.jsonl> [--gap <bytes> | --autonomous <record bytes>]`.

#[path = "../benches/support/synth.rs"]
mod synth;

use std::io::BufWriter;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: synth_transcript <bytes> <out.jsonl> [--gap <bytes> | --autonomous <record bytes>]";
    let size: u64 = args.get(1).and_then(|s| s.parse().ok()).expect(usage);
    let path = args.get(2).expect(usage);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let written = match args.get(3).map(String::as_str) {
        Some("--gap") => synth::write_gap_transcript(
            &mut out,
            args.get(4).and_then(|s| s.parse().ok()).expect(usage),
        )?,
        Some("--autonomous") => synth::write_autonomous_transcript(
            &mut out,
            size,
            args.get(4).and_then(|s| s.parse().ok()).expect(usage),
        )?,
        _ => synth::write_transcript(&mut out, size)?,
    };
    eprintln!("wrote {written} bytes to {path}");
    Ok(())
}
