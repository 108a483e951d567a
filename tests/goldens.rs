//! Goldens (#40, D038): what the binary prints for every real transcript in the shared corpus
//! (and each one's moment of restore, where it has a compaction), for the fixtures the real CLIs
//! wrote (and the 2.1.328 fixture's first restore, before its boundary was written), and for
//! every labelled summary of `tests/fixtures/corrections/labelled.json`, kept in
//! `tests/goldens/`, one file per transcript (per set for the labelled summaries). A change in
//! any of it fails `cargo test` with a line diff; when the change is meant,
//!
//! ```text
//! COMPACT_GUARDIAN_BLESS=1 cargo test goldens
//! ```
//!
//! writes the new outputs, and the review reads them as a diff of `tests/goldens/`. Nothing here
//! judges the output: a golden only says it did not change unseen. The outputs are made
//! deterministic first: the time a snapshot was taken, the sandbox's and the corpus's paths.

use crate::common::*;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the goldens live.
fn goldens() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/goldens")
}

/// Whether this run writes the goldens instead of comparing with them.
fn blessing() -> bool {
    std::env::var_os("COMPACT_GUARDIAN_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Compares `actual` with the golden at `rel` (under `tests/goldens/`), or writes it when
/// blessing. Returns what is wrong, if anything.
fn golden(rel: &str, actual: &str) -> Option<String> {
    let path = goldens().join(rel);
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if std::fs::read_to_string(&path).ok().as_deref() != Some(actual) {
            std::fs::write(&path, actual).unwrap();
            eprintln!("blessed {}", path.display());
        }
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "tests/goldens/{rel} differs (- golden, + now):\n{}",
            line_diff(&expected, actual)
        )),
        Err(_) => Some(format!("tests/goldens/{rel} is missing")),
    }
}

/// Fails with every golden that differs, and how to accept the change.
fn assert_goldens(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{}\n\n{} golden(s) differ. If the change is meant, run\n    COMPACT_GUARDIAN_BLESS=1 cargo test goldens\nand review the diff of tests/goldens/.",
        problems.join("\n\n"),
        problems.len()
    );
}

/// The files in `tests/goldens/<dir>` that no golden of this run wrote: left from a transcript
/// that is gone. Removed when blessing, reported otherwise.
fn stale(dir: &str, written: &[String]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(goldens().join(dir)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let rel = format!("{dir}/{}", e.file_name().to_string_lossy());
        if !written.contains(&rel) {
            if blessing() {
                std::fs::remove_file(e.path()).unwrap();
            } else {
                out.push(format!("tests/goldens/{rel} belongs to no transcript"));
            }
        }
    }
    out
}

/// The lines of `b` against those of `a`, as `-`/`+`/` ` lines, unchanged runs shortened to
/// three lines of context around each change.
fn line_diff(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    // Longest common subsequence, by the table of suffix lengths (goldens are a few hundred lines).
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        ops[k.saturating_sub(3)..(k + 4).min(ops.len())]
            .iter()
            .any(|(op, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op == ' ' && !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  ...\n");
            skipped = false;
        }
        let _ = writeln!(out, "{op} {line}");
    }
    out
}

/// `text` with what changes from run to run or machine to machine named instead: the time a
/// snapshot was taken, and the given paths (longest first).
fn normalized(text: &str, paths: &[(&Path, &str)]) -> String {
    let mut s: String = text
        .lines()
        .map(|l| match l.strip_prefix("- Taken: ") {
            Some(rest) => format!(
                "- Taken: <time>{}",
                &rest[rest.find(',').unwrap_or(rest.len())..]
            ),
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    let mut paths = paths.to_vec();
    paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.as_os_str().len()));
    for (path, name) in paths {
        s = s.replace(&path.display().to_string(), name);
    }
    s
}

/// A hook's output, read as the client reads it: the text the model gets and the user's line.
fn as_client_reads(out: &str) -> (String, String) {
    match serde_json::from_str::<Value>(out.trim()) {
        Ok(v) if v.is_object() => (
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            v["systemMessage"].as_str().unwrap_or_default().to_owned(),
        ),
        _ => (out.to_owned(), String::new()),
    }
}

/// One golden's text: labelled blocks, each what one reader gets.
fn blocks(parts: &[(&str, &str)]) -> String {
    let mut s = String::new();
    for (label, text) in parts {
        let _ = writeln!(s, "==== {label} ====");
        s.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

/// A compaction of `transcript` as the client runs its hooks: `save` (PreCompact, automatic),
/// then `restore` (SessionStart, compact). What each prints, normalized.
fn compaction(sb: &Sandbox, transcript: &Path, name: &str) -> String {
    let session = "golden";
    let pre = json!({"session_id": session, "transcript_path": transcript,
        "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null});
    let save = sb.cmd(&["save"]).stdin(pre.to_string()).run();
    save.assert_fail_open();
    let (model, user) = restored(sb, transcript, session);
    normalized(
        &blocks(&[
            (
                "save prints (the directive for the summarizer)",
                &save.stdout,
            ),
            ("restore gives the model", &model),
            ("restore tells the user", &user),
        ]),
        &[(transcript, name), (sb.root.path(), "<sandbox>")],
    )
}

/// `restore` of `session` (SessionStart, compact) as the client shows it: what the model gets
/// and what the user is told.
fn restored(sb: &Sandbox, transcript: &Path, session: &str) -> (String, String) {
    let start = json!({"session_id": session, "transcript_path": transcript,
        "hook_event_name": "SessionStart", "source": "compact"});
    let restore = sb.cmd(&["restore"]).stdin(start.to_string()).run();
    restore.assert_fail_open();
    as_client_reads(&restore.stdout)
}

/// Restore with no snapshot saved: the context rebuilt from `transcript` as it is.
fn rebuilt(sb: &Sandbox, transcript: &Path, name: &str) -> String {
    let (model, user) = restored(sb, transcript, "golden-rebuilt");
    normalized(
        &blocks(&[
            ("restore gives the model (nothing saved: rebuilt)", &model),
            ("restore tells the user", &user),
        ]),
        &[(transcript, name), (sb.root.path(), "<sandbox>")],
    )
}

/// The file cut just before its first compaction boundary: the transcript as Claude Code 2.1.3xx
/// leaves it when its SessionStart(compact) hook runs (D006). `None` without a boundary.
fn cut_at_first_boundary(body: &[u8]) -> Option<Vec<u8>> {
    let at = memchr::memmem::find(body, br#""subtype":"compact_boundary""#)?;
    let line_start = body[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    Some(body[..line_start].to_vec())
}

/// A transcript's golden name: its file name without `.jsonl`.
fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// One transcript: its compaction, and (with a boundary) its moment of restore, cut there.
fn transcript_goldens(dir: &str, path: &Path, problems: &mut Vec<String>) -> Vec<String> {
    let name = stem(path);
    let sb = Sandbox::new();
    let mut written = Vec::new();
    let rel = format!("{dir}/{name}.md");
    problems.extend(golden(&rel, &compaction(&sb, path, &format!("<{name}>"))));
    written.push(rel);
    if let Some(cut) = cut_at_first_boundary(&std::fs::read(path).unwrap()) {
        let t = sb.path(&format!("{name}.jsonl"));
        std::fs::write(&t, cut).unwrap();
        let rel = format!("{dir}/{name}.at-first-compaction.md");
        problems.extend(golden(&rel, &rebuilt(&sb, &t, &format!("<{name}, cut>"))));
        written.push(rel);
    }
    written
}

corpus_test!(goldens_of_every_real_transcript, |dir| {
    let files = corpus_files(&dir);
    assert!(
        files.len() >= 18,
        "{} transcripts in {}",
        files.len(),
        dir.display()
    );
    let mut problems = Vec::new();
    let mut written = Vec::new();
    for path in &files {
        written.extend(transcript_goldens("real", path, &mut problems));
    }
    problems.extend(stale("real", &written));
    assert_goldens(problems);
});

#[test]
fn goldens_of_the_fixtures_the_real_clis_wrote() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut problems = Vec::new();
    let mut written = Vec::new();
    for name in [
        "cli-2.1.328-two-compactions.jsonl",
        "codex-0.169-plan-patch-fail-auto-compaction.jsonl",
    ] {
        written.extend(transcript_goldens(
            "fixtures",
            &fixtures.join(name),
            &mut problems,
        ));
    }
    problems.extend(stale("fixtures", &written));
    assert_goldens(problems);
}

/// Every labelled summary through the binary as Claude Code runs the hooks after a manual
/// `/compact`: save and restore on a small session, the case's digest in place of the one save
/// kept, the audit with the case's summary (its line for the user), then the next prompt's
/// `correct` (what the model is handed, and the user's line with it).
#[test]
fn goldens_of_the_labelled_summaries() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/corrections/labelled.json"
    );
    let set: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = String::new();
    for case in set["cases"].as_array().unwrap() {
        let (sb, t) = Sandbox::with_transcript(&small_session());
        sb.save(&hook("s", &t)).assert_fail_open();
        sb.restore(&start_hook("s", &t)).assert_fail_open();
        let digest = std::fs::read_dir(&sb.store)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().contains("digest"))
            .expect("save keeps a digest");
        let mut planted = case["digest"].clone();
        planted["saved_at"] = json!(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        );
        std::fs::write(&digest, planted.to_string()).unwrap();
        let summary = case["summary"].as_str().unwrap();
        let audit = sb.audit("s", &t, "manual", summary);
        audit.assert_fail_open();
        let prompt = json!({"session_id": "s", "transcript_path": t,
            "hook_event_name": "UserPromptSubmit", "prompt": "go on"});
        let correct = sb.cmd(&["correct"]).stdin(prompt.to_string()).run();
        correct.assert_fail_open();
        let (model, user) = as_client_reads(&correct.stdout);
        let _ = writeln!(out, "######## {}", case["name"].as_str().unwrap());
        out.push_str(&normalized(
            &blocks(&[
                ("the audit tells the user", &audit.stdout),
                ("correct gives the model", &model),
                ("correct tells the user", &user),
            ]),
            &[(&t, "<transcript>"), (sb.root.path(), "<sandbox>")],
        ));
    }
    let mut problems: Vec<String> = golden("corrections/labelled.md", &out)
        .into_iter()
        .collect();
    problems.extend(stale("corrections", &["corrections/labelled.md".into()]));
    assert_goldens(problems);
}

#[test]
fn the_line_diff_shows_what_changed_in_context() {
    let a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    let b = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n";
    assert_eq!(
        line_diff(a, b),
        "  ...\n  3\n  4\n  5\n- 6\n+ six\n  7\n  8\n  9\n"
    );
    assert_eq!(line_diff("a\n", "a\n"), "");
}
