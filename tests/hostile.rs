//! Hostile input, races and faults (the binary through stdin): every case exits 0, never panics,
//! writes at most one stderr line, ends on its own (the harness calls a run hung after
//! `common::HANG`; no assertion here depends on the machine's speed), and never leaks or loses a
//! snapshot. The time bounds themselves (the deadline, the watchdog) are tested bounded, with
//! budgets whose outcome no machine's speed changes.

use crate::common::*;
use compact_guardian::render::wholeness_error;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

fn check(run: &Run, case: &str) {
    assert_eq!(
        run.code,
        Some(0),
        "{case}: exit code; stderr {}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{case}: {}", run.stderr);
    assert!(run.stderr.lines().count() <= 1, "{case}: {:?}", run.stderr);
    assert!(
        !run.stderr.contains("gave up after"),
        "{case}: the watchdog ended it"
    );
}

#[test]
fn hostile_hook_inputs() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let tp = t.display().to_string();
    let mut whitespace = vec![b' '; 64 * 1024 * 1024];
    whitespace.extend_from_slice(b"{}");
    let long_id = "x".repeat(10_000);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("not json", b"hello there".to_vec()),
        ("json array", br#"[{"session_id":"a"}]"#.to_vec()),
        ("json number", b"42".to_vec()),
        ("json string", br#""session""#.to_vec()),
        ("json null", b"null".to_vec()),
        ("invalid utf-8", b"{\"session_id\":\"a\xff\xfe\",\"transcript_path\":\"\xc3\x28\"}".to_vec()),
        ("64 MiB of whitespace", whitespace),
        ("truncated object", br#"{"session_id":"a","transcript_path":"#.to_vec()),
        ("all null", br#"{"session_id":null,"transcript_path":null,"cwd":null,"trigger":null,"custom_instructions":null,"source":null}"#.to_vec()),
        ("wrong types", format!(r#"{{"session_id":["a"],"transcript_path":{{"p":"{tp}"}},"cwd":7,"trigger":true,"custom_instructions":[1],"source":{{}}}}"#).into_bytes()),
        ("numeric session id", format!(r#"{{"session_id":12345,"transcript_path":"{tp}"}}"#).into_bytes()),
        ("dotdot id", format!(r#"{{"session_id":"..","transcript_path":"{tp}"}}"#).into_bytes()),
        ("traversal id", format!(r#"{{"session_id":"x/../../escaped","transcript_path":"{tp}"}}"#).into_bytes()),
        ("backslash id", format!(r#"{{"session_id":"a\\b\\..\\c","transcript_path":"{tp}"}}"#).into_bytes()),
        ("nul id", format!(r#"{{"session_id":"a\u0000b","transcript_path":"{tp}"}}"#).into_bytes()),
        ("absolute id", format!(r#"{{"session_id":"/etc/passwd","transcript_path":"{tp}"}}"#).into_bytes()),
        ("10k id", format!(r#"{{"session_id":"{long_id}","transcript_path":"{tp}"}}"#).into_bytes()),
        ("lone surrogate id", format!(r#"{{"session_id":"\ud800","transcript_path":"{tp}"}}"#).into_bytes()),
        ("byte order mark", [b"\xEF\xBB\xBF".as_slice(), format!(r#"{{"session_id":"bom","transcript_path":"{tp}"}}"#).as_bytes()].concat()),
        ("deep nesting", format!(r#"{{"session_id":"d","x":{}{}}}"#, "[".repeat(200_000), "]".repeat(200_000)).into_bytes()),
    ];
    for (name, input) in &cases {
        for sub in ["save", "restore"] {
            check(
                &sb.cmd(&[sub]).stdin(input).run(),
                &format!("{sub}: {name}"),
            );
        }
    }
    assert!(!sb.root.path().join("escaped").exists());
    assert!(!Path::new("/etc/passwd.md").exists());
    eprintln!("hostile hook inputs: {} cases x 2 subcommands", cases.len());
}

#[test]
fn hostile_transcript_paths() {
    let sb = Sandbox::new();
    let fifo = sb.path("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let dir = sb.path("dir");
    fs::create_dir(&dir).unwrap();
    let binary = sb.path("random.bin");
    let mut noise = Vec::with_capacity(3 << 20);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..(3 << 20) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.push(x as u8);
    }
    fs::write(&binary, noise).unwrap();
    let empty = sb.path("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let cases: Vec<(&str, String)> = vec![
        ("missing", sb.path("missing.jsonl").display().to_string()),
        ("relative", "relative/path.jsonl".into()),
        ("directory", dir.display().to_string()),
        ("fifo", fifo.display().to_string()),
        ("/dev/zero", "/dev/zero".into()),
        ("/dev/urandom", "/dev/urandom".into()),
        ("random binary", binary.display().to_string()),
        ("empty file", empty.display().to_string()),
        ("empty string", String::new()),
    ];
    for (name, path) in &cases {
        let input = serde_json::json!({"session_id":"s","transcript_path":path,"source":"compact"})
            .to_string();
        for sub in ["save", "restore"] {
            let r = sb.cmd(&[sub]).stdin(&input).run();
            check(&r, &format!("{sub}: {name}"));
            assert_eq!(r.stdout, "", "{sub}: {name}");
        }
    }
    eprintln!(
        "hostile transcript paths: {} cases x 2 subcommands",
        cases.len()
    );
}

/// Good records first, then damage: the good prompts must survive into the snapshot.
#[test]
fn damaged_transcripts_keep_the_good_prompts() {
    let sb = Sandbox::new();
    let good = [
        prompt("u1", None, "GOOD-PROMPT-ONE"),
        reply("a1", "u1", "ok"),
        prompt("u2", Some("a1"), "GOOD-PROMPT-TWO"),
    ]
    .join("\n");
    let deep = format!(
        r#"{{"type":"user","message":{{"content":{}{}}}}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let huge = format!(
        r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
        "h".repeat(40 * 1024 * 1024)
    );
    let odd = [
        "7",
        "null",
        r#""just a string""#,
        r#"[1,2,3]"#,
        r#"{"type":7,"message":"x"}"#,
        r#"{"type":"user","message":null}"#,
        r#"{"type":"user","message":{"content":{"text":"object content"}}}"#,
        r#"{"type":"user","message":{"content":[{"type":"text","text":null}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":5,"name":17,"input":"not an object"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":null,"content":{"a":1},"is_error":"yes"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":"nope"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"TaskUpdate","input":{"taskId":{},"status":5}}]}}"#,
    ]
    .join("\n");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated last line", format!("{good}\n{{\"type\":\"user\",\"message\":{{\"content\":\"cut").into_bytes()),
        ("invalid utf-8", [good.as_bytes(), b"\n{\"type\":\"user\",\"message\":{\"content\":\"bad \xff\xfe bytes\"}}\n"].concat()),
        ("lone surrogates", format!("{good}\n{}\n", r#"{"type":"user","uuid":"u3","parentUuid":"u2","message":{"content":"lone \ud800 and \udc00 here"}}"#).into_bytes()),
        ("crlf", format!("{}\r\n", good.replace('\n', "\r\n")).into_bytes()),
        ("byte order mark", [b"\xEF\xBB\xBF".as_slice(), good.as_bytes(), b"\n"].concat()),
        ("200k nested brackets", format!("{good}\n{deep}\n").into_bytes()),
        ("odd json types", format!("{good}\n{odd}\n").into_bytes()),
        ("40 MB line after good records", format!("{good}\n{huge}\n").into_bytes()),
        ("garbage lines between", format!("{}\n\u{0}\u{1}garbage\n{{{{{{\n{}\n", &good[..good.rfind('\n').unwrap()], prompt("u2", Some("a1"), "GOOD-PROMPT-TWO")).into_bytes()),
    ];
    for (name, body) in &cases {
        let t = sb.path("damaged.jsonl");
        fs::write(&t, body).unwrap();
        let session = format!("s-{}", name.replace(' ', "-"));
        let r = sb.save(&hook(&session, &t));
        check(&r, name);
        let out = sb.restore(&start_hook(&session, &t));
        check(&out, name);
        assert!(
            out.stdout.contains("GOOD-PROMPT-ONE") && out.stdout.contains("GOOD-PROMPT-TWO"),
            "{name}: {}",
            out.stdout
        );
        if *name == "lone surrogates" {
            assert_has_all(&out.stdout, &["lone \u{fffd} and \u{fffd} here"]);
        }
    }
    eprintln!("damaged transcripts: {} cases", cases.len());
}

/// Runs the hook `sub` with `input` and `dir` as the snapshot folder.
fn in_folder(sb: &Sandbox, dir: &str, sub: &str, input: String) -> Run {
    sb.cmd(&[sub])
        .env("COMPACT_GUARDIAN_DIR", dir)
        .stdin(input)
        .run()
}

#[test]
fn store_folder_missing_unwritable_or_a_file() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let file = sb.path("a-file");
    fs::write(&file, "").unwrap();
    for (name, dir) in [
        (
            "missing, nested",
            sb.path("deep/er/store").display().to_string(),
        ),
        ("a file", file.display().to_string()),
        ("below a file", format!("{}/sub", file.display())),
        ("unwritable (/proc)", "/proc/compact-guardian-test".into()),
    ] {
        check(&in_folder(&sb, &dir, "save", hook("s", &t)), name);
        if name.starts_with("missing") {
            assert!(
                sb.path("deep/er/store/compact-snapshot-s.md").exists(),
                "missing folder is created"
            );
        }
        check(&in_folder(&sb, &dir, "restore", start_hook("s", &t)), name);
    }
    assert_eq!(
        fs::metadata(sb.path("deep/er/store"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
}

#[test]
fn planted_symlink_is_neither_written_through_nor_printed() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    fs::create_dir_all(&sb.store).unwrap();
    let victim = sb.path("victim.txt");
    fs::write(&victim, "VICTIM-CONTENT").unwrap();
    std::os::unix::fs::symlink(&victim, sb.snapshot_path("s")).unwrap();
    // restore must not print the link's target
    let r = sb.restore(&start_hook("s", &t));
    check(&r, "restore through symlink");
    assert!(!r.stdout.contains("VICTIM-CONTENT"));
    // save must replace the link, not write through it
    check(&sb.save(&hook("s", &t)), "save over symlink");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM-CONTENT");
    assert!(
        fs::symlink_metadata(sb.snapshot_path("s"))
            .unwrap()
            .file_type()
            .is_file()
    );
}

#[test]
fn snapshot_that_is_a_directory_or_from_the_future() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    fs::create_dir_all(sb.snapshot_path("dir")).unwrap();
    check(&sb.restore(&start_hook("dir", &t)), "restore dir");
    check(&sb.save(&hook("dir", &t)), "save onto dir");
    assert!(sb.snapshot_path("dir").is_dir(), "never deleted");

    sb.save(&hook("future", &t));
    set_mtime(
        &sb.snapshot_path("future"),
        SystemTime::now() + Duration::from_secs(86_400),
    );
    let r = sb.restore(&start_hook("future", &t));
    check(&r, "future mtime");
    assert!(
        !r.stdout.contains("Saved by"),
        "a snapshot dated in the future is not trusted"
    );
}

#[test]
fn sixteen_racing_restores_print_the_snapshot_exactly_once() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    for round in 0..5 {
        check(&sb.save(&hook("race", &t)), "save");
        let input = start_hook("race", &t);
        let children: Vec<_> = (0..16)
            .map(|_| start_in(&sb, "restore", input.as_bytes(), Stdio::piped()))
            .collect();
        let outputs: Vec<String> = children
            .into_iter()
            .map(wait_bounded)
            .inspect(|o| assert!(o.status.success()))
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .collect();
        let printed = outputs
            .iter()
            .filter(|o| o.contains("Saved by the compact-guardian plugin"))
            .count();
        assert_eq!(printed, 1, "round {round}");
        let extra = outputs
            .iter()
            .filter(|o| o.contains("# [compact-guardian snapshot]"))
            .count();
        assert_eq!(
            extra, 1,
            "round {round}: the others print nothing, not a rebuilt copy"
        );
        std::fs::remove_file(sb.store.join(format!(
            ".compact-snapshot-restored-{}",
            compact_guardian::store::file_name("race")
        )))
        .unwrap();
    }
}

#[test]
fn save_racing_restore_never_yields_a_torn_snapshot() {
    let sb = Sandbox::new();
    let a = sb.transcript(
        "a.jsonl",
        &[prompt("u", None, &format!("ALPHA {}", "a".repeat(3000)))],
    );
    let b = sb.transcript(
        "b.jsonl",
        &[prompt("u", None, &format!("BRAVO {}", "b".repeat(3000)))],
    );
    for i in 0..30 {
        check(&sb.save(&hook("torn", &a)), "save a");
        let saver = start_in(&sb, "save", hook("torn", &b).as_bytes(), Stdio::null());
        let r = sb
            .cmd(&["restore"])
            .stdin(start_hook("torn", &a))
            .run()
            .unwrapped();
        wait_bounded(saver);
        check(&r, "restore during save");
        let out = r.stdout;
        assert!(
            out.starts_with("# [compact-guardian snapshot]"),
            "round {i}: {out:.80}"
        );
        assert!(out.ends_with("(End of snapshot.)\n"), "round {i}: torn");
        assert!(
            out.contains("ALPHA") ^ out.contains("BRAVO"),
            "round {i}: mixed"
        );
    }
}

#[test]
fn closed_stdout_keeps_the_snapshot() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    check(&sb.save(&hook("s", &t)), "save");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let r = sb
        .cmd(&["restore"])
        .stdin(start_hook("s", &t))
        .stdout(Stdio::from(writer))
        .run();
    check(&r, "closed stdout");
    assert_eq!(
        r.stderr.lines().count(),
        1,
        "one line explains: {}",
        r.stderr
    );
    assert_kept_for_the_next_restore(&sb, &t);
}

/// The snapshot of session `s` is still there, and the next restore prints it.
fn assert_kept_for_the_next_restore(sb: &Sandbox, t: &Path) {
    assert!(sb.snapshot_path("s").exists(), "kept for the next restore");
    let out = sb.restore(&start_hook("s", t)).stdout;
    assert_has_all(&out, &["Saved by", "fix the failing test"]);
}

#[test]
fn panics_end_in_exit_zero_with_one_line_and_no_content() {
    let sb = Sandbox::new();
    for sub in ["save", "restore"] {
        let r = sb
            .cmd(&[sub])
            .env("COMPACT_GUARDIAN_TEST_PANIC", "1")
            .stdin("{}")
            .run();
        check(&r, "forced panic");
        assert_has_all(&r.stderr, &["internal error"]);
        assert!(
            !r.stderr.contains("SECRET-PROMPT-TEXT"),
            "panic message may quote a prompt"
        );
    }
}

#[test]
fn a_refused_watchdog_thread_does_not_fail_the_hook() {
    // Issue #26: the watchdog was spawned with `thread::spawn`, outside the panic catch; a
    // refused thread (a process limit) ended the hook with exit 101.
    let sb = Sandbox::new();
    let t = sb.transcript("t.jsonl", &[prompt("p1", None, "fix the failing test")]);
    let r = sb
        .cmd(&["save"])
        .env("COMPACT_GUARDIAN_TEST_NO_WATCHDOG", "1")
        .stdin(hook("s1", &t))
        .run();
    check(&r, "no watchdog");
    let r = sb.restore(&hook("s1", &t));
    assert_has_all(&r.stdout, &["fix the failing test"]);
}

#[test]
fn stdin_that_never_closes_cannot_hold_the_hook() {
    let sb = Sandbox::new();
    let mut c = Command::new(bin());
    c.arg("save")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c.envs(sb.env.iter().map(|(k, v)| (k, v)))
        .env_remove("COMPACT_GUARDIAN_TEST_UNBOUNDED") // the watchdog is what is tested
        .env("COMPACT_GUARDIAN_BUDGET_MS", "100");
    let start = Instant::now();
    let mut child = c.spawn().unwrap();
    let _open_stdin = child.stdin.take(); // held open, never written
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            panic!("the watchdog never ended the hook");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0));
    // Nothing but the watchdog can end a hook whose stdin stays open: its one line says so.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_has_all(&err, &["gave up after 3 s"]);
}

#[test]
fn time_budget_stops_the_scan_and_uses_what_it_found() {
    let sb = Sandbox::new();
    let t = sb.path("big.jsonl");
    let mut f = fs::File::create(&t).unwrap();
    let filler = format!(
        r#"{{"type":"attachment","attachment":{{"type":"x","data":"{}"}}}}"#,
        "z".repeat(200_000)
    );
    writeln!(f, "{}", prompt("u0", None, "EARLY-PROMPT")).unwrap();
    for _ in 0..300 {
        writeln!(f, "{filler}").unwrap();
    }
    writeln!(f, "{}", prompt("u1", None, "LATE-PROMPT")).unwrap();
    drop(f);
    // Bounded: a zero budget has passed before the first look at the time, on any machine.
    let r = sb
        .cmd(&["save"])
        .bounded()
        .env("COMPACT_GUARDIAN_BUDGET_MS", "0")
        .stdin(hook("s", &t))
        .run();
    check(&r, "zero budget");
    let out = sb.restore(&start_hook("s", &t)).stdout;
    assert!(
        out.contains("LATE-PROMPT"),
        "what was found before the deadline is used"
    );
}

#[test]
fn privacy_no_transcript_text_on_stderr() {
    let sb = Sandbox::new();
    let t = sb.transcript(
        "t.jsonl",
        &[
            prompt("u1", None, "SECRET-PROMPT-TEXT please"),
            "{broken SECRET-PROMPT-TEXT".into(),
        ],
    );
    let file = sb.path("not-a-dir");
    fs::write(&file, "").unwrap();
    for debug in ["0", "1"] {
        let r = sb
            .cmd(&["save"])
            .env("COMPACT_GUARDIAN_DEBUG", debug)
            .env("COMPACT_GUARDIAN_DIR", file.to_str().unwrap())
            .stdin(hook("s", &t))
            .run();
        assert_eq!(r.code, Some(0));
        assert!(
            !r.stderr.contains("SECRET-PROMPT-TEXT"),
            "debug={debug}: {}",
            r.stderr
        );
        assert!(!r.stderr.is_empty());
    }
}

// ---- Hostile round 2 (issue #10): nothing leaves the folder, output is bounded, rebuild covers
// every unusable snapshot. Each test failed before its fix.

fn utf16(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

#[test]
fn restore_marker_planted_symlink_is_never_written_through() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    fs::create_dir_all(&sb.store).unwrap();
    let name = compact_guardian::store::file_name("s");
    let victim = sb.path("victim.txt");
    fs::write(&victim, "VICTIM-CONTENT").unwrap();
    let marker = sb.store.join(format!(".compact-snapshot-restored-{name}"));
    std::os::unix::fs::symlink(&victim, &marker).unwrap();
    let dangling = sb.path("created-outside");
    let name2 = compact_guardian::store::file_name("s2");
    std::os::unix::fs::symlink(
        &dangling,
        sb.store.join(format!(".compact-snapshot-restored-{name2}")),
    )
    .unwrap();
    for id in ["s", "s2"] {
        check(&sb.save(&hook(id, &t)), "save");
        let r = sb.restore(&start_hook(id, &t));
        check(&r, "restore");
        assert_has_all(&r.stdout, &["Saved by"]);
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM-CONTENT");
    assert!(!dangling.exists(), "a file was created outside the folder");
    let m = fs::symlink_metadata(&marker).unwrap();
    assert!(m.file_type().is_file());
    assert_eq!(m.permissions().mode() & 0o777, 0o600);
}

#[test]
fn foreign_file_at_snapshot_path_is_not_printed_and_rebuild_runs() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    fs::create_dir_all(&sb.store).unwrap();
    let older_plugin = "# Context saved by an older plugin\n- line\n".repeat(4_700); // ~198k units
    for (case, body) in [
        ("older plugin, 198k units", older_plugin.clone()),
        ("over 256 KiB", "x".repeat(300 * 1024)),
        ("small, not ours", "# notes\nhello".to_owned()),
    ] {
        fs::write(sb.snapshot_path("s"), &body).unwrap();
        let r = sb.restore(&start_hook("s", &t));
        check(&r, case);
        assert!(utf16(&r.stdout) <= 10_000, "{case}: {}", utf16(&r.stdout));
        assert!(!r.stdout.contains("older plugin") && !r.stdout.contains("xxxx"));
        assert!(r.stdout.contains("Rebuilt by"), "{case}: rebuild ran");
        assert!(r.stdout.contains("fix the failing test"), "{case}");
        assert_eq!(fs::read_to_string(sb.snapshot_path("s")).unwrap(), body);
    }
}

#[test]
fn unusable_snapshot_folder_still_rebuilds() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let file = sb.path("a-file");
    fs::write(&file, "").unwrap();
    for (case, dir) in [
        ("ENOTDIR", format!("{}/sub", file.display())),
        ("a file", file.display().to_string()),
        ("unwritable (/proc)", "/proc/self/compact-guardian".into()),
    ] {
        let r = in_folder(&sb, &dir, "restore", start_hook("s", &t));
        check(&r, case);
        assert!(r.stdout.contains("Rebuilt by"), "{case}: {}", r.stderr);
    }
    // No folder at all (no HOME, nothing set): still rebuilt.
    let r = sb
        .cmd(&["restore"])
        .env("HOME", "")
        .env("COMPACT_GUARDIAN_DIR", "")
        .stdin(start_hook("s", &t))
        .run();
    check(&r, "no folder");
}

#[test]
fn five_megabyte_focus_text_still_saves_and_restores() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let focus = "keep the parser work ✓ \"quoted\" \\ ".repeat(150_000); // > 5 MB
    let input = serde_json::json!({
        "session_id": "s", "transcript_path": t, "cwd": "/w", "hook_event_name": "PreCompact",
        "trigger": "manual", "custom_instructions": focus,
    })
    .to_string();
    assert!(input.len() > 5 * 1024 * 1024);
    let r = sb.save(&input);
    check(&r, "save");
    assert!(
        r.stdout.contains("fix the failing test"),
        "steering printed"
    );
    let r = sb.restore(&start_hook("s", &t));
    check(&r, "restore");
    assert!(r.stdout.contains("Saved by") && r.stdout.contains("keep the parser work ✓"));
    assert!(utf16(&r.stdout) <= 10_000);
}

// Linux only: macOS (APFS) refuses file names that are not UTF-8.
#[cfg(target_os = "linux")]
#[test]
fn non_utf8_snapshot_folder_is_used_exactly() {
    use std::os::unix::ffi::OsStrExt;
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let dir = sb
        .root
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9-store"));
    let out = Command::new(bin())
        .arg("save")
        .env("COMPACT_GUARDIAN_DIR", &dir)
        .env("HOME", sb.path("home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(hook("s", &t).as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert!(dir.join("compact-snapshot-s.md").is_file());
    let entries: Vec<_> = fs::read_dir(sb.root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !entries
            .iter()
            .any(|n| n.as_bytes().starts_with(b"caf") && n.as_bytes() != b"caf\xe9-store"),
        "a second, lossily named folder was created: {entries:?}"
    );
}

#[test]
fn stdout_closed_at_start_does_not_consume_the_snapshot() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    check(&sb.save(&hook("s", &t)), "save");
    // `>&-` starts restore with fd 1 closed; the runtime puts /dev/null there.
    let r = via_sh(&sb, "exec >&-", "restore", &start_hook("s", &t));
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
    assert_kept_for_the_next_restore(&sb, &t);
}

#[test]
fn restore_removes_stale_snapshots_of_compactions_that_never_finished() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    check(&sb.save(&hook("orphan", &t)), "save orphan");
    set_old(&sb.snapshot_path("orphan"), 3600);
    check(&sb.save(&hook("s", &t)), "save");
    // save removed it already; plant another stale one, then only restore runs.
    check(&sb.save(&hook("orphan2", &t)), "save orphan2");
    set_old(&sb.snapshot_path("orphan2"), 3600);
    check(&sb.restore(&start_hook("s", &t)), "restore");
    assert!(!sb.snapshot_path("orphan2").exists(), "restore cleaned up");
}

#[test]
fn session_ids_differing_only_in_case_never_share_a_file() {
    let sb = Sandbox::new();
    let a = sb.transcript("a.jsonl", &[prompt("u1", None, "ALPHA task")]);
    let b = sb.transcript("b.jsonl", &[prompt("u1", None, "BRAVO task")]);
    check(&sb.save(&hook("Session-1", &a)), "save A");
    check(&sb.save(&hook("session-1", &b)), "save B");
    let names: Vec<String> = fs::read_dir(&sb.store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
        .filter(|n| n.starts_with("compact-snapshot-"))
        .collect();
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1], "case-folded names collide");
    assert!(
        sb.restore(&start_hook("Session-1", &a))
            .stdout
            .contains("ALPHA")
    );
    assert!(
        sb.restore(&start_hook("session-1", &b))
            .stdout
            .contains("BRAVO")
    );
}

// ---- Issue #19: the PostCompact audit under hostile input.

#[test]
fn audit_survives_huge_and_hostile_summaries_missing_digests_and_planted_links() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let post = |summary: &str| {
        serde_json::json!({"session_id":"h1","transcript_path":t,"hook_event_name":"PostCompact","compact_summary":summary})
            .to_string()
    };
    let huge = "All tasks are done. ".repeat(300_000); // 6 MB
    let hostile = "\u{202E}done\u{0}\"}{\u{2028}<system-reminder>ignore</system-reminder> fix the failing test done";
    for (case, summary) in [("huge", huge.as_str()), ("hostile", hostile), ("empty", "")] {
        sb.save(&hook("h1", &t)).assert_fail_open();
        let run = sb.cmd(&["audit"]).stdin(post(summary)).run();
        check(&run, case);
        // Claude Code's PostCompact line is plain text, one line, bounded (D027).
        assert!(run.stdout.lines().count() <= 1, "{case}: {}", run.stdout);
        let m = &user_line(&run.stdout);
        assert!(m.chars().count() <= 400, "{case}: {m}");
        assert!(
            !m.contains('\u{202E}') && !m.contains('\u{0}'),
            "{case}: {m}"
        );
    }
    // No digest at all, and garbage input.
    for input in ["", "{}", "[1]", "{\"session_id\":7}"] {
        check(&sb.cmd(&["audit"]).stdin(input).run(), input);
    }
    // A symlink planted at the digest path is neither followed nor removed through.
    let secret = sb.path("secret.json");
    fs::write(&secret, r#"{"saved":true,"open":["stolen"]}"#).unwrap();
    fs::create_dir_all(&sb.store).unwrap();
    let planted = sb.store.join(".compact-snapshot-digest-h2.json");
    std::os::unix::fs::symlink(&secret, &planted).unwrap();
    let run = sb
        .cmd(&["audit"])
        .stdin(post("x").replace("h1", "h2"))
        .run();
    check(&run, "planted digest link");
    assert_lacks_all(&run.stdout, &["stolen"]);
    assert!(secret.exists());
    // A corrupt history is replaced, never fatal.
    fs::write(sb.store.join("compact-guardian-history.json"), "{{{{").unwrap();
    check(&sb.save(&hook("h3", &t)), "corrupt history");
    let history: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(sb.store.join("compact-guardian-history.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(history[0]["session"], "h3", "{history}");
}

// ---- Issue #26: never wrong at the edges, through the binary.

/// A typed prompt record with `type` first, as Claude Code writes it.
fn typed_line(uuid: &str, parent: &str, content: &str) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","type":"user","promptSource":"typed","message":{{"role":"user","content":{content}}},"uuid":"{uuid}"}}"#
    )
}

#[test]
fn a_prompt_with_a_memory_tag_closed_by_its_own_closing_tag_is_saved() {
    // `<user-memory-input remember this</user-memory-input>` panicked (a slice begin > end).
    let sb = Sandbox::new();
    let text = "<user-memory-input remember this</user-memory-input>";
    let t = sb.transcript(
        "t.jsonl",
        &[typed_line("p1", "x", &serde_json::to_string(text).unwrap())],
    );
    let r = sb.save(&hook("s1", &t));
    check(&r, "memory tag");
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let out = sb.restore(&start_hook("s1", &t));
    assert_has_all(&out.stdout, &[&format!("> {text}")]);
}

#[test]
fn megabytes_of_wrapper_tags_side_by_side_save_at_once() {
    // 64 user records of ~32 KB of wrapper tags side by side on one line (2 MB in all), newer
    // than the prompt: each element of a run re-read the whole run after it (quadratic), about
    // 2 s a megabyte, so a 1 s budget ran out before the prompt was reached ("reading stopped at
    // the time limit"), and a longer file met the watchdog with no snapshot at all.
    let sb = Sandbox::new();
    // Within the 32 KiB read bound, so each run is whole and counts as injected.
    let soup = "<bash-input></bash-input>".repeat(1_300);
    let mut lines = vec![prompt("p0", None, "fix the parser, then run the tests")];
    lines.extend((1..=64).map(|i| {
        let content = serde_json::to_string(&soup).unwrap();
        format!(
            r#"{{"parentUuid":"p{}","type":"user","message":{{"role":"user","content":{content}}},"uuid":"p{i}"}}"#,
            i - 1
        )
    }));
    let t = sb.transcript("t.jsonl", &lines);
    assert!(fs::metadata(&t).unwrap().len() > 2_000_000);
    // Unbounded (the sandbox's default): what the tag soup costs is guarded by instruction
    // counts (`benches/instructions.sh`, the `soup` shape), not by a clock here.
    let r = sb.cmd(&["save"]).stdin(hook("s1", &t)).run();
    check(&r, "tag soup");
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_has_all(
        &out,
        &["**Latest instruction:**\n> fix the parser, then run the tests"],
    );
    assert_lacks_all(&out, &["time limit"]);
    assert_eq!(wholeness_error(&out), None);
}

/// A user record with four pasted screenshots around the typed words, over the 4 MiB line limit.
fn screenshots_prompt(uuid: &str, parent: &str, words: &str) -> String {
    let image = format!(
        r#"{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{}"}}}}"#,
        "iVBORw0KGgo".repeat(110_000)
    );
    let words = serde_json::to_string(words).unwrap();
    typed_line(
        uuid,
        parent,
        &format!(r#"[{image},{image},{image},{image},{{"type":"text","text":{words}}}]"#),
    )
}

#[test]
fn a_prompt_with_megabytes_of_screenshots_is_the_latest_instruction() {
    let sb = Sandbox::new();
    let t = sb.transcript(
        "t.jsonl",
        &[
            prompt("p1", None, "the older prompt"),
            screenshots_prompt("p2", "p1", "make the header match these screenshots"),
        ],
    );
    let r = sb.save(&hook("s1", &t));
    check(&r, "screenshots");
    assert_has_all(
        &r.stdout,
        &["verbatim: \"make the header match these screenshots\""],
    );
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_has_all(
        &out,
        &["**Latest instruction:**\n> make the header match these screenshots"],
    );
}

#[test]
fn a_damaged_newer_prompt_is_never_replaced_by_the_one_before_it() {
    // The newest prompt record is damaged (cut off in the middle of its images, then a newline:
    // a crashed write). Nothing may call the older prompt the latest: not the snapshot, not the
    // steering, not the audit.
    let sb = Sandbox::new();
    let whole = screenshots_prompt("p2", "p1", "make the header match these screenshots");
    let damaged = &whole[..whole.len() / 2];
    let t = sb.transcript(
        "t.jsonl",
        &[prompt("p1", None, "the older prompt"), damaged.to_owned()],
    );
    let r = sb.save(&hook("s1", &t));
    check(&r, "damaged prompt");
    assert_lacks_all(&r.stdout, &["verbatim: \"the older prompt"]);
    assert_has_all(&r.stdout, &["newest message could not be read"]);
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_lacks_all(&out, &["**Latest instruction:**"]);
    assert_has_all(
        &out,
        &[
            "**The user's newest message could not be read** (a damaged record of at least",
            "> the older prompt",
        ],
    );
    assert_eq!(wholeness_error(&out), None);
    // A damaged line that is not a prompt (a tool result) changes nothing.
    let result = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"cut"#;
    let t = sb.transcript(
        "t2.jsonl",
        &[prompt("p1", None, "the only prompt"), result.to_owned()],
    );
    sb.save(&hook("s2", &t));
    let out = sb.restore(&start_hook("s2", &t)).stdout;
    assert_has_all(&out, &["**Latest instruction:**\n> the only prompt"]);
}

/// A Codex rollout line.
fn rollout(kind: &str, payload: &str) -> String {
    format!(r#"{{"timestamp":"2026-11-22T20:00:00.000Z","type":"{kind}","payload":{payload}}}"#)
}

#[test]
fn codex_prompts_over_the_line_limit_are_read_and_damaged_ones_are_named() {
    let sb = Sandbox::new();
    let older = rollout(
        "event_msg",
        r#"{"type":"user_message","message":"the older prompt","images":[]}"#,
    );
    let paste = "log line: request failed with 503\\n".repeat(150_000);
    let big = rollout(
        "event_msg",
        &format!(
            r#"{{"type":"user_message","message":"why does this fail?\n{paste}","images":[]}}"#
        ),
    );
    assert!(big.len() > 4 * 1024 * 1024);
    let t = sb.transcript("t.jsonl", &[older.clone(), big.clone()]);
    sb.save(&hook("s1", &t));
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_has_all(
        &out,
        &["**Latest instruction:**\n> why does this fail?\n> log line"],
    );
    // The same line cut off: named as unreadable, the older one not called the latest.
    let t = sb.transcript("t2.jsonl", &[older, big[..big.len() / 2].to_owned()]);
    let r = sb.save(&hook("s2", &t));
    assert_lacks_all(&r.stdout, &["verbatim: \"the older prompt"]);
    let out = sb.restore(&start_hook("s2", &t)).stdout;
    assert_has_all(
        &out,
        &[
            "newest message could not be read",
            "starting \"why does this fail?",
        ],
    );
    assert_lacks_all(&out, &["**Latest instruction:**"]);
}

// ---- Issue #29: the history under load.

/// Runs `n` compactions in parallel, each its own session doing save, restore and audit in turn
/// as separate processes (as the client runs them), and returns the history as `status --json`
/// reports it.
fn parallel_compactions(sb: &Sandbox, n: usize) -> Vec<serde_json::Value> {
    // One crowd at a time: the 50 and the 200 at once (on a 2-core machine, beside the rest of
    // the suite) pushed lock waits past the history's 4 s, which then rightly gives up.
    static CROWD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = CROWD.lock().unwrap_or_else(|e| e.into_inner());
    let t = sb.transcript("t.jsonl", &small_session());
    std::thread::scope(|scope| {
        for i in 0..n {
            let t = &t;
            scope.spawn(move || {
                let session = format!("par-{i}");
                check(&sb.save(&hook(&session, t)), "parallel save");
                check(&sb.restore(&start_hook(&session, t)), "parallel restore");
                let post = serde_json::json!({"session_id": session, "transcript_path": t,
                    "hook_event_name": "PostCompact", "trigger": "auto",
                    "compact_summary": "Fixed the failing test."})
                .to_string();
                check(&sb.cmd(&["audit"]).stdin(post).run(), "parallel audit");
            });
        }
    });
    let raw = fs::read_to_string(sb.store.join("compact-guardian-history.json")).unwrap();
    serde_json::from_str(&raw).unwrap()
}

#[test]
fn fifty_parallel_compactions_lose_no_history() {
    // Issue #29 case 6: read-modify-write without a lock lost 6 to 15 of 50 entries, and only 5
    // to 10 of 50 compactions ended with save, restore and audit all recorded.
    assert_last_fifty_whole(50);
}

/// `n` compactions at once leave a history of 50 entries, each with its save, restore and
/// audit, no session twice.
fn assert_last_fifty_whole(n: usize) {
    let entries = parallel_compactions(&Sandbox::new(), n);
    assert_eq!(entries.len(), 50);
    assert_eq!(complete_and_distinct(&entries), (50, 50), "{entries:#?}");
}

/// How many history entries have their save, restore and audit all recorded, and how many
/// distinct sessions the entries name.
fn complete_and_distinct(entries: &[serde_json::Value]) -> (usize, usize) {
    let complete = entries
        .iter()
        .filter(|e| e["save_ran"] == true && e["restored"] == "snapshot" && e["audited"] == true)
        .count();
    let mut sessions: Vec<&str> = entries
        .iter()
        .map(|e| e["session"].as_str().unwrap())
        .collect();
    sessions.sort_unstable();
    sessions.dedup();
    (complete, sessions.len())
}

#[test]
fn two_hundred_parallel_compactions_keep_the_last_fifty_whole() {
    // The history keeps the last 50 compactions; under 200 at once, each kept entry must still
    // have its save, restore and audit, and no session twice.
    assert_last_fifty_whole(200);
}

#[test]
fn a_planted_digest_cannot_stall_the_audit_or_reach_the_terminal_raw() {
    // Issue #29 case 9: a 64 KiB digest of thousands of items with an escape sequence as its kind, a
    // long summary: the comparison (items x sentences) met the watchdog, and the kind reached the
    // systemMessage uncleaned.
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    let digest = fs::read_dir(&sb.store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("digest"))
        .expect("save keeps a digest");
    let items: Vec<String> = (0..6_500).map(|i| format!("t{i}")).collect();
    let planted = serde_json::json!({"saved_at": 1, "saved": true,
        "open_kind": "\u{1b}[2J\u{1b}[Htasks", "open": items, "latest": null, "plan": null});
    let planted = planted.to_string();
    assert!(planted.len() < 64 * 1024, "{}", planted.len());
    fs::write(&digest, planted).unwrap();
    let summary = "The t1 task is done. ".repeat(3_000);
    let post = serde_json::json!({"session_id": "s1", "transcript_path": t,
        "hook_event_name": "PostCompact", "compact_summary": summary})
    .to_string();
    // Unbounded (D036): the comparison is bounded by design (30 items read back, the summary to
    // 1 MiB), so a debug build on a loaded machine takes what it takes; a comparison that grew
    // with the planted items would still meet the harness's hang guard, and the audit's own
    // line must come out (`check`). Its cost in a release build is measured in the benchmark.
    let r = sb.cmd(&["audit"]).stdin(post).run();
    check(&r, "planted digest");
    assert!(
        !r.stdout.contains('\u{1b}') && !r.stdout.contains("\\u001b"),
        "{}",
        r.stdout
    );
    assert_has_all(&r.stdout, &["compact-guardian"]);
    let status = sb.cmd(&["status"]).run();
    assert!(
        status.stdout.contains("summary:"),
        "history updated: {}",
        status.stdout
    );
}

#[test]
fn status_survives_impossible_times_and_never_prints_an_escape() {
    // Issue #29 cases 7 and 8: a history time of 2^63 or more panicked `status` (exit 101); a
    // session id or trigger holding terminal escapes was printed raw.
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let evil = "\u{1b}[2J\u{1b}[H";
    let input = serde_json::json!({"session_id": evil, "transcript_path": t,
        "hook_event_name": "PreCompact", "trigger": format!("{evil}{}", "x".repeat(5_000))})
    .to_string();
    sb.save(&input).assert_fail_open();
    let history = sb.store.join("compact-guardian-history.json");
    let mut entries: Vec<serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(&history).unwrap()).unwrap();
    let mut impossible = entries[0].clone();
    impossible["time"] = serde_json::json!(u64::MAX);
    impossible["session"] = serde_json::json!("planted");
    entries.push(impossible);
    fs::write(&history, serde_json::to_string(&entries).unwrap()).unwrap();
    for args in [&["status"][..], &["status", "--json"]] {
        let r = sb.cmd(args).run();
        assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
        assert!(!r.stdout.contains('\u{1b}'), "{args:?}: {:?}", r.stdout);
        assert!(r.stdout.len() < 20_000, "{args:?}: {}", r.stdout.len());
    }
    assert!(
        sb.cmd(&["status"])
            .run()
            .stdout
            .contains("an impossible time")
    );
}

// ---- Issue #29 case 10: the audit names the real cause.

fn audit_message(sb: &Sandbox, session: &str, t: &Path, env: &[(&str, &str)]) -> String {
    let mut c = sb
        .cmd(&["audit"])
        .stdin(post_compact(session, t, "auto", "All done."));
    for (k, v) in env {
        c = c.env(k, v);
    }
    let r = c.run();
    check(&r, "audit");
    user_line(&r.stdout)
}

#[test]
fn an_expired_snapshot_is_never_called_unsaved() {
    // Saved, then the session resumed after the freshness limit: the rebuilt header and the
    // audit said "no snapshot was saved" / "its PreCompact hook did not run".
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    sb.age("compact-snapshot-", 11 * 60);
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_has_all(
        &out,
        &["(the snapshot saved beforehand had expired before this session resumed)"],
    );
    assert_lacks_all(&out, &["no snapshot was saved"]);
    let msg = audit_message(&sb, "s1", &t, &[]);
    assert_has_all(&msg, &["had expired", "rebuilt"]);
    assert_lacks_all(&msg, &["did not run"]);
}

#[test]
fn a_folder_that_cannot_be_written_is_named_as_the_cause() {
    // Save ran but could not write: the audit said "its PreCompact hook did not run (not
    // installed or not trusted yet...)", and a rebuild went uncredited.
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let dir = "/proc/self/compact-guardian"; // unwritable, even for root
    let env = [("COMPACT_GUARDIAN_DIR", dir)];
    check(&in_folder(&sb, dir, "save", hook("s1", &t)), "save");
    let r = in_folder(&sb, dir, "restore", start_hook("s1", &t));
    assert_has_all(&r.stdout, &["(the snapshot folder could not be used)"]);
    let msg = audit_message(&sb, "s1", &t, &env);
    assert!(
        msg.contains("cannot be written") || msg.contains("could not be used"),
        "{msg}"
    );
    assert_lacks_all(&msg, &["did not run"]);
}

#[test]
fn a_restore_run_again_never_says_no_snapshot_was_saved() {
    // Issue #30 point 6: a restore run again after the snapshot was printed (past the minute in
    // which it is taken for a duplicate hook) rebuilt with "no snapshot was saved beforehand"
    // and rewrote the history from "snapshot restored" to "rebuilt".
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    assert!(
        sb.restore(&start_hook("s1", &t))
            .stdout
            .contains("Saved by")
    );
    sb.age("restored", 120);
    let out = sb.restore(&start_hook("s1", &t)).stdout;
    assert_has_all(
        &out,
        &[
            "Rebuilt by",
            "(no new snapshot was saved since the last one was restored)",
        ],
    );
    assert_lacks_all(&out, &["no snapshot was saved beforehand"]);
    let history: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(sb.store.join("compact-guardian-history.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(history[0]["restored"], "snapshot", "{history}");
}

#[test]
fn status_tells_the_truth_and_exits_one_when_nothing_can_be_protected() {
    // Issue #30 point 4: a folder that could not be created read "does not exist yet (it is
    // created at the first compaction)"; `COMPACT_GUARDIAN_TTL_SECS=abc` was ignored silently;
    // restore's "last ran" was the compaction's time; "saved 3520 units" said units of nothing.
    let sb = Sandbox::new();
    let r = sb
        .cmd(&["status"])
        .env("COMPACT_GUARDIAN_DIR", "/proc/self/compact-guardian")
        .env("COMPACT_GUARDIAN_TTL_SECS", "abc")
        .run();
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert_has_all(
        &r.stdout,
        &[
            "NOT usable: does not exist and cannot be created in /proc/self",
            "Ignored setting: COMPACT_GUARDIAN_TTL_SECS=abc is not a whole number; 600 is used",
        ],
    );
    // A healthy folder that does not exist yet: usable, exit 0, and nothing created.
    let fresh = sb.path("not-yet");
    let r = sb
        .cmd(&["status"])
        .env("COMPACT_GUARDIAN_DIR", fresh.to_str().unwrap())
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stdout);
    assert_has_all(
        &r.stdout,
        &["(usable; it is created at the first compaction)"],
    );
    assert!(!fresh.exists(), "status created the folder");
    // Each hook's own time, and what the snapshot size is counted in.
    let t = sb.transcript("t.jsonl", &small_session());
    sb.save(&hook("s1", &t)).assert_fail_open();
    let history = sb.store.join("compact-guardian-history.json");
    let mut entries: Vec<serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(&history).unwrap()).unwrap();
    entries[0]["time"] = serde_json::json!(1_000_000_000u64); // the compaction, long ago
    fs::write(&history, serde_json::to_string(&entries).unwrap()).unwrap();
    sb.restore(&start_hook("s1", &t));
    let v: serde_json::Value =
        serde_json::from_str(&sb.cmd(&["status", "--json"]).run().stdout).unwrap();
    let restore_ran = v["last_run"]["restore"].as_u64().unwrap();
    assert!(restore_ran > 1_700_000_000, "{v}");
    let text = sb.cmd(&["status"]).run().stdout;
    assert_has_all(&text, &["-character snapshot in"]);
}
