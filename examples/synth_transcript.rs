//! Writes a synthetic transcript in the 2.1.3xx layout for benchmarks:
//! `cargo run --release --example synth_transcript -- <bytes> <out.jsonl> [--gap <bytes> | --autonomous <record bytes> | --no-tasks | --old-cli | --codex <record bytes> | --tiny <shape> | --soup]`.
//! `--codex`: a Codex CLI rollout whose five prompts sit `<bytes>` back behind tool calls.
//! `--tiny <shape>`: three prompts, then `<bytes>` of 30-byte records of one shape (`progress`,
//! `linked`, `untyped`, `assistant`); `--soup`: a prompt behind 2 MB of wrapper-tag runs
//! (`<bytes>` unused).
//! `--no-tasks`: no task tool in the session (the common case); `--old-cli`: no task tool and
//! no `tools-used` records (CLIs before 2.1.3xx), so only a search can show there is no task list.

#[path = "../benches/support/synth.rs"]
mod synth;

use std::io::BufWriter;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: synth_transcript <bytes> <out.jsonl> [--gap <bytes> | --autonomous <record bytes> | --no-tasks | --old-cli | --codex <record bytes> | --tiny <shape> | --soup]";
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
        Some("--codex") => synth::write_codex_rollout(
            &mut out,
            size,
            args.get(4).and_then(|s| s.parse().ok()).expect(usage),
        )?,
        Some("--tiny") => synth::write_tiny_transcript(&mut out, size, args.get(4).expect(usage))?,
        Some("--soup") => synth::write_soup_transcript(&mut out)?,
        Some(flag @ ("--no-tasks" | "--old-cli")) => {
            let mut s = synth::Synth::new();
            s.tasks = false;
            s.tools_used = flag == "--no-tasks";
            synth::write_transcript_with(&mut out, size, s)?
        }
        _ => synth::write_transcript(&mut out, size)?,
    };
    eprintln!("wrote {written} bytes to {path}");
    Ok(())
}
