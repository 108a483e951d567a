//! The save/restore/preview contract, through the built binary: round trip, single use, TTL,
//! per-session isolation, path rules, permissions, steering, the restore fallback, preview.

use crate::common::*;
use std::fs;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;

#[test]
fn round_trip_save_then_restore_prints_snapshot_once() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let save = sb.save(&hook("s1", &t));
    save.assert_fail_open();
    assert!(save.stderr.is_empty(), "{}", save.stderr);
    let r = sb.restore(&start_hook("s1", &t));
    r.assert_fail_open();
    let out = &r.stdout;
    assert!(out.starts_with("# [compact-guardian snapshot]"), "{out}");
    assert!(out.contains("> fix the failing test, then stop — ünïcødé ✓"));
    assert!(out.contains("> add a parser for the config file"));
    assert!(out.contains("/work/app/src/parse.rs"));
    assert!(out.contains("Bash: cargo test  [FAILED]"));
    assert!(
        out.contains("> keep the parser work"),
        "focus text verbatim"
    );
    assert!(out.contains("before a manual compaction"));
    assert!(!sb.snapshot_path("s1").exists(), "deleted after restore");
    // Used once: a second restore right after (a duplicate hook) prints nothing at all.
    let again = sb.restore(&start_hook("s1", &t));
    again.assert_fail_open();
    assert_eq!(again.stdout, "");
}

#[cfg(unix)] // file modes; on Windows files take the folder's ACL (README: guarantees)
#[test]
fn snapshot_file_is_private_and_folder_created_0700() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    let mode = fs::metadata(sb.snapshot_path("s1"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let dmode = fs::metadata(&sb.store).unwrap().permissions().mode() & 0o777;
    assert_eq!(dmode, 0o700);
}

#[test]
fn stale_snapshot_is_not_restored() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    set_old(&sb.snapshot_path("s1"), 11 * 60);
    let r = sb.restore(&start_hook("s1", &t));
    r.assert_fail_open();
    assert!(
        !r.stdout.contains("Saved by"),
        "the stale snapshot is not printed"
    );
    assert!(
        r.stdout.contains("Rebuilt by"),
        "the context is rebuilt from the transcript instead"
    );
    assert!(
        !sb.snapshot_path("s1").exists(),
        "a stale snapshot is removed"
    );
}

#[test]
fn ttl_is_configurable() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    set_old(&sb.snapshot_path("s1"), 120);
    let r = sb
        .cmd(&["restore"])
        .env("COMPACT_GUARDIAN_TTL_SECS", "90")
        .stdin(start_hook("s1", &t))
        .run();
    r.assert_fail_open();
    assert!(!r.stdout.contains("Saved by") && r.stdout.contains("Rebuilt by"));
}

#[test]
fn save_removes_other_stale_snapshots() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("old", &t)).assert_fail_open();
    set_old(&sb.snapshot_path("old"), 3600);
    sb.save(&hook("new", &t)).assert_fail_open();
    assert!(!sb.snapshot_path("old").exists());
    assert!(sb.snapshot_path("new").exists());
}

#[test]
fn sessions_are_isolated() {
    let sb = Sandbox::new();
    let a = sb.transcript("a.jsonl", &[prompt("u1", None, "session A work")]);
    let b = sb.transcript("b.jsonl", &[prompt("u1", None, "session B work")]);
    sb.save(&hook("A", &a)).assert_fail_open();
    sb.save(&hook("B", &b)).assert_fail_open();
    let ra = sb.restore(&start_hook("A", &a));
    assert!(ra.stdout.contains("session A work") && !ra.stdout.contains("session B work"));
    let rb = sb.restore(&start_hook("B", &b));
    assert!(rb.stdout.contains("session B work") && !rb.stdout.contains("session A work"));
}

#[test]
fn hostile_session_ids_never_leave_the_folder() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let long = "a".repeat(10_000);
    for id in [
        "x/../../escaped",
        "../../../../tmp/evil",
        "/etc/passwd",
        "a\\b",
        "..",
        ".",
        long.as_str(),
        // Names Windows reserves or mangles: device names, trailing dots and spaces, a drive.
        "CON",
        "nul",
        "com1",
        "aux.",
        "ends with space ",
        "C:\\Users\\x",
        "\\\\?\\C:\\x",
    ] {
        sb.save(&hook(id, &t)).assert_fail_open();
        let p = sb.snapshot_path(id.trim()); // hook input values are trimmed
        assert!(p.exists(), "{id}: {}", p.display());
        assert_eq!(p.parent().unwrap(), sb.store);
        let r = sb.restore(&start_hook(id, &t));
        r.assert_fail_open();
        assert!(r.stdout.contains("fix the failing test"), "{id}");
    }
    assert!(!sb.root.path().join("escaped").exists());
    // Everything written is inside the store, nothing beside it.
    let outside: Vec<_> = fs::read_dir(sb.root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outside.len(), 2, "{outside:?}"); // store/ and t.jsonl
}

#[test]
fn transcript_without_genuine_prompt_writes_nothing_and_removes_older_snapshot() {
    let sb = Sandbox::new();
    let good = sb.transcript("good.jsonl", &small_session());
    sb.save(&hook("s1", &good)).assert_fail_open();
    let empty = sb.transcript(
        "empty.jsonl",
        &[r#"{"type":"user","isMeta":true,"message":{"content":"<local-command-caveat>x</local-command-caveat>"}}"#.to_string()],
    );
    sb.save(&hook("s1", &empty)).assert_fail_open();
    assert!(!sb.snapshot_path("s1").exists());
}

#[test]
fn save_prints_the_summarizer_directive_unless_disabled() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let r = sb.save(&hook("s1", &t));
    assert!(
        r.stdout.starts_with("compact-guardian: in the summary"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("fix the failing test, then stop"));
    assert!(r.stdout.chars().count() <= 1500);
    let quiet = sb
        .cmd(&["save"])
        .env("COMPACT_GUARDIAN_STEER", "0")
        .stdin(hook("s2", &t))
        .run();
    quiet.assert_fail_open();
    assert_eq!(quiet.stdout, "");
    assert!(sb.snapshot_path("s2").exists());
}

#[test]
fn restore_rebuilds_from_transcript_when_no_snapshot_exists() {
    let sb = Sandbox::new();
    // As Claude Code 2.1.3xx leaves it when SessionStart(compact) runs: no new boundary yet.
    let t = sb.transcript("t.jsonl", &small_session());
    let r = sb.restore(&start_hook("s1", &t));
    r.assert_fail_open();
    assert_has_all(&r.stdout, &["Rebuilt by the compact-guardian plugin"]);
    assert!(r.stdout.contains("fix the failing test") && r.stdout.contains("add a parser"));
    // Not after a compaction: no rebuild.
    let startup = start_hook("s1", &t).replace("\"compact\"", "\"startup\"");
    assert_eq!(sb.restore(&startup).stdout, "");
}

#[test]
fn rebuild_stops_at_a_boundary_already_written() {
    let sb = Sandbox::new();
    let mut lines = small_session();
    lines.push(r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a3","compactMetadata":{"trigger":"auto"}}"#.into());
    lines.push(r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued from a previous conversation. Everything is done."}}"#.into());
    lines.push(r#"{"type":"assistant","uuid":"a9","parentUuid":"s","message":{"content":[{"type":"text","text":"AFTER-BOUNDARY reply"}]}}"#.into());
    let t = sb.transcript("t.jsonl", &lines);
    let r = sb.restore(&start_hook("s1", &t));
    assert_has_all(&r.stdout, &["fix the failing test"]);
    assert!(!r.stdout.contains("AFTER-BOUNDARY") && !r.stdout.contains("Everything is done"));
}

#[test]
fn rebuild_crosses_an_older_boundary() {
    let sb = Sandbox::new();
    let mut lines = vec![prompt("u0", None, "EARLIER-PROMPT")];
    lines.push(r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"u0"}"#.into());
    lines.push(r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued from a previous conversation."}}"#.into());
    lines.push(prompt("u1", Some("s"), "LATER-PROMPT"));
    let t = sb.transcript("t.jsonl", &lines);
    let r = sb.restore(&start_hook("s1", &t));
    assert_has_all(&r.stdout, &["EARLIER-PROMPT", "LATER-PROMPT"]);
}

#[test]
fn fresh_snapshot_wins_over_rebuild() {
    let sb = Sandbox::new();
    let mut lines = small_session();
    lines.push(
        r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"a3"}"#
            .into(),
    );
    let t = sb.transcript("t.jsonl", &lines);
    sb.save(&hook("s1", &t)).assert_fail_open();
    let r = sb.restore(&start_hook("s1", &t));
    assert!(r.stdout.contains("Saved by the compact-guardian plugin"));
    assert!(!r.stdout.contains("Rebuilt"));
}

#[test]
fn preview_prints_what_restore_would() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let input = serde_json::json!({"session_id":"s1","transcript_path":t}).to_string();
    sb.save(&input).assert_fail_open();
    let restored = sb.restore(&input).stdout;
    let preview = sb.cmd(&["preview", t.to_str().unwrap()]).run();
    assert_eq!(preview.code, Some(0));
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("- Taken:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&preview.stdout), strip(&restored));
}

#[test]
fn preview_json_has_the_documented_keys() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let r = sb.cmd(&["preview", "--json", t.to_str().unwrap()]).run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["instructions"][1],
        "fix the failing test, then stop — ünïcødé ✓"
    );
    assert!(v["tasks"].is_array());
    assert_eq!(v["checklist"][0], "- [ ] fix parse_empty");
    assert_eq!(v["last_response"], "Working on it.\n- [ ] fix parse_empty");
    assert_eq!(v["files_changed"][0], "/work/app/src/parse.rs");
    let a = &v["actions"][1];
    assert_eq!(
        (
            a["tool"].as_str(),
            a["summary"].as_str(),
            a["error"].as_bool(),
            a["count"].as_u64()
        ),
        (Some("Bash"), Some("cargo test"), Some(true), Some(1))
    );
}

#[test]
fn preview_fails_loudly_on_bad_input() {
    let sb = Sandbox::new();
    let r = sb.cmd(&["preview", "/nonexistent/t.jsonl"]).run();
    assert_ne!(r.code, Some(0));
    assert_has_all(&r.stderr, &["could not stat transcript"]);
    let empty = sb.transcript("e.jsonl", &["{}".to_string()]);
    let r = sb.cmd(&["preview", empty.to_str().unwrap()]).run();
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("nothing to report"));
    assert_ne!(sb.cmd(&["preview"]).run().code, Some(0), "missing argument");
}

#[test]
fn help_version_and_bad_arguments() {
    let v = Cmd::new(&["--version"]).run();
    assert_eq!(v.code, Some(0));
    assert_eq!(
        v.stdout.trim(),
        format!("compact-guardian {}", env!("CARGO_PKG_VERSION"))
    );
    let h = Cmd::new(&["--help"]).run();
    assert!(
        h.stdout.contains("save") && h.stdout.contains("restore") && h.stdout.contains("preview")
    );
    // No arguments: the help, not an empty "compact-guardian: " line.
    let bare = Cmd::new(&[]).run();
    assert_eq!(bare.code, Some(0));
    assert!(bare.stdout.contains("Usage") && bare.stdout.contains("restore"));
    assert!(bare.stderr.is_empty());
    // A hook command line clap rejects must still not fail the session.
    Cmd::new(&["save", "--bogus"]).run().assert_fail_open();
    Cmd::new(&["audit", "--bogus"]).run().assert_fail_open();
    // Anything else is a person at a terminal: clap's error names the word, suggests, exits 2.
    let typo = Cmd::new(&["previw", "x"]).run();
    assert_eq!(typo.code, Some(2));
    assert_has_all(&typo.stderr, &["'previw'", "'preview'"]);
    let bogus = Cmd::new(&["restorex"]).run();
    assert_eq!(bogus.code, Some(2));
    assert_has_all(&bogus.stderr, &["'restorex'"]);
}

#[test]
fn debug_mode_explains_on_stderr() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let r = sb
        .cmd(&["save"])
        .env("COMPACT_GUARDIAN_DEBUG", "1")
        .stdin(hook("s1", &t))
        .run();
    assert_eq!(r.code, Some(0));
    assert_has_all(
        &r.stderr,
        &[
            "debug: read 0.0 of 0.0 MB of a Claude Code transcript:",
            "reached its start",
        ],
    );
    assert!(r.stderr.contains("debug: wrote"));
    // Issue #30 point 5: words, not Rust `Debug` dumps, and a restore that prints nothing says
    // why.
    assert_lacks_all(&r.stderr, &["ScanStats"]);
    let first = sb.restore(&start_hook("s1", &t));
    assert!(first.stdout.contains("Saved by"));
    let again = sb
        .cmd(&["restore"])
        .env("COMPACT_GUARDIAN_DEBUG", "1")
        .stdin(start_hook("s1", &t))
        .run();
    assert_eq!(again.stdout, "");
    assert!(
        again
            .stderr
            .contains("no snapshot was saved for this session")
            && again
                .stderr
                .contains("nothing printed: a restore 0 s ago already handed"),
        "{}",
        again.stderr
    );
    assert_lacks_all(&again.stderr, &["Some("]);
}

#[test]
fn save_is_idempotent() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    for _ in 0..3 {
        sb.save(&hook("s1", &t)).assert_fail_open();
    }
    let r = sb.restore(&start_hook("s1", &t));
    assert_eq!(r.stdout.matches("# [compact-guardian snapshot]").count(), 1);
}

#[test]
fn config_dir_precedence_reaches_the_binary() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let cfg = sb.path("claude-config");
    let r = Cmd::new(&["save"])
        .env("HOME", sb.path("home").to_str().unwrap())
        .env("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap())
        .stdin(hook("s1", &t))
        .run();
    r.assert_fail_open();
    assert!(cfg.join("compact-guardian/compact-snapshot-s1.md").exists());
    // The home folder is HOME on Unix; on Windows it is the user's profile folder, which a test
    // cannot redirect (dirs::home_dir asks the system, not the environment).
    if cfg!(windows) {
        return;
    }
    let r = Cmd::new(&["save"])
        .env("HOME", sb.path("home").to_str().unwrap())
        .stdin(hook("s2", &t))
        .run();
    r.assert_fail_open();
    assert!(
        sb.path("home")
            .join(".claude/compact-guardian/compact-snapshot-s2.md")
            .exists()
    );
}

// ---- Issue #20: long pasted instructions use the room the snapshot has.

/// The issue's session: an 8,900-character pasted spec, two later prompts, two open tasks.
fn spec_session() -> (Vec<String>, String) {
    let mut spec = String::new();
    let mut k = 0;
    while spec.len() < 8_900 {
        spec.push_str(&format!("Requirement {k}: retry each failed batch twice. "));
        k += 1;
        if k % 6 == 0 {
            spec.push('\n');
        }
    }
    spec.truncate(8_900);
    let task = |uuid: &str, parent: &str, id: &str, subject: &str| {
        tool_use(
            uuid,
            parent,
            id,
            "TaskCreate",
            serde_json::json!({ "subject": subject }),
        )
    };
    let lines = vec![
        prompt("spec-record", None, &spec),
        task("a1", "spec-record", "t1", "renderer"),
        task_created("r1", "a1", "t1", 1, "renderer"),
        task("a2", "r1", "t2", "billing tests"),
        task_created("r2", "a2", "t2", 2, "billing tests"),
        prompt("u2", Some("r2"), "run the tests"),
        prompt("u3", Some("u2"), "never call unwrap() in the importer"),
    ];
    (lines, spec)
}

#[test]
fn pasted_spec_is_restored_mostly_whole_with_a_way_back_to_the_rest() {
    let sb = Sandbox::new();
    let (lines, spec) = spec_session();
    let t = sb.transcript("spec.jsonl", &lines);
    sb.save(&hook("spec", &t)).assert_fail_open();
    let r = sb.restore(&start_hook("spec", &t));
    r.assert_fail_open();
    let out = &r.stdout;
    assert!(out.encode_utf16().count() <= 10_000);
    // Well past the middle: the lines of the spec the snapshot carries word for word.
    let shown: usize = spec
        .lines()
        .filter(|l| out.contains(&format!("> {}", l.trim())))
        .map(str::len)
        .sum();
    assert!(
        shown > spec.len() * 3 / 4,
        "{shown} of {}:\n{out}",
        spec.len()
    );
    assert!(out.contains("> never call unwrap() in the importer"));
    assert!(out.contains("> run the tests"));
    assert!(out.contains("[pending] renderer") && out.contains("[pending] billing tests"));
    let way_back = format!(
        "(Cut here; the whole text is the `message.content` of the record with uuid spec-record in the transcript {}.)",
        t.display()
    );
    assert_has_all(out, &[&way_back]);
}

#[test]
fn prompt_longer_than_the_read_bound_says_at_least() {
    let sb = Sandbox::new();
    let huge = "x".repeat(50_000);
    let t = sb.transcript("huge.jsonl", &[prompt("u1", None, &huge)]);
    let out = sb.cmd(&["preview", t.to_str().unwrap()]).run().stdout;
    assert_has_all(&out, &["[... cut: at least "]);
}

// ---- Issue #19: after every compaction the user is told what was protected.

fn system_message(out: &str) -> String {
    user_line(out)
}

/// A session with two open tasks and a latest instruction.
fn tasks_session() -> Vec<String> {
    let (mut lines, _) = spec_session();
    lines[0] = prompt("spec-record", None, "build the importer");
    lines
}

#[test]
fn post_compact_audit_names_the_open_tasks_the_summary_called_done() {
    let (sb, t) = Sandbox::with_transcript(&tasks_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    sb.restore(&start_hook("s1", &t)).assert_fail_open();
    let run = sb.audit(
        "s1",
        &t,
        "manual",
        "All tasks are completed. There is no remaining work.",
    );
    run.assert_fail_open();
    let m = system_message(&run.stdout);
    assert_eq!(
        m,
        "compact-guardian: the summary called 'renderer' and 'billing tests' done; the model is told."
    );
    // Used once: the digest is gone, and a repeated audit has nothing to add (restore said what
    // it handed over).
    let again = sb.audit("s1", &t, "manual", "x");
    assert_eq!(system_message(&again.stdout), "");
    // The history has the compaction, with counts and no words of the session.
    let history = std::fs::read_to_string(sb.store.join("compact-guardian-history.json")).unwrap();
    let entries: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert_eq!(entries[0]["called_done"], 2, "{history}");
    for words in ["renderer", "billing", "unwrap", "importer", "run the tests"] {
        assert!(!history.contains(words), "{words} in {history}");
    }
    let status = sb.cmd(&["status"]).run();
    assert_eq!(status.code, Some(0));
    assert_has_all(
        &status.stdout,
        &["session s1", "2 of 2 open items called done"],
    );
    let json: serde_json::Value =
        serde_json::from_str(&sb.cmd(&["status", "--json"]).run().stdout).unwrap();
    assert_eq!(json["compactions"][0]["restored"], "snapshot");
    assert_eq!(json["snapshot_folder"]["usable"], true);
}

#[test]
fn post_compact_audit_says_when_the_summary_kept_everything() {
    let (sb, t) = Sandbox::with_transcript(&tasks_session());
    sb.save(&hook("s2", &t)).assert_fail_open();
    sb.restore(&start_hook("s2", &t)).assert_fail_open();
    let summary = "Open: the renderer is in progress and the billing tests are pending. The user said never call unwrap() in the importer.";
    let m = system_message(&sb.audit("s2", &t, "manual", summary).stdout);
    // Restore has told the user what it handed over; a right summary gets one line that says
    // what was checked and agrees, never more (issue #39, D032; #55).
    assert_eq!(
        m,
        "compact-guardian: 2 of the summary's statements were checked against the record (2 about open tasks), and nothing in them contradicts it."
    );
}

#[test]
fn post_compact_without_a_save_says_the_compaction_was_not_protected() {
    let (sb, t) = Sandbox::with_transcript(&tasks_session());
    let m = system_message(&sb.audit("s3", &t, "manual", "").stdout);
    assert_has_all(&m, &["NOT protected", "PreCompact hook did not run"]);
}

// ---- Issue #21: Windows sharing semantics. A virus scanner, the search indexer or an editor
// often holds a new file open without sharing delete: it can then be neither renamed nor replaced.

/// Opens `path` the way such a program does: read and write shared, delete not.
#[cfg(windows)]
fn hold_without_sharing_delete(path: &std::path::Path) -> fs::File {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_SHARE_READ: u32 = 1;
    const FILE_SHARE_WRITE: u32 = 2;
    fs::OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .open(path)
        .unwrap()
}

#[cfg(windows)]
#[test]
fn a_snapshot_held_open_by_another_program_is_still_restored() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("held", &t)).assert_fail_open();
    let held = hold_without_sharing_delete(&sb.snapshot_path("held"));
    let r = sb.restore(&start_hook("held", &t));
    r.assert_fail_open();
    assert!(
        r.stdout
            .starts_with("# [compact-guardian snapshot] Work in progress"),
        "the model must get the snapshot, not silence: {:?}",
        r.stdout
    );
    assert!(r.stdout.contains("fix the failing test"));
    drop(held);
    // A duplicate hook right after prints nothing (the snapshot was given once).
    assert_eq!(sb.restore(&start_hook("held", &t)).stdout, "");
}

#[cfg(windows)]
#[test]
fn save_waits_briefly_for_a_snapshot_held_open_by_another_program() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("held2", &t)).assert_fail_open();
    let held = hold_without_sharing_delete(&sb.snapshot_path("held2"));
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(60));
        drop(held);
    });
    let r = sb.save(&hook("held2", &t));
    release.join().unwrap();
    r.assert_fail_open();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let restored = sb.restore(&start_hook("held2", &t));
    assert_has_all(&restored.stdout, &["fix the failing test"]);
}
