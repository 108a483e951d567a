//! The corrections evaluation set (issue #38, `tests/fixtures/eval/`): its TUNE half through
//! `scripts/eval/run.py`, which drives this build's binary hook by hook as each client does.
//! Fails when any true summary gets a correction; prints the figures (recall, precision) and
//! leaves recall thresholds to whoever tunes the corrections. The held-out half is never run
//! here: its figures are read by hand (`scripts/eval-corrections heldout`).

use std::path::PathBuf;
use std::process::Command;

/// The shared corpus: `COMPACT_GUARDIAN_TRANSCRIPTS`, else `../shared/transcripts` beside this
/// checkout (where build.rs looks).
fn transcripts() -> Option<PathBuf> {
    let dir = std::env::var_os("COMPACT_GUARDIAN_TRANSCRIPTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/transcripts"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("COMPACT_GUARDIAN_REQUIRE_CORPUS").is_none(),
        "COMPACT_GUARDIAN_REQUIRE_CORPUS is set but {} is absent",
        dir.display()
    );
    eprintln!("skipping: {} is absent", dir.display());
    None
}

#[test]
#[cfg_attr(
    cg_no_corpus,
    ignore = "needs the shared corpus of real transcripts in ../shared/transcripts"
)]
fn no_true_summary_of_the_tune_half_gets_a_correction() {
    let Some(dir) = transcripts() else { return };
    // The set is Python (standard library only): without python3 this test fails, it never
    // passes without having run.
    let python = Command::new("python3").arg("--version").output();
    assert!(
        python.as_ref().is_ok_and(|o| o.status.success()),
        "the evaluation set needs python3 on PATH: {python:?}"
    );
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("scripts/eval/run.py"))
        .args([
            "tune",
            "--assert",
            "--bin",
            env!("CARGO_BIN_EXE_compact-guardian"),
        ])
        .env("COMPACT_GUARDIAN_TRANSCRIPTS", &dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{report}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        report.contains("true summaries corrected"),
        "the runner printed no figures"
    );
    assert!(
        out.status.success(),
        "true summaries of the tune half got corrections (see the per-case lines above)"
    );
}
