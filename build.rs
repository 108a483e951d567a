//! Tells the test suite which outside pieces are present: the real Claude Code and Codex CLIs
//! and OpenCode (installed into `.e2e/` by `.ci/run`), `python3` (the peak-RSS test reads a
//! child's usage through it), `node` (it runs the stand-in for OpenCode 2's plugin host) and the
//! shared corpus of real transcripts (`../shared/transcripts`, or the folder
//! `COMPACT_GUARDIAN_CORPUS` names, e.g. from a worktree elsewhere; the tests find it again
//! themselves by the same rule, `tests/common`), with the external evaluation's sessions beside
//! it (`../eval-external/transcripts`). A test that needs an absent piece is then reported as
//! ignored, with what it needs, in cargo's own summary, instead of passing without running. With
//! `COMPACT_GUARDIAN_REQUIRE_E2E` / `COMPACT_GUARDIAN_REQUIRE_CORPUS` set (as CI sets them)
//! nothing is ignored: an absent piece fails its tests. The binary itself is unaffected.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    // Only this script by default: a build in a user's clone (no `.e2e/`, no corpus) must not
    // find itself stale on every run (issue #47).
    println!("cargo::rerun-if-changed=build.rs");
    let present = |var: &str, default: PathBuf| -> bool {
        println!("cargo::rerun-if-env-changed={var}");
        let path = env::var_os(var).map_or(default, PathBuf::from);
        watch(&path);
        path.exists()
    };
    let required = |var: &str| {
        println!("cargo::rerun-if-env-changed={var}");
        env::var_os(var).is_some()
    };
    let e2e = required("COMPACT_GUARDIAN_REQUIRE_E2E");
    let corpus = required("COMPACT_GUARDIAN_REQUIRE_CORPUS");
    let claude = root.join(".e2e/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
    let codex = root.join(
        ".e2e/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    );
    let opencode = root.join(".e2e/opencode/node_modules/opencode-linux-x64/bin/opencode");
    println!("cargo::rerun-if-env-changed=COMPACT_GUARDIAN_CORPUS");
    let shared = env::var_os("COMPACT_GUARDIAN_CORPUS")
        .map_or_else(|| root.join("../shared/transcripts"), PathBuf::from);
    println!("cargo::rerun-if-env-changed=PATH");
    let python3 = env::var_os("PATH")
        .is_some_and(|path| env::split_paths(&path).any(|dir| dir.join("python3").is_file()));
    if !e2e && !python3 {
        println!("cargo::rustc-cfg=cg_no_python3");
    }
    // Node runs the stand-in for OpenCode 2's plugin host (tests/opencode_v2.rs).
    let node = env::var_os("PATH")
        .is_some_and(|path| env::split_paths(&path).any(|dir| dir.join("node").is_file()));
    if !e2e && !node {
        println!("cargo::rustc-cfg=cg_no_node");
    }
    if !e2e && !present("COMPACT_GUARDIAN_CLAUDE", claude) {
        println!("cargo::rustc-cfg=cg_no_claude");
    }
    if !e2e && !present("COMPACT_GUARDIAN_CODEX", codex) {
        println!("cargo::rustc-cfg=cg_no_codex");
    }
    if !e2e && !present("COMPACT_GUARDIAN_OPENCODE", opencode) {
        println!("cargo::rustc-cfg=cg_no_opencode");
    }
    watch(&shared);
    if !corpus && !shared.is_dir() {
        println!("cargo::rustc-cfg=cg_no_corpus");
    }
    // The external evaluation's sessions beside the corpus: the only runs of checks the
    // measure of what survives a compaction has (tests/survives.rs).
    let external = shared.join("../eval-external/transcripts");
    watch(&external);
    if !corpus && !external.is_dir() {
        println!("cargo::rustc-cfg=cg_no_eval_external");
    }
}

/// Asks cargo to run this script again when `path` changes, but only for a path that exists:
/// cargo takes a missing path as changed on every build, so a clone without `.e2e/` or the
/// corpus recompiled the crate at each `cargo build` (issue #47). A piece installed later
/// (`npm install --prefix .e2e/...`) is seen when this script next runs: `.ci/run` sets
/// `COMPACT_GUARDIAN_REQUIRE_E2E`, which runs it; by hand, `touch build.rs`.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo::rerun-if-changed={}", path.display());
    }
}
