//! Hostile round 6 (issue #48): what landed in rounds 4 and 5 under races, signals, planted files
//! and odd sizes. Each test replays one numbered finding (on 854bca9 each of them failed) through
//! the built binary, the sh launcher or the OpenCode plugin, as the clients run them.

use crate::common::*;
use crate::hostile_round4::{codex_compacted, codex_compacted_with, pending};
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

// ---- Helpers.

fn home(sb: &Sandbox) -> PathBuf {
    sb.path("home")
}

/// The OpenCode plugin file's place in the sandbox's home.
fn opencode_plugin(sb: &Sandbox) -> PathBuf {
    home(sb).join(".config/opencode/plugins/compact-guardian.js")
}

// ---- 5. A symlinked OpenCode plugin called "not installed".

#[test]
fn a_symlinked_opencode_plugin_counts_as_installed() {
    let sb = Sandbox::new();
    let run = sb
        .cmd(&["install-opencode"])
        .env("HOME", home(&sb).to_str().unwrap())
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // As stow and home-manager install it: the file lives elsewhere, the plugins folder links it.
    let plugin = opencode_plugin(&sb);
    let elsewhere = sb.path("dotfiles/compact-guardian.js");
    fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    fs::rename(&plugin, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &plugin).unwrap();
    // OpenCode's snapshot folder, which makes `status` list OpenCode among the clients.
    fs::create_dir_all(home(&sb).join(".local/share/opencode/compact-guardian")).unwrap();
    let s = sb.cmd(&["status"]).env("OPENCODE", "1").run();
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    assert_has_all(&s.stdout, &["OpenCode: installed ("]);
    assert_lacks_all(&s.stdout, &["OpenCode: not installed"]);
    assert_has_all(
        &s.stdout,
        &[&format!("OpenCode plugin: {}\n", plugin.display())],
    );
    assert_lacks_all(&s.stdout, &["NOT found"]);
}

// ---- 9. `status` hangs on a FIFO, grows on /dev/zero.

#[test]
fn status_reads_no_fifo_and_no_device_in_a_clients_config() {
    let sb = Sandbox::new();
    let h = home(&sb);
    mkfifo(&h.join(".codex/config.toml"));
    mkfifo(&h.join(".claude/plugins/installed_plugins.json"));
    mkfifo(&opencode_plugin(&sb));
    for json in [false, true] {
        let args = if json { "status --json" } else { "status" };
        // A hang fails the test ([`HANG`]); on 854bca9 `status` waited for a writer forever.
        let r = via_sh(&sb, "export OPENCODE=1", args, "");
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert!(
            r.stdout.contains("OpenCode plugin: NOT found") || json,
            "{}",
            r.stdout
        );
    }
    // Links into /dev/zero: never read without end (on 854bca9 the plugin file was read whole,
    // and memory grew until the limit here stopped it).
    for p in [h.join(".codex/config.toml"), opencode_plugin(&sb)] {
        fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
    }
    let r = via_sh(&sb, "export OPENCODE=1; ulimit -v 1000000", "status", "");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_has_all(&r.stdout, &["OpenCode plugin: NOT found"]);
}

// ---- 10. An escaped `custom_instructions` key dropped.

#[test]
fn a_fully_escaped_custom_instructions_key_is_kept() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    let key: String = "custom_instructions"
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let input = format!(
        r#"{{"session_id":"s","transcript_path":{},"cwd":"/w","hook_event_name":"PreCompact","trigger":"manual","{key}":"keep the zebra migration in focus"}}"#,
        json!(t)
    );
    assert_eq!(key.len(), 114);
    sb.save(&input).assert_fail_open();
    let r = sb.restore(&start_hook("s", &t));
    assert!(
        r.stdout.contains("keep the zebra migration in focus"),
        "the focus reached the snapshot: {}",
        r.stdout
    );
}

// ---- 11. Lossy session ids share one session's files.

#[test]
fn session_ids_read_lossily_never_share_a_snapshot() {
    let sb = Sandbox::new();
    let mine = sb.transcript(
        "mine.jsonl",
        &[prompt(
            "u1",
            None,
            "rotate the walrus credentials before friday",
        )],
    );
    // Of the same length: a restore takes the saved snapshot as it is (a transcript that grew
    // since would have it brought up to date from that transcript).
    let theirs = sb.transcript(
        "theirs.jsonl",
        &[prompt(
            "u1",
            None,
            "rotate the badger credentials before friday",
        )],
    );
    // Two distinct ids, each read as "a\u{FFFD}" on 854bca9: a lone surrogate and a raw byte.
    let input = |id: &[u8], t: &Path, start: bool| -> Vec<u8> {
        let mut v = br#"{"session_id":""#.to_vec();
        v.extend_from_slice(id);
        let rest = if start {
            format!(
                r#"","transcript_path":{},"hook_event_name":"SessionStart","source":"compact"}}"#,
                json!(t)
            )
        } else {
            format!(
                r#"","transcript_path":{},"hook_event_name":"PreCompact","trigger":"manual"}}"#,
                json!(t)
            )
        };
        v.extend_from_slice(rest.as_bytes());
        v
    };
    sb.cmd(&["save"])
        .stdin(input(br"a\udc80", &mine, false))
        .run()
        .assert_fail_open();
    for other in [&br"a\udc81"[..], &b"a\xff"[..]] {
        let r = sb
            .cmd(&["restore"])
            .stdin(input(other, &theirs, true))
            .run()
            .unwrapped();
        r.assert_fail_open();
        assert!(
            !r.stdout.contains("walrus"),
            "another session's snapshot was handed over: {}",
            r.stdout
        );
    }
}

// ---- 1. A claimed file swept by another session's hook.

/// Nanoseconds since the epoch, `ago` seconds ago: the time a claim writes into its name.
fn nanos_ago(ago: u64) -> u128 {
    (std::time::SystemTime::now() - Duration::from_secs(ago))
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[test]
fn a_claimed_file_is_never_swept_while_its_claimer_lives() {
    let (sb, t) = Sandbox::with_transcript(&small_session());
    sb.save(&hook("first", &t)).assert_fail_open();
    // The interleaving forced: a hook has just claimed (renamed) corrections that waited 15
    // minutes and a deferred snapshot saved an hour ago, and has not read them yet. Claimed
    // files keep the time they were written.
    let just_claimed = [
        format!(
            ".compact-snapshot-claimed-corrections-4242-{}",
            nanos_ago(0)
        ),
        format!(".compact-snapshot-claimed-4242-{}", nanos_ago(1)),
    ];
    // Claims whose claimer was killed long ago: leftovers.
    let left_over = [
        format!(
            ".compact-snapshot-claimed-corrections-4243-{}",
            nanos_ago(3600)
        ),
        ".compact-snapshot-claimed-4243-garbled".to_owned(),
    ];
    for (name, age) in just_claimed
        .iter()
        .map(|n| (n, 900))
        .chain([(&just_claimed[1], 3600)])
        .chain(left_over.iter().map(|n| (n, 3600)))
    {
        let p = sb.store.join(name);
        fs::write(&p, "{}").unwrap();
        set_old(&p, age);
    }
    // Another session's hook sweeps stale files meanwhile.
    sb.save(&hook("second", &t)).assert_fail_open();
    for name in &just_claimed {
        assert!(
            sb.store.join(name).exists(),
            "{name} swept under its claimer"
        );
    }
    for name in &left_over {
        assert!(!sb.store.join(name).exists(), "{name} left over");
    }
}

// ---- 4. A deferred Codex snapshot outlives its deleted rollout.

#[test]
fn a_deferred_codex_snapshot_goes_with_its_deleted_rollout() {
    let sb = Sandbox::new();
    let (t, _) = codex_compacted(&sb, "manual");
    let marker = sb
        .store
        .join(".compact-snapshot-deferred-compact-snapshot-c1.md");
    let other = sb.transcript("other.jsonl", &small_session());
    let sweep = |n: &str| {
        sb.save(&hook(n, &other)).assert_fail_open();
    };
    for f in [sb.snapshot_path("c1"), marker.clone(), pending(&sb, "c1")] {
        set_old(&f, 3600);
    }
    // Its session may continue: the restore waits for it, past the TTL.
    sweep("o1");
    assert!(sb.snapshot_path("c1").exists() && marker.exists());
    // The rollout deleted: nothing can continue the session, and the snapshot quotes the user.
    fs::remove_file(&t).unwrap();
    sweep("o2");
    assert!(!pending(&sb, "c1").exists(), "corrections go with it");
    assert!(
        !sb.snapshot_path("c1").exists(),
        "the snapshot goes with it"
    );
    assert!(!marker.exists(), "and the marker");
}

// ---- 6 and 7. The launcher's memory under a file-size limit, and a FIFO in its place.

/// The launcher's temporary files left in the data folder.
fn temp_entries(p: &Plugin) -> Vec<std::ffi::OsString> {
    fs::read_dir(p.data())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("launcher-found."))
        .collect()
}

#[test]
fn the_launcher_survives_a_file_size_limit_and_its_binary_runs() {
    let p = Plugin::new();
    install_test_binary(&p);
    let t = p.transcript();
    for _ in 0..2 {
        // On 854bca9 SIGXFSZ ended the launcher at its memory write: exit 153, nothing ran.
        let r = p.launch("ulimit -f 0", "save", &[], &hook("s1", &t));
        assert_eq!(r.code, Some(0), "{r:?}");
        assert!(
            r.stdout.contains("fix the failing test"),
            "the binary ran: {r:?}"
        );
        assert!(r.stderr.lines().count() <= 1, "{r:?}");
        assert!(temp_entries(&p).is_empty(), "{:?}", temp_entries(&p));
    }
    // Without the limit the memory is written as before.
    let r = p.launch("true", "save", &[], &hook("s1", &t));
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(remembered(&p).is_file());
}

#[test]
fn a_fifo_at_the_launchers_memory_never_blocks_a_hook_and_is_replaced() {
    let p = Plugin::new();
    install_test_binary(&p);
    let t = p.transcript();
    mkfifo(&remembered(&p));
    // A hang fails the test ([`HANG`]); on 854bca9 the hook waited in the redirection for a
    // writer, until the client's timeout.
    let r = p.launch("true", "save", &[], &hook("s1", &t));
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.contains("fix the failing test"), "{r:?}");
    assert!(remembered(&p).is_file(), "replaced by the entry");
    assert!(temp_entries(&p).is_empty());
}

// ---- 2. The judge runs past the watchdog.

/// Save and restore unbounded, then the audit with the hook's budget (`budget_ms`) and the
/// watchdog (`None`: unbounded, D036): what it printed.
fn audited_within(sb: &Sandbox, t: &Path, budget_ms: Option<&str>, summary: &str) -> Run {
    sb.save(&hook("s1", t)).assert_fail_open();
    sb.restore(&start_hook("s1", t)).assert_fail_open();
    let mut audit = sb
        .cmd(&["audit"])
        .env("COMPACT_GUARDIAN_DEBUG", "1")
        .stdin(post_compact("s1", t, "manual", summary));
    if let Some(ms) = budget_ms {
        audit = audit.bounded().env("COMPACT_GUARDIAN_BUDGET_MS", ms);
    }
    let r = audit.run();
    assert_eq!(r.code, Some(0), "{r:?}");
    r
}

#[test]
fn a_judgement_not_done_by_the_hooks_deadline_is_never_told() {
    let (sb, t) = Sandbox::with_transcript(&failing_session());
    // A budget already spent when the judge starts: whatever the machine's speed, it stops at
    // its first look at the clock. On 854bca9 the judge never looked: it corrected this summary
    // (and a 256 KiB one ran past the watchdog).
    let one_word_lines = "done\nall\ntests\npass\nrenderer\n".repeat(256 * 1024 / 29);
    assert!(one_word_lines.len() <= 256 * 1024);
    for summary in [FALSE_SUMMARY, one_word_lines.as_str()] {
        let r = audited_within(&sb, &t, Some("0"), summary);
        assert!(!r.stdout.contains("the summary"), "{r:?}");
        assert!(
            r.stderr
                .contains("could not be judged within the hook's budget"),
            "{r:?}"
        );
        assert!(
            !pending(&sb, "s1").exists(),
            "no corrections from an unfinished judgement"
        );
    }
    // With the time to finish, the same summary is corrected.
    let r = audited_within(&sb, &t, None, FALSE_SUMMARY);
    assert!(r.stdout.contains("the model is told"), "{r:?}");
    assert!(pending(&sb, "s1").exists());
}

// ---- 3. "the summary kept them" when nothing was checked.

#[test]
fn a_summary_nothing_could_be_checked_in_is_never_said_to_keep_the_work() {
    let sb = Sandbox::new();
    // Codex's `systemMessage` after a compaction whose summary is in Chinese: no open step and
    // not the latest instruction can be looked for in it.
    let (_, out) = codex_compacted_with(
        &sb,
        "manual",
        "## 当前工作\n重构了解析器模块。\n## 下一步\n继续。",
    );
    assert_has_all(&out, &["compact-guardian saved"]);
    // Nothing in it was checked: the line claims no all-clear (#55).
    assert_lacks_all(
        &out,
        &["kept them", "contradicts", "checked against the record"],
    );
}

// ---- 8. The OpenCode plugin waits for ever on a binary whose child holds its stdout.

/// Runs the plugin's compaction hook in OpenCode's own runtime (as `e2e_opencode.rs` does) and
/// prints what the summarizer's prompt got and what the user was told.
const COMPACTING: &str = r#"
const { CompactGuardian } = await import(process.argv[2])
const toasts = []
const client = {
  app: { log: async () => {} },
  tui: { showToast: async ({ body }) => { toasts.push(body.message) } },
  session: {
    messages: async () => ({ data: [{ info: { id: "msg_1", sessionID: "ses_1", role: "user", time: { created: 1 } }, parts: [{ type: "text", text: "fix the parser" }] }], response: { headers: new Headers() } }),
    todo: async () => ({ data: [] }),
  },
}
const hooks = await CompactGuardian({ client, directory: "/tmp" })
const output = { context: [], prompt: undefined }
await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, output)
console.log(JSON.stringify({ context: output.context, toasts }))
"#;

#[test]
#[cfg_attr(
    cg_no_opencode,
    ignore = "needs OpenCode: .ci/run installs it (npm install --prefix .e2e/opencode opencode-ai@1.18.33)"
)]
fn the_opencode_plugin_returns_when_its_timer_fires_though_a_grandchild_holds_the_pipes() {
    let Some(cli) = crate::e2e::opencode::opencode() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // A wrapper script whose own child keeps stdout and stderr open long after the plugin's
    // 15 s timer kills the wrapper (it ends by itself; the test ends it sooner, by its PID).
    let pid_file = tmp.path().join("grandchild.pid");
    let wrapper = tmp.path().join("compact-guardian");
    write_executable(
        &wrapper,
        format!(
            "#!/bin/sh\nsleep 300 &\necho $! $$ > '{}'\nexec sleep 300\n",
            pid_file.display()
        )
        .as_bytes(),
    );
    let harness = tmp.path().join("harness.mjs");
    fs::write(&harness, COMPACTING).unwrap();
    let mut c = Command::new(cli);
    c.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", tmp.path())
        .env("BUN_BE_BUN", "1")
        .env("COMPACT_GUARDIAN_BIN", &wrapper)
        .arg(&harness)
        .arg(repo_file("opencode/compact-guardian.js"));
    let _ends_them = KillOnDrop(pid_file);
    // A hang fails the test ([`HANG`]); on 854bca9 the plugin waited for the pipes to close,
    // 300 s here, and OpenCode's compaction with it.
    let r = run_child(c, &[], "");
    assert_eq!(r.code, Some(0), "the plugin threw: {r:?}");
    let got: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{r:?}"));
    assert_eq!(
        got["context"],
        json!([]),
        "the summarizer's prompt left alone: {got}"
    );
}

/// Ends the processes whose PIDs the file at its path holds (the wrapper and its child), when
/// dropped: also when the test fails.
struct KillOnDrop(PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(pids) = fs::read_to_string(&self.0) {
            for pid in pids.split_whitespace() {
                let _ = Command::new("kill").arg(pid).status();
            }
        }
    }
}

fn repo_file(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}
