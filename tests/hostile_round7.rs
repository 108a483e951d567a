//! Hostile round 7 (issue #55): what landed since round 6 (the ledger of reported calls, `status`
//! asking Codex, the audit's re-read) under planted files, odd sizes and concurrency. Each test
//! replays one numbered finding of the issue (on 5c0e5e9 each of them failed) through the built
//! binary as the clients run it.

use crate::common::*;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

// ---- Helpers.

fn home(sb: &Sandbox) -> PathBuf {
    sb.path("home")
}

/// A Codex home in which the plugin is installed (what makes `status` ask Codex), and a PATH
/// whose `codex` is the sh script `codex`, before the system's tools.
fn codex_with(sb: &Sandbox, codex: &str) -> String {
    let home = home(sb).join(".codex");
    fs::create_dir_all(&home).unwrap();
    fs::write(
        home.join("config.toml"),
        "[plugins.\"compact-guardian@compact-guardian\"]\nenabled = true\n",
    )
    .unwrap();
    let tools = sb.path("codex-bin");
    fs::create_dir_all(&tools).unwrap();
    write_executable(
        &tools.join("codex"),
        format!("#!/bin/sh\n{codex}\n").as_bytes(),
    );
    format!("{}:/usr/bin:/bin", tools.display())
}

/// `status` under an address-space limit of `mib` MiB (`ulimit -v`, set by sh before the binary
/// starts), with the sandbox's environment and `path` as PATH.
fn status_limited(sb: &Sandbox, path: &str, mib: u64) -> Run {
    let script = format!("ulimit -v {}; exec \"$0\" status", mib * 1024);
    let out = Command::new("sh")
        .args(["-c", &script, bin()])
        .env_clear()
        .envs(sb.env.iter().map(|(k, v)| (k, v)))
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: Duration::ZERO,
        user_line: None,
    }
}

/// The session's ledger of reported calls (a plain id names its file).
fn ledger(sb: &Sandbox, session: &str) -> [PathBuf; 2] {
    [
        sb.store
            .join(format!(".compact-snapshot-calls-{session}.old.jsonl")),
        sb.store
            .join(format!(".compact-snapshot-calls-{session}.jsonl")),
    ]
}

/// What PostToolUseFailure tells `correct` of a failed `cargo test` (id `t2`), with `pad` bytes
/// of output.
fn failed_run_report(session: &str, t: &Path, id: &str, pad: usize) -> String {
    json!({"session_id": session, "transcript_path": t, "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": "cargo test --test billing"},
        "error": format!("Exit code 101\n{}\ntest billing ... FAILED", "x".repeat(pad))})
    .to_string()
}

// ---- 2. `status` reads Codex's answer without a bound.

/// A `codex` whose app-server prints one endless line (a broken wrapper): read without a bound,
/// `status` grew at pipe speed and, under an address-space limit, aborted (exit 134) with nothing
/// printed. It prints its report, Codex's answer "not known".
#[test]
fn status_reads_an_endless_line_from_codex_within_a_bound_and_still_reports() {
    let sb = Sandbox::new();
    let path = codex_with(&sb, "exec cat /dev/zero");
    let r = status_limited(&sb, &path, 512);
    assert!(
        matches!(r.code, Some(0 | 1)),
        "status ended by {:?}: {}",
        r.code,
        r.stderr
    );
    assert_has_all(
        &r.stdout,
        &[
            "Codex: installed (compact-guardian@compact-guardian)",
            "Codex's own hook list: not known",
            "gave no hook list in the first 16 MB",
        ],
    );
}

/// A line longer than any answer is passed over, and the answer after it is read.
#[test]
fn status_passes_over_a_line_too_long_and_reads_the_answer_after_it() {
    let sb = Sandbox::new();
    let answer = json!({"id": 2, "result": {"data": [{"cwd": "/p", "hooks": [
        {"pluginId": "compact-guardian@compact-guardian", "trustStatus": "trusted"},
        {"pluginId": "compact-guardian@compact-guardian", "trustStatus": "trusted"}]}]}});
    let path = codex_with(
        &sb,
        &format!("head -c 6000000 /dev/zero | tr '\\0' x\necho\necho '{answer}'"),
    );
    let r = status_limited(&sb, &path, 512);
    assert_has_all(&r.stdout, &["Codex's own hook list: all 2 trusted"]);
}

// ---- 3. A reported call vanishes at the compaction boundary.

/// The restore's rebuild starts over at this compaction's boundary (an older CLI writes it
/// before the hook). A failed run the hooks reported after the transcript's last write (here
/// its time set an hour back: a coarse or skewed file clock) was fed first and its id taken;
/// the start-over dropped it and the transcript's own copy was skipped: the failed `cargo test`
/// was missing from the rebuilt snapshot.
#[test]
fn a_reported_call_only_moves_and_never_vanishes_at_the_compaction_boundary() {
    let sb = Sandbox::new();
    let mut lines = failing_session();
    lines.truncate(5); // up to the failed run's result
    lines.push(
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "b",
            "logicalParentUuid": "r2"})
        .to_string(),
    );
    lines.push(
        json!({"type": "user", "uuid": "s", "parentUuid": "b", "isCompactSummary": true,
            "message": {"role": "user", "content": "This session is being continued."}})
        .to_string(),
    );
    let t = sb.transcript("s.jsonl", &lines);
    sb.cmd(&["correct"])
        .stdin(failed_run_report("s", &t, "t2", 10))
        .run()
        .assert_fail_open();
    assert!(ledger(&sb, "s")[1].exists(), "the ledger keeps the run");
    fs::File::options()
        .write(true)
        .open(&t)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let r = sb.restore(&start_hook("s", &t));
    r.assert_fail_open();
    assert_eq!(
        r.stdout
            .matches("cargo test --test billing  [FAILED]")
            .count(),
        1,
        "the failed run vanished, or came twice:\n{}",
        r.stdout
    );
}

// ---- 4. The audit blocks on a FIFO at the transcript path.

/// A FIFO put at the transcript's path after the save held the audit's re-read (a plain open)
/// until the watchdog: "gave up after 5 s", no line, no corrections. It is refused at once, as
/// the transcript reader refuses it, and the audit judges against what `save` kept.
#[test]
fn a_fifo_at_the_transcript_path_never_holds_the_audit() {
    let sb = Sandbox::new();
    let t = sb.transcript("s.jsonl", &failing_session());
    sb.save(&hook("s", &t)).assert_fail_open();
    fs::remove_file(&t).unwrap();
    mkfifo(&t);
    let r = sb
        .cmd(&["audit"])
        .stdin(post_compact("s", &t, "manual", FALSE_SUMMARY))
        .bounded()
        .run();
    r.assert_fail_open();
    assert_lacks_all(&r.stderr, &["gave up"]);
    assert!(
        r.stdout.contains("compact-guardian"),
        "no line for the user: {r:?}"
    );
}

// ---- 5. The ledger is appended through a hard link, and moved aside without a lock.

/// A hard-link backup of the snapshot folder (`cp -al`, `rsync --link-dest`) had its copy of the
/// ledger changed by the next tool call, and a planted link took commands and their output
/// outside the folder. The ledger is moved aside (never written) and a new one begun.
#[test]
fn the_ledger_is_never_appended_through_a_second_hard_link() {
    let sb = Sandbox::new();
    let t = sb.transcript("s.jsonl", &failing_session());
    sb.cmd(&["correct"])
        .stdin(failed_run_report("s", &t, "t1", 10))
        .run()
        .assert_fail_open();
    let [old, current] = ledger(&sb, "s");
    let backup = sb.path("backup.jsonl");
    fs::hard_link(&current, &backup).unwrap();
    let before = fs::read(&backup).unwrap();
    sb.cmd(&["correct"])
        .stdin(failed_run_report("s", &t, "t2", 10))
        .run()
        .assert_fail_open();
    assert_eq!(fs::read(&backup).unwrap(), before, "the backup was written");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(fs::metadata(&current).unwrap().nlink(), 1);
    assert!(old.exists(), "the linked ledger is kept, moved aside");
    let kept = fs::read_to_string(&current).unwrap() + &fs::read_to_string(&old).unwrap();
    assert_has_all(&kept, &["\"t1\"", "\"t2\""]);
}

/// Two hooks that both found the ledger full both moved it aside, the second a younger ledger
/// over the first's: up to 64 KiB of outcomes lost, not "a few lines". The move aside happens
/// only under the ledger's lock; while another holds it, the line is added and nothing moved.
#[test]
fn the_full_ledger_is_moved_aside_only_under_its_lock() {
    let sb = Sandbox::new();
    let t = sb.transcript("s.jsonl", &failing_session());
    let [old, current] = ledger(&sb, "s");
    let report = |id: usize| {
        sb.cmd(&["correct"])
            .stdin(failed_run_report("s", &t, &format!("t{id}"), 6000))
            .run()
            .assert_fail_open();
    };
    report(0);
    // Held an hour, as far as its time says: a hook takes the holder for a stuck one and goes
    // on without it at once, instead of after its whole wait.
    let lock = held_lock(&sb.store.join("compact-guardian-ledger.lock"), 3600);
    // Past the size at which the ledger is moved aside, and one more.
    let mut n = 1;
    while fs::metadata(&current).unwrap().len() <= 64 * 1024 {
        report(n);
        n += 1;
    }
    report(n);
    n += 1;
    assert!(!old.exists(), "moved aside while another held the lock");
    lock.unlock().unwrap();
    report(n);
    assert!(
        old.exists() && !current.exists(),
        "moved aside once the lock was free"
    );
    let kept = fs::read_to_string(&old).unwrap();
    assert_eq!(kept.lines().count(), n + 1, "no outcome lost");
}
