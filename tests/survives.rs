//! What survives a compaction (#50), measured on the shared corpus at cut points: each real
//! transcript of the corpus and of the external evaluation's sessions beside it
//! (`../eval-external/transcripts`) is cut at four points, after each failed check and after up
//! to six runs of checks; the snapshot `save` would write for the prefix is rendered, and each
//! kind of fact is checked against a reading of the prefix written apart from the project's
//! reader (plain `serde_json`, its own notion of a failure, a check and a file written):
//!
//! - why the last failed command failed (a line of its output that says it is an error), shown
//!   as a `why:` line quoting that output, for at least 90% of those that have one, and for
//!   failed checks;
//! - the last run of each check command with its outcome, at least 95%;
//! - every file written by a successful edit, its base name shown whole in the files section,
//!   at least 98%;
//! - every snapshot whole and within its budget.
//!
//! A kind with no cases fails: a measure of nothing is not a pass. The external sessions are
//! needed (without them the test is built ignored, saying so): the corpus alone has no run of
//! a check, and its failed commands' reasons are 13 of 15 (0.87, measured on 5c0e5e9), under
//! the floor the two sets hold together (28 of 30). The counts are printed (`--nocapture`) so
//! that a change shows what it moved.

use crate::common::corpus;
use compact_guardian::extract::Part;
use compact_guardian::pipeline::build;
use compact_guardian::read::transcript::Limits;
use compact_guardian::render::{Meta, Source, TARGET, utf16_len, wholeness_error};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One tool call of the main conversation, as this reading sees it.
struct Call {
    name: String,
    input: Value,
    /// Its result: whether it failed, and its text.
    result: Option<(bool, String)>,
    /// The line (index) its result is on.
    result_line: usize,
}

/// The main conversation's tool calls in the first `upto` lines, in order.
fn calls(lines: &[&str], upto: usize) -> Vec<Call> {
    let mut out: Vec<Call> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (n, line) in lines[..upto].iter().enumerate() {
        let Ok(rec) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if rec["isSidechain"] == Value::Bool(true) {
            continue;
        }
        let Some(blocks) = rec["message"]["content"].as_array() else {
            continue;
        };
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => {
                    at.insert(b["id"].as_str().unwrap_or("").to_owned(), out.len());
                    out.push(Call {
                        name: b["name"].as_str().unwrap_or("").to_owned(),
                        input: b["input"].clone(),
                        result: None,
                        result_line: 0,
                    });
                }
                Some("tool_result") => {
                    let id = b["tool_use_id"].as_str().unwrap_or("");
                    let Some(&i) = at.get(id) else { continue };
                    let text = crate::common::content_text(&b["content"]);
                    let failed = b["is_error"] == Value::Bool(true)
                        || text
                            .strip_prefix("Exit code ")
                            .is_some_and(|r| !r.starts_with('0'));
                    out[i].result = Some((failed, text));
                    out[i].result_line = n;
                }
                _ => {}
            }
        }
    }
    out
}

/// The shell command a call ran, if it is one.
fn command(c: &Call) -> Option<&str> {
    (c.name == "Bash").then(|| c.input["command"].as_str())?
}

/// Whether the CLI, not the command, ended it: a refusal, an interruption, a timeout, a block.
fn not_run(text: &str) -> bool {
    [
        "doesn't want to",
        "interrupted",
        "running in background",
        "was blocked",
        "Cancelled",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// This reading's notion of a check: a test runner, a build, a linter or a type checker named as
/// a command's program (its own list, not the project's).
fn is_check(cmd: &str) -> bool {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    words.windows(2).any(|w| {
        matches!(
            w[0],
            "npm" | "pnpm" | "yarn" | "bun" | "run" | "cargo" | "go" | "make"
        ) && matches!(
            w[1],
            "test" | "build" | "lint" | "typecheck" | "check" | "clippy" | "vet"
        )
    }) || words.iter().any(|w| {
        matches!(
            *w,
            "pytest" | "jest" | "vitest" | "tsc" | "eslint" | "mypy" | "ruff"
        )
    })
}

/// A line of the output that says it is an error, in this reading's own words.
fn says_error(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.to_lowercase();
        !l.contains("warning")
            && [
                "error",
                "fail",
                "no such file",
                "not found",
                "fatal",
                "timed out",
                "cannot",
            ]
            .iter()
            .any(|m| l.contains(m))
    })
}

/// The snapshot's `why:` lines, their quoted text without a cut mark.
fn whys(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("why: "))
        .map(|w| w.trim_end_matches('…').to_owned())
        .collect()
}

/// Whitespace runs folded to one space, terminal colour codes dropped: how the snapshot shows a
/// line.
fn folded(s: &str) -> String {
    let mut plain = String::new();
    let mut in_code = false;
    for c in s.chars() {
        match c {
            '\u{1b}' => in_code = true,
            c if in_code => in_code = !c.is_ascii_alphabetic(),
            c => plain.push(c),
        }
    }
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines of the snapshot's section under `heading`.
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.split("\n## ")
        .find(|s| s.starts_with(heading))
        .map(|s| s.lines().skip(1).collect())
        .unwrap_or_default()
}

/// Hits and totals per kind of fact.
#[derive(Default, Debug)]
struct Tally {
    cuts: usize,
    why: (usize, usize),
    why_checks: (usize, usize),
    checks: (usize, usize),
    files: (usize, usize),
}

fn measure_cut(lines: &[&str], upto: usize, dir: &Path, t: &mut Tally) {
    let path = dir.join("cut.jsonl");
    std::fs::write(&path, lines[..upto].join("\n") + "\n").unwrap();
    let limits = Limits {
        max_bytes: None,
        deadline: None,
    };
    let built = build(&path, Part::Whole, limits).unwrap();
    let meta = Meta {
        taken_at: SystemTime::UNIX_EPOCH,
        trigger: Some("auto".into()),
        cwd: None,
        git_branch: None,
        focus: None,
        source: Source::Saved,
    };
    let Some(text) = built.render(&meta) else {
        return;
    };
    t.cuts += 1;
    assert!(utf16_len(&text) <= TARGET);
    assert_eq!(wholeness_error(&text), None);
    let calls = calls(lines, upto);
    let shown = whys(&text);
    let quoted = |out: &str| {
        let out = folded(out);
        shown
            .iter()
            .any(|w| !w.is_empty() && out.contains(w.as_str()))
    };
    let failed = |c: &&Call| {
        command(c).is_some()
            && c.result
                .as_ref()
                .is_some_and(|(f, out)| *f && !not_run(out) && says_error(out))
    };
    if let Some(c) = calls.iter().rev().find(failed) {
        t.why.1 += 1;
        let hit = quoted(&c.result.as_ref().unwrap().1);
        if !hit {
            eprintln!(
                "MISS why: {:?} {:?} {:?}",
                command(c),
                c.result
                    .as_ref()
                    .map(|r| r.1.chars().take(300).collect::<String>()),
                shown
            );
        }
        t.why.0 += usize::from(hit);
    }
    let is_a_check = |c: &&Call| command(c).is_some_and(is_check);
    // The last failed check, unless a later run of the same command passed (then the snapshot
    // rightly shows it passing).
    let ran = |c: &&Call| c.result.as_ref().is_some_and(|(_, out)| !not_run(out));
    let checks_run: Vec<&Call> = calls.iter().filter(is_a_check).filter(ran).collect();
    if let Some(c) = checks_run.iter().rev().find(|c| failed(c))
        && checks_run
            .iter()
            .rev()
            .find(|l| command(l) == command(c))
            .is_some_and(|l| std::ptr::eq(*l, *c))
    {
        t.why_checks.1 += 1;
        let hit = quoted(&c.result.as_ref().unwrap().1);
        if !hit {
            eprintln!("MISS whycheck {:?} {shown:?}", command(c));
        }
        t.why_checks.0 += usize::from(hit);
    }
    // The last run of each check command with a result the command itself gave.
    let runs = section(&text, "Last run of each check");
    let mut last: HashMap<&str, bool> = HashMap::new();
    for c in calls.iter().filter(is_a_check) {
        match &c.result {
            Some((f, out)) if !not_run(out) => {
                last.insert(command(c).unwrap_or(""), *f);
            }
            _ => {}
        }
    }
    for (cmd, f) in last {
        let head: String = folded(cmd.lines().next().unwrap_or(""))
            .chars()
            .take(40)
            .collect();
        let word = if f { "FAILED" } else { "passed" };
        t.checks.1 += 1;
        let hit = runs.iter().any(|l| l.contains(&head) && l.contains(word));
        if !hit {
            eprintln!("MISS check {head:?} {word} {runs:?}");
        }
        t.checks.0 += usize::from(hit);
    }
    let files = shown_files(&text);
    let mut written: Vec<String> = Vec::new();
    for c in &calls {
        let edit = matches!(
            c.name.as_str(),
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit"
        );
        let ok = c.result.as_ref().is_some_and(|(f, _)| !f);
        let p = c.input["file_path"]
            .as_str()
            .or(c.input["notebook_path"].as_str());
        if let (true, true, Some(p)) = (edit, ok, p) {
            let base = p.rsplit(['/', '\\']).next().unwrap_or(p).to_owned();
            if !written.contains(&base) {
                written.push(base);
            }
        }
    }
    for base in written {
        t.files.1 += 1;
        let hit = files.contains(&base);
        if !hit {
            eprintln!("MISS file {base} {files:?}");
        }
        t.files.0 += usize::from(hit);
    }
}

/// The base names the snapshot's "Files changed" section shows, each whole: its lines are
/// `- <folder>: <name>, <name>`, and a line cut for room ends in a cut mark, so its last name is
/// not one of them; the line naming what was left out names no file.
fn shown_files(text: &str) -> Vec<String> {
    section(text, "Files changed")
        .iter()
        .filter_map(|l| l.strip_prefix("- "))
        .filter(|l| !l.starts_with("... left out for space"))
        .filter_map(|l| l.split_once(": ").map(|(_, names)| names))
        .flat_map(|names| names.split(", "))
        .map(str::to_owned)
        .collect()
}

/// The transcripts measured: the corpus and, beside it, the external evaluation's sessions
/// (without them no check's run is measured: the test is then built ignored, `build.rs`).
fn transcripts(dir: &Path) -> Vec<PathBuf> {
    let external = dir.join("../eval-external/transcripts");
    assert!(
        external.is_dir(),
        "{} is absent: without it no run of a check is measured",
        external.display()
    );
    let mut out = crate::common::corpus_files(dir);
    out.extend(crate::common::corpus_files(&external));
    out.sort();
    out
}

/// The share of `kind`'s cases the snapshot got right. A kind with no cases measured nothing:
/// that fails, it never counts as a pass.
fn ratio(kind: &str, (hit, all): (usize, usize)) -> f64 {
    assert!(all > 0, "{kind}: no cases, so nothing was measured");
    hit as f64 / all as f64
}

#[test]
#[cfg_attr(
    cg_no_corpus,
    ignore = "needs the shared corpus of real transcripts: ../shared/transcripts, or COMPACT_GUARDIAN_CORPUS=<dir>"
)]
#[cfg_attr(
    all(not(cg_no_corpus), cg_no_eval_external),
    ignore = "needs the external evaluation's sessions beside the corpus (../eval-external/transcripts): the corpus alone has no run of a check"
)]
fn what_survives_a_compaction_on_the_corpus_at_cut_points() {
    let dir = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let mut t = Tally::default();
    for file in transcripts(&dir) {
        let body = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = body.lines().collect();
        let n = lines.len();
        let mut cuts: Vec<usize> = (1..=4).map(|q| n * q / 4).filter(|&k| k > 0).collect();
        // After each failed check's result (at most three per file): the moment a check fails
        // is when its reason matters most; and after the runs of checks spread over the file
        // (at most six), where the last run of each is what matters.
        let all = calls(&lines, n);
        let checks: Vec<&Call> = all
            .iter()
            .filter(|c| command(c).is_some_and(is_check) && c.result.is_some())
            .collect();
        let failed_checks = checks
            .iter()
            .filter(|c| c.result.as_ref().is_some_and(|(f, _)| *f))
            .map(|c| c.result_line + 1)
            .take(3);
        cuts.extend(failed_checks);
        let step = checks.len().div_ceil(6).max(1);
        cuts.extend(checks.iter().step_by(step).map(|c| c.result_line + 1));
        cuts.sort_unstable();
        cuts.dedup();
        for k in cuts {
            measure_cut(&lines, k, tmp.path(), &mut t);
        }
    }
    eprintln!("what survives: {t:?}");
    // Never a measure of nothing: the corpus holds these facts.
    assert!(t.cuts >= 40, "{t:?}");
    assert!(t.why.1 >= 10 && t.files.1 >= 100, "{t:?}");
    let why = ratio("why the last failed command failed", t.why);
    let why_checks = ratio("why the last failed check failed", t.why_checks);
    let checks = ratio("the last run of each check", t.checks);
    let files = ratio("files changed", t.files);
    assert!(why >= 0.90, "why the last failed command failed: {t:?}");
    assert!(why_checks >= 0.90, "why the last check failed: {t:?}");
    assert!(checks >= 0.95, "the last run of each check: {t:?}");
    assert!(files >= 0.98, "files changed: {t:?}");
}
