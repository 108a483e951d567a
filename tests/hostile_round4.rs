//! Hostile rounds 4 and 5 (issue #41): the corrections channel, the shrinker, the hook input,
//! the history and the settings under faults, concurrency and odd sizes. Each test replays one
//! numbered finding as the red team described it (on f5866a7 each of them failed), through the
//! built binary. The property test at the end drives `correct` with random concurrency, closed
//! and broken stdout, stale files and oversized inputs.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

// ---- Helpers.

/// Claude Code's order of hooks for one compaction (save, restore, audit with a false summary):
/// the session's corrections then wait for `correct`.
pub(crate) fn compacted(sb: &Sandbox, session: &str, trigger: &str) -> PathBuf {
    let t = sb.transcript(&format!("{session}.jsonl"), &failing_session());
    sb.compact(session, &t, trigger, FALSE_SUMMARY);
    assert!(pending(sb, session).exists(), "corrections wait");
    t
}

/// Where a session's corrections wait (a plain id names its file).
pub(crate) fn pending(sb: &Sandbox, session: &str) -> PathBuf {
    sb.store
        .join(format!(".compact-snapshot-corrections-{session}.json"))
}

/// No corrections wait for `session` (`why`, when some do).
fn assert_nothing_waits(sb: &Sandbox, session: &str, why: &str) {
    assert!(!pending(sb, session).exists(), "{why}");
}

fn correct_input(session: &str, t: &Path, event: &str) -> String {
    json!({"session_id": session, "transcript_path": t, "cwd": "/work/app",
        "hook_event_name": event, "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string()
}

/// Whether a `correct` run's stdout handed the corrections over.
fn delivered(stdout: &str) -> bool {
    stdout.contains("additionalContext")
}

fn status_json(sb: &Sandbox) -> Value {
    let r = sb.cmd(&["status", "--json"]).run();
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"))
}

// ---- 1. Corrections handed over twice.

#[test]
fn corrections_are_handed_over_exactly_once_in_200_parallel_trials() {
    let sb = Sandbox::new();
    let t = compacted(&sb, "s1", "auto");
    let bytes = fs::read(pending(&sb, "s1")).unwrap();
    let input = correct_input("s1", &t, "PostToolUse");
    for trial in 0..200 {
        fs::write(pending(&sb, "s1"), &bytes).unwrap();
        // Parallel tool calls: their PostToolUse hooks start together.
        let children: Vec<Child> = (0..3)
            .map(|_| start_in(&sb, "correct", input.as_bytes(), Stdio::piped()))
            .collect();
        let n = children
            .into_iter()
            .map(wait_bounded)
            .filter(|o| delivered(&String::from_utf8_lossy(&o.stdout)))
            .count();
        assert_eq!(n, 1, "trial {trial}: delivered {n} times");
    }
}

// ---- 2. Corrections expire unseen.

#[test]
fn after_a_manual_compact_the_corrections_wait_for_the_prompt_after_a_break() {
    let sb = Sandbox::new();
    let t = compacted(&sb, "s1", "manual");
    // The user was told "the model is told"; they come back two hours later.
    set_old(&pending(&sb, "s1"), 2 * 3600);
    // Other sessions' compactions sweep stale files meanwhile.
    let other = sb.transcript("other.jsonl", &small_session());
    sb.save(&hook("other", &other)).assert_fail_open();
    let r = sb
        .cmd(&["correct"])
        .stdin(correct_input("s1", &t, "UserPromptSubmit"))
        .run();
    r.assert_fail_open();
    assert!(delivered(&r.stdout), "told after a break: {r:?}");
    let v = status_json(&sb);
    assert!(
        v["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["session"] == "s1" && e["corrected_time"].is_u64()),
        "{v}"
    );
}

#[test]
fn the_users_words_never_outlive_the_session_they_correct() {
    // Corrections quote the summary and the user's instruction: they go when the session's
    // transcript is gone (nothing can continue it), and after 30 days at most.
    let sb = Sandbox::new();
    let t = compacted(&sb, "gone", "manual");
    compacted(&sb, "old", "manual");
    set_old(&pending(&sb, "old"), 31 * 24 * 3600);
    let kept = compacted(&sb, "kept", "manual");
    set_old(&pending(&sb, "kept"), 20 * 24 * 3600);
    fs::remove_file(&t).unwrap();
    // Any compaction's cleanup.
    let other = sb.transcript("other.jsonl", &small_session());
    sb.save(&hook("other", &other)).assert_fail_open();
    assert!(!pending(&sb, "gone").exists(), "transcript gone: removed");
    assert!(!pending(&sb, "old").exists(), "past 30 days: removed");
    assert!(pending(&sb, "kept").exists(), "its session may continue");
    let r = sb
        .cmd(&["correct"])
        .stdin(correct_input("kept", &kept, "UserPromptSubmit"))
        .run();
    assert!(delivered(&r.stdout), "{r:?}");
}

#[test]
fn a_codex_session_resumed_days_after_its_compact_gets_the_snapshot_and_corrections() {
    let sb = Sandbox::new();
    let (t, _) = codex_compacted(&sb, "manual");
    let days = 3 * 24 * 3600;
    for f in [
        sb.snapshot_path("c1"),
        pending(&sb, "c1"),
        sb.store
            .join(".compact-snapshot-deferred-compact-snapshot-c1.md"),
    ] {
        set_old(&f, days);
    }
    let r = sb.restore(&resume_hook("c1", &t));
    r.assert_fail_open();
    assert!(
        r.stdout.starts_with("# [compact-guardian snapshot]")
            && r.stdout
                .contains("## Corrections to the compaction summary"),
        "{}",
        r.stdout
    );
}

// ---- 3 and 10. The shrinker keeps what the user typed.

/// A typed prompt record with `type` first, as Claude Code writes it.
fn typed_record(uuid: &str, parent: &str, message: Value, before: Option<(&str, Value)>) -> String {
    let mut rec = serde_json::Map::new();
    rec.insert("type".into(), json!("user"));
    rec.insert("uuid".into(), json!(uuid));
    rec.insert("parentUuid".into(), json!(parent));
    rec.insert("promptSource".into(), json!("typed"));
    if let Some((k, v)) = before {
        rec.insert(k.into(), v);
    }
    rec.insert("message".into(), message);
    // serde_json's map keeps insertion order only with `preserve_order`: write it by hand.
    let mut s = String::from("{");
    for (i, (k, v)) in rec.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("{}:{}", json!(k), v));
    }
    s.push('}');
    s
}

/// An instruction of `n` characters whose end can be recognised.
fn long_instruction(n: usize) -> String {
    let mut s = String::from("Refactor the importer as follows. ");
    let mut i = 0;
    while s.len() < n - 40 {
        s.push_str(&format!("Step {i}: keep batch {i} idempotent. "));
        i += 1;
    }
    s.push_str("FINAL-WORDS-OF-THE-INSTRUCTION");
    s
}

/// The snapshot `save` writes of a session whose older instruction is `older` (answered) and
/// whose newest record is `newest`.
fn snapshot_after(older: &str, newest: String) -> String {
    let lines = [prompt("u1", None, older), reply("a1", "u1", "ok"), newest];
    let (sb, t) = Sandbox::with_transcript(&lines);
    let r = sb.save(&hook("s1", &t));
    r.assert_fail_open();
    fs::read_to_string(sb.snapshot_path("s1")).unwrap_or_default()
}

/// A typed prompt (uuid u2, after a1) of sixteen screenshots (308 KB of base64 each), then
/// `words`.
fn screenshots_then(words: &str) -> String {
    let image = "iVBORw0KGgo".repeat(28_000);
    let mut content: Vec<Value> = (0..16)
        .map(|_| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}))
        .collect();
    content.push(json!({"type": "text", "text": words}));
    typed_record(
        "u2",
        "a1",
        json!({"role": "user", "content": content}),
        None,
    )
}

#[test]
fn sixteen_screenshots_before_the_typed_text_leave_the_instruction_whole() {
    let words = long_instruction(3_952);
    let newest = screenshots_then(&words);
    assert!(newest.len() > 4 * 1024 * 1024);
    let snap = snapshot_after("an older instruction", newest);
    assert_has_all(&snap, &["FINAL-WORDS-OF-THE-INSTRUCTION"]);
    let at = snap.find("Refactor the importer").unwrap();
    let shown = &snap[at..at + words.len()];
    assert_eq!(shown, words, "the whole typed text, as typed");
}

#[test]
fn a_typed_text_too_long_to_show_after_screenshots_is_cut_visibly_with_the_way_to_its_record() {
    // Longer than the snapshot can show, beside the screenshots: cut where the reader reads it,
    // and the snapshot says so and where the whole text is.
    let snap = snapshot_after(
        "an older instruction",
        screenshots_then(&long_instruction(120_000)),
    );
    assert_has_all(&snap, &["Refactor the importer as follows."]);
    assert!(
        snap.contains("[... cut: at least "),
        "the cut is marked: {snap}"
    );
    assert_has_all(
        &snap,
        &["the whole text is the `message.content` of the record with uuid u2"],
    );
}

#[test]
fn a_record_whose_text_comes_after_megabytes_of_other_fields_is_still_the_latest_prompt() {
    // Past 2 MiB of shrunk output the shrinker dropped the rest of `message`: its `content`
    // was lost, the record was no prompt, and the older prompt was named latest.
    let bulk: Vec<String> = (0..700_000).map(|i| format!("{i:x}")).collect();
    let newest = typed_record(
        "u2",
        "a1",
        json!({"role": "user", "content": "ship the NEWEST-INSTRUCTION now"}),
        Some(("pastedContents", json!(bulk))),
    );
    assert!(newest.len() > 4 * 1024 * 1024, "{}", newest.len());
    // And the same inside `message`, before `content`.
    let inner = format!(
        r#"{{"type":"user","uuid":"u2","parentUuid":"a1","promptSource":"typed","message":{{"role":"user","usage":{},"content":"ship the NEWEST-INSTRUCTION now"}}}}"#,
        json!(bulk)
    );
    // And thousands of small blocks before the typed text.
    let blocks: Vec<Value> = (0..60_000)
        .map(|_| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}))
        .chain([json!({"type": "text", "text": "ship the NEWEST-INSTRUCTION now"})])
        .collect();
    let many = typed_record("u2", "a1", json!({"role": "user", "content": blocks}), None);
    assert!(many.len() > 4 * 1024 * 1024, "{}", many.len());
    for (case, line) in [
        ("after a field", newest),
        ("inside message", inner),
        ("after blocks", many),
    ] {
        let snap = snapshot_after("OLDER-INSTRUCTION", line);
        let latest = snap
            .split("**Latest instruction")
            .nth(1)
            .unwrap_or_else(|| panic!("{case}: no latest instruction:\n{snap}"));
        assert!(
            latest.contains("NEWEST-INSTRUCTION") || snap.contains("could not be read"),
            "{case}: an older prompt named latest without the notice:\n{snap}"
        );
        assert!(
            latest.contains("NEWEST-INSTRUCTION"),
            "{case}: kept whole:\n{snap}"
        );
    }
}

// ---- 4 and 5. Codex: the history records the hand-over, however late the restore.

/// A Codex rollout (a plan with open steps, a failing command, the user's latest prompt), saved
/// and audited with a false summary: what Codex has done when the user has sent `/compact`.
pub(crate) fn codex_compacted(sb: &Sandbox, trigger: &str) -> (PathBuf, String) {
    codex_compacted_with(sb, trigger, "All tasks are completed.")
}

/// [`codex_compacted`] with the summary Codex wrote.
pub(crate) fn codex_compacted_with(
    sb: &Sandbox,
    trigger: &str,
    summary: &str,
) -> (PathBuf, String) {
    let mut lines = vec![
        rollout_meta(),
        rollout_user_message("make the importer retry failed batches"),
    ];
    lines.extend(rollout_open_plan());
    let name = "rollout-2026-11-24T10-00-00-c1.jsonl";
    let t = sb.transcript(name, &lines);
    sb.save(&hook("c1", &t)).assert_fail_open();
    lines.push(rollout_compacted(summary));
    let t = sb.transcript(name, &lines);
    let audit = sb
        .cmd(&["audit"])
        .stdin(codex_post_compact("c1", &t, trigger))
        .run();
    audit.assert_fail_open();
    (t, audit.stdout)
}

#[test]
fn codex_status_says_the_corrections_reached_the_model_with_the_snapshot() {
    let sb = Sandbox::new();
    let (t, _) = codex_compacted(&sb, "auto");
    let r = sb.restore(&start_hook("c1", &t));
    assert_has_all(&r.stdout, &["## Corrections to the compaction summary"]);
    let v = status_json(&sb);
    let entries = v["compactions"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    assert!(entries[0]["corrected_time"].is_u64(), "{v}");
    let text = sb.cmd(&["status"]).run().stdout;
    assert!(
        text.contains("handed over") && !text.contains("not handed over"),
        "{text}"
    );
}

#[test]
fn a_codex_restore_an_hour_after_its_compaction_completes_that_compaction() {
    let sb = Sandbox::new();
    let (t, _) = codex_compacted(&sb, "manual");
    // An hour passes before the user's next prompt starts the turn (and the restore).
    let hist = sb.store.join("compact-guardian-history.json");
    let mut entries: Vec<Value> = serde_json::from_slice(&fs::read(&hist).unwrap()).unwrap();
    for e in &mut entries {
        for k in ["time", "audit_time"] {
            if let Some(n) = e[k].as_u64() {
                e[k] = json!(n - 3600);
            }
        }
    }
    fs::write(&hist, serde_json::to_vec(&entries).unwrap()).unwrap();
    for f in [
        sb.snapshot_path("c1"),
        pending(&sb, "c1"),
        sb.store
            .join(".compact-snapshot-deferred-compact-snapshot-c1.md"),
    ] {
        set_old(&f, 3600);
    }
    let r = sb.restore(&start_hook("c1", &t));
    assert!(
        r.stdout.starts_with("# [compact-guardian snapshot]"),
        "{}",
        r.stdout
    );
    let v = status_json(&sb);
    let entries = v["compactions"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "one compaction, no phantom: {v}");
    assert_eq!(entries[0]["restored"], "snapshot", "{v}");
    assert!(entries[0]["save_ran"].as_bool().unwrap(), "{v}");
    let text = sb.cmd(&["status"]).run().stdout;
    assert!(
        !text.contains("NOT saved") && !text.contains("restore did not run"),
        "{text}"
    );
}

// ---- 7. A held history lock.

#[test]
fn a_held_history_lock_costs_no_hook_its_budget_nor_the_user_its_line() {
    let (sb, t) = Sandbox::with_transcript(&failing_session());
    fs::create_dir_all(&sb.store).unwrap();
    // Another process holds it (a hung hook, a backup tool) for a while.
    let lock = held_lock(&sb.store.join("compact-guardian-history.lock"), 60);
    let budget = [("COMPACT_GUARDIAN_BUDGET_MS", "1000")];
    let run = |sub: &str, input: String| {
        let mut c = sb.cmd(&[sub]).stdin(input);
        for (k, v) in budget {
            c = c.env(k, v);
        }
        let r = c.run();
        r.assert_fail_open();
        assert!(
            !r.stderr.contains("gave up"),
            "{sub}: the watchdog ended it: {r:?}"
        );
        r
    };
    run("save", hook("s1", &t));
    run("restore", start_hook("s1", &t));
    let audit = run("audit", post_compact("s1", &t, "manual", FALSE_SUMMARY));
    assert!(
        audit.stdout.contains("the summary called 'renderer' done"),
        "the user's line: {audit:?}"
    );
    drop(lock);
}

// ---- 8. Corrections lost into a closed stdout.

#[test]
fn corrections_survive_a_closed_or_broken_stdout_and_reach_the_next_hook() {
    let sb = Sandbox::new();
    let t = compacted(&sb, "s1", "auto");
    let input = correct_input("s1", &t, "PostToolUse");
    // Started with fd 1 closed (the runtime puts /dev/null there).
    let r = via_sh(&sb, "exec >&-", "correct", &input);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.lines().count() <= 1, "{r:?}");
    assert!(pending(&sb, "s1").exists(), "kept: nothing read them");
    // A pipe whose reader has gone.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let r = sb
        .cmd(&["correct"])
        .stdin(input.clone())
        .stdout(Stdio::from(writer))
        .run();
    r.assert_fail_open();
    assert!(pending(&sb, "s1").exists(), "kept: the write failed");
    let v = status_json(&sb);
    assert!(
        v["compactions"][0]["corrected_time"].is_null(),
        "not handed over: {v}"
    );
    // The next hook hands them over, once.
    let r = sb.cmd(&["correct"]).stdin(input.clone()).run();
    assert!(delivered(&r.stdout), "{r:?}");
    assert!(!delivered(&sb.cmd(&["correct"]).stdin(input).run().stdout));
}

// ---- 9. A leftover corrections file.

#[test]
fn a_leftover_corrections_file_never_holds_up_another_sessions_hooks() {
    let sb = Sandbox::new();
    compacted(&sb, "left", "manual");
    compacted(&sb, "stale", "manual");
    set_old(&pending(&sb, "stale"), 31 * 24 * 3600);
    // Another session's tool call: it reads its input only as far as its session id (which
    // names no corrections) and stops; what follows is never parsed.
    let mut input =
        br#"{"session_id":"busy","hook_event_name":"PostToolUse","tool_input":"#.to_vec();
    input.extend(std::iter::repeat_n(b'[', 100_000));
    let r = sb.cmd(&["correct"]).stdin(&input).run();
    r.assert_fail_open();
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""), "{r:?}");
    assert!(
        pending(&sb, "left").exists(),
        "another session's corrections wait"
    );
    assert_nothing_waits(&sb, "stale", "a stale one is removed on the way");
}

// ---- 12. A summary over 64 KiB.

#[test]
fn a_long_summary_is_read_whole_and_a_cut_one_is_never_judged() {
    let (sb, t) = Sandbox::with_transcript(&failing_session());
    sb.save_and_restore("s1", &t);
    // Files and Code Sections with code, then the open task and the user's last message.
    let code = "    let x = retry(batch, attempt);\n".repeat(3_000);
    let summary = format!(
        "1. Primary Request and Intent:\n   The user asked to make the importer retry failed batches with backoff.\n\
         3. Files and Code Sections:\n```rust\n{code}```\n\
         6. All user messages:\n   - \"then log every retry with its attempt number and delay\"\n\
         7. Pending Tasks:\n   - renderer (still pending)\n   - the billing tests failed in the last run\n"
    );
    assert!(summary.len() > 64 * 1024);
    let audit = sb.audit("s1", &t, "manual", &summary);
    audit.assert_fail_open();
    assert!(
        !audit.stdout.contains("left out your latest instruction")
            && !audit.stdout.contains("did not mention"),
        "judged a cut summary: {audit:?}"
    );
    // Over the cap: cut, and then not judged at all.
    sb.save_and_restore("s1", &t);
    let huge = format!(
        "{}\n{summary}",
        "filler line of the summary\n".repeat(300_000)
    );
    let audit = sb.audit("s1", &t, "manual", &huge);
    audit.assert_fail_open();
    assert!(!audit.stdout.contains("the summary"), "{audit:?}");
    assert_nothing_waits(&sb, "s1", "no corrections from a cut text");
}

#[test]
fn a_summary_too_long_to_judge_in_time_is_not_judged_and_not_called_right() {
    // An adversarial 1 MB summary took over 5 s to judge in a release build (the watchdog ended
    // the audit); over `corrections::MAX_SUMMARY` (256 KiB) it is read whole but not judged, and
    // the user is not told that nothing in it contradicts the record.
    let (sb, t) = Sandbox::with_transcript(&failing_session());
    let claims = "7. Current Work:\n   - The renderer is done.\n   - All billing tests pass.\n";
    let judged = |summary: &str| {
        sb.save_and_restore("s1", &t);
        let audit = sb.audit("s1", &t, "manual", summary);
        audit.assert_fail_open();
        audit.stdout
    };
    // Within the cap the same claims are corrected.
    let small = judged(&format!(
        "1. Primary Request and Intent:\n   Retry batches.\n{claims}"
    ));
    assert_has_all(&small, &["the model is told"]);
    let _ = fs::remove_file(pending(&sb, "s1"));
    let filler =
        "   - Looked at the importer's retry loop and its backoff settings.\n".repeat(4_500);
    let long = format!("1. Primary Request and Intent:\n{filler}{claims}");
    assert!(long.len() > 256 * 1024 && long.len() < 4 << 20);
    let out = judged(&long);
    assert_lacks_all(&out, &["the summary"]);
    assert_nothing_waits(&sb, "s1", "no corrections from an unjudged summary");
}

// ---- 13. A big PostToolUse input.

#[test]
fn correct_reads_a_five_megabyte_post_tool_use_input() {
    let sb = Sandbox::new();
    let t = compacted(&sb, "s1", "auto");
    // A Write that rewrote a 40,000-line file: one string per changed line.
    let lines: Vec<String> = (0..40_000)
        .map(|i| format!("-    old line {i} of the file"))
        .collect();
    let added: Vec<String> = (0..40_000)
        .map(|i| format!("+    new line {i} of the file"))
        .collect();
    let input = json!({"session_id": "s1", "transcript_path": t, "cwd": "/work/app",
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": "/work/app/big.rs", "content": "x".repeat(1_500_000)},
        "tool_response": {"structuredPatch": [{"oldStart": 1, "lines": lines}, {"lines": added}]},
        "tool_use_id": "toolu_1"})
    .to_string();
    assert!(input.len() > 4_000_000, "{}", input.len());
    let r = sb.cmd(&["correct"]).stdin(&input).run();
    r.assert_fail_open();
    assert!(r.stderr.is_empty(), "{r:?}");
    assert!(delivered(&r.stdout), "{r:?}");
}

// ---- 14 and 15. A save that cannot write; a file-size limit.

#[test]
fn a_save_that_cannot_write_leaves_no_older_snapshot_to_be_taken_for_its_own() {
    let sb = Sandbox::new();
    let mut lines = failing_session();
    let t = sb.transcript("t.jsonl", &lines);
    sb.save(&hook("s1", &t)).assert_fail_open(); // a compaction that then failed
    assert!(sb.snapshot_path("s1").exists());
    lines.push(prompt(
        "u3",
        Some("u2"),
        "NEWEST: now add jitter to the backoff",
    ));
    let t = sb.transcript("t.jsonl", &lines);
    // `/compact` again, and this save cannot write a byte (a full disk).
    let r = via_sh(&sb, "ulimit -f 0", "save", &hook("s1", &t));
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.lines().count() <= 1, "{r:?}");
    let restored = sb.restore(&start_hook("s1", &t));
    assert!(
        !restored.stdout.contains("Saved by"),
        "the older compaction's snapshot: {}",
        restored.stdout
    );
    assert_has_all(&restored.stdout, &["NEWEST: now add jitter"]);
    let audit = sb.audit(
        "s1",
        &t,
        "manual",
        "The user asked to add jitter to the backoff (NEWEST). The renderer is pending.",
    );
    assert!(
        !audit.stdout.contains("left out your latest instruction"),
        "{audit:?}"
    );
    assert_nothing_waits(&sb, "s1", "judged against the older digest");
}

#[test]
fn a_file_size_limit_never_kills_a_hook() {
    let (sb, t) = Sandbox::with_transcript(&failing_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    let cases = [
        ("save", hook("s2", &t)),
        ("restore", start_hook("s1", &t)),
        ("audit", post_compact("s1", &t, "auto", FALSE_SUMMARY)),
        ("correct", correct_input("s1", &t, "PostToolUse")),
    ];
    for (sub, input) in cases {
        let r = via_sh(&sb, "ulimit -f 0", sub, &input);
        assert_eq!(r.code, Some(0), "{sub} died: {r:?}");
        assert!(r.stderr.lines().count() <= 1, "{sub}: {r:?}");
        if sub == "restore" {
            // The snapshot reached the model before the history write failed.
            assert!(r.stdout.contains("Saved by"), "{r:?}");
        }
    }
}

// ---- 16 and 17. Settings and folders.

#[test]
fn a_ttl_of_zero_is_named_and_does_not_disable_snapshots() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let with_ttl = |c: Cmd| c.env("COMPACT_GUARDIAN_TTL_SECS", "0");
    with_ttl(sb.cmd(&["save"]).stdin(hook("s1", &t)))
        .run()
        .assert_fail_open();
    let r = with_ttl(sb.cmd(&["restore"]).stdin(start_hook("s1", &t)))
        .run()
        .unwrapped();
    assert!(r.stdout.contains("Saved by"), "{r:?}");
    let status = with_ttl(sb.cmd(&["status"])).run();
    assert!(
        status
            .stdout
            .contains("Ignored setting: COMPACT_GUARDIAN_TTL_SECS=0"),
        "{status:?}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn status_json_reports_a_folder_whose_path_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    let dir = sb
        .root
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9-store"));
    let out = Command::new(bin())
        .args(["status", "--json"])
        .env("COMPACT_GUARDIAN_DIR", &dir)
        .env("HOME", sb.path("home"))
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["snapshot_folder"]["path"],
        format!("{}", dir.display()),
        "{v}"
    );
}

// ---- The property: `correct` under random concurrency and faults.

/// How one `correct` run's stdout leads.
#[derive(Debug, Clone, Copy)]
enum Out {
    /// A pipe that is read.
    Read,
    /// A pipe whose reader has gone.
    Broken,
    /// Closed when the process starts.
    Closed,
}

/// One run: its stdout, whether a subagent's tool call fired it, whether its input is huge.
#[derive(Debug, Clone)]
struct Runner {
    out: Out,
    subagent: bool,
    huge: bool,
    event: &'static str,
}

fn runner() -> impl Strategy<Value = Runner> {
    (
        prop_oneof![3 => Just(Out::Read), 1 => Just(Out::Broken), 1 => Just(Out::Closed)],
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop_oneof![Just("PostToolUse"), Just("UserPromptSubmit")],
    )
        .prop_map(|(out, subagent, huge, event)| Runner {
            out,
            subagent,
            huge,
            event,
        })
}

/// What waits when the runs start.
#[derive(Debug, Clone, Copy)]
enum Waiting {
    Fresh,
    Stale,
    Nothing,
    OtherSession,
}

fn run_one(sb: &Sandbox, t: &Path, r: &Runner) -> Child {
    let mut input = json!({"session_id": "s1", "transcript_path": t,
        "hook_event_name": r.event, "tool_name": "Bash"});
    if r.subagent {
        input["agent_id"] = json!("a1b2c3");
    }
    if r.huge {
        input["tool_response"] = json!({"lines": vec!["+ a changed line"; 300_000]});
    }
    let input = input.to_string();
    match r.out {
        Out::Read => start_in(sb, "correct", input.as_bytes(), Stdio::piped()),
        Out::Broken => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            start_in(sb, "correct", input.as_bytes(), Stdio::from(writer))
        }
        Out::Closed => {
            let mut c = Command::new("sh");
            c.args(["-c", "exec \"$0\" correct >&-", bin()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            isolate(&mut c);
            c.envs(sb.env.iter().map(|(k, v)| (k, v)));
            start(c, input.as_bytes())
        }
    }
}

#[test]
fn correct_hands_over_once_and_loses_nothing() {
    // One compaction's real corrections file, made once and planted in each case.
    let sb = Sandbox::new();
    let t = compacted(&sb, "s1", "auto");
    let bytes = fs::read(pending(&sb, "s1")).unwrap();
    let strategy = (
        prop::collection::vec(runner(), 1..6),
        prop_oneof![
            4 => Just(Waiting::Fresh), 1 => Just(Waiting::Stale),
            1 => Just(Waiting::Nothing), 1 => Just(Waiting::OtherSession)
        ],
    );
    let mut cases = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    cases
        .run(&strategy, |(runs, waiting)| {
            one_case(&sb, &t, &bytes, &runs, waiting)
        })
        .unwrap();
}

/// One case: the corrections as `waiting` says, the `runs` started together, then the main
/// agent's next step with a stdout that is read. Exactly one run hands fresh corrections over;
/// stale ones are removed unread; another session's wait.
fn one_case(
    sb: &Sandbox,
    t: &Path,
    bytes: &[u8],
    runs: &[Runner],
    waiting: Waiting,
) -> Result<(), TestCaseError> {
    let _ = fs::remove_dir_all(&sb.store);
    fs::create_dir_all(&sb.store).unwrap();
    match waiting {
        Waiting::Fresh => fs::write(pending(sb, "s1"), bytes).unwrap(),
        Waiting::Stale => {
            fs::write(pending(sb, "s1"), bytes).unwrap();
            set_old(&pending(sb, "s1"), 31 * 24 * 3600);
        }
        Waiting::OtherSession => fs::write(pending(sb, "s2"), bytes).unwrap(),
        Waiting::Nothing => {}
    }
    let started: Vec<Child> = runs.iter().map(|r| run_one(sb, t, r)).collect();
    let mut given = 0;
    for child in started {
        let out = wait_bounded(child);
        prop_assert_eq!(out.status.code(), Some(0));
        prop_assert!(String::from_utf8_lossy(&out.stderr).lines().count() <= 1);
        if delivered(&String::from_utf8_lossy(&out.stdout)) {
            given += 1;
        }
    }
    let last = Runner {
        out: Out::Read,
        subagent: false,
        huge: false,
        event: "PostToolUse",
    };
    let out = wait_bounded(run_one(sb, t, &last));
    if delivered(&String::from_utf8_lossy(&out.stdout)) {
        given += 1;
    }
    let expect = usize::from(matches!(waiting, Waiting::Fresh));
    prop_assert_eq!(given, expect, "{:?} {:?}", waiting, runs);
    prop_assert!(
        !pending(sb, "s1").exists(),
        "nothing left once handed over or stale"
    );
    prop_assert_eq!(
        pending(sb, "s2").exists(),
        matches!(waiting, Waiting::OtherSession),
        "another session's corrections wait"
    );
    Ok(())
}
