//! For whoever tunes the corrections (#38): how each sentence of a summary is read (its section's
//! role, whether it asserts, its clauses), and, given the digest `save` kept, the corrections.
//!
//! `cargo run --example explain_summary -- <summary-file> [<digest.json>]`

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(summary) = args.first() else {
        eprintln!("usage: explain_summary <summary-file> [<digest.json>]");
        std::process::exit(2);
    };
    let summary = std::fs::read_to_string(summary).expect("the summary file");
    print!("{}", compact_guardian::corrections::explain(&summary));
    if let Some(digest) = args.get(1) {
        let bytes = std::fs::read(digest).expect("the digest file");
        let digest = compact_guardian::corrections::digest::Digest::read(&bytes)
            .expect("a digest save wrote");
        println!("\ncorrections:");
        for c in compact_guardian::corrections::corrections(&digest, &summary) {
            println!("- {:?}: {}", c.kind, c.text);
        }
    }
}
