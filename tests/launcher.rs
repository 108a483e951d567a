//! The POSIX sh launcher the hooks call and the startup hook that provisions the native binary:
//! search order, fail-open when nothing is installed, never running itself, and the verified
//! download served from a loopback HTTP server with no cargo on PATH (issue #11).

use crate::common::{
    Cmd, Plugin, Server, assert_has_all, assert_lacks_all, copy_executable, dead_url, dist, hook,
    install_test_binary, output_with, post_compact, remembered, start_hook, tree, version,
    write_executable,
};
use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The test build where `cargo build --release` leaves it in the checkout around the plugin.
fn built_in_checkout(p: &Plugin) -> PathBuf {
    let built = p.path("target/release/compact-guardian");
    fs::create_dir_all(built.parent().unwrap()).unwrap();
    copy_executable(Path::new(env!("CARGO_BIN_EXE_compact-guardian")), &built);
    built
}

/// Installs a stand-in "native binary" at `dir/compact-guardian`: a copy of a small system program,
/// so each candidate is told apart by what it does with the argument `save`:
/// `echo` prints "save", `dirname` prints ".", `false` exits 1, `true` prints nothing.
fn fake(dir: &Path, program: &str) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let p = dir.join("compact-guardian");
    let src = ["/bin", "/usr/bin"]
        .iter()
        .map(|d| Path::new(d).join(program))
        .find(|p| p.exists())
        .unwrap();
    copy_executable(&src, &p);
    p
}

/// Runs the launcher of the plugin at `root` as a person would from a shell: only `env`, no
/// CLAUDE_PLUGIN_* variables, no input.
fn by_hand(root: &Path, arg: &str, env: &[(&str, &Path)]) -> Output {
    Command::new("sh")
        .arg(root.join("bin/compact-guardian"))
        .arg(arg)
        .env_clear()
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// A PATH with the system tools and a cargo that runs but whose build fails at once (enough to
/// see whether a build is started).
fn with_failing_cargo(p: &Plugin) -> String {
    fake_rust(p, "1.95.0", "exit 1", false)
}

#[test]
fn launcher_search_order() {
    let p = Plugin::new();
    let explicit = fake(&p.path("explicit"), "echo");
    fake(&p.path("target/release"), "dirname");
    fake(p.installed().parent().unwrap(), "false");
    let on_path = p.path("path-bin");
    fake(&on_path, "true");
    let path = format!("{}:{}", on_path.display(), p.path("tools").display());
    let env = [
        ("COMPACT_GUARDIAN_BIN", explicit.to_str().unwrap()),
        ("PATH", path.as_str()),
    ];
    let run = |env: &[(&str, &str)]| {
        let o = p.run("compact-guardian", &["save"], env, "");
        (o.status.code(), text(&o.stdout), text(&o.stderr))
    };
    assert_eq!(run(&env).1, "save\n", "1: COMPACT_GUARDIAN_BIN");
    fs::remove_file(&explicit).unwrap();
    assert_eq!(run(&env).1, ".\n", "2: the plugin's target/release");
    fs::remove_file(p.path("target/release/compact-guardian")).unwrap();
    assert_eq!(run(&env).0, Some(1), "3: $CLAUDE_PLUGIN_DATA/bin/<version>");
    fs::remove_file(p.installed()).unwrap();
    assert_eq!(
        run(&env),
        (Some(0), String::new(), String::new()),
        "4: PATH"
    );
    fs::remove_file(on_path.join("compact-guardian")).unwrap();
    let (code, out, err) = run(&env);
    assert_eq!((code, out.as_str()), (Some(0), ""), "fail-open");
    assert_eq!(err.lines().count(), 1, "{err}");
    // 5: the release, fetched at the compaction (here from a URL nothing answers at).
    assert_has_all(
        &err,
        &["could not reach the download server", "NOT protected"],
    );
}

#[test]
fn launcher_ignores_another_versions_binary() {
    let p = Plugin::new();
    fake(&p.data().join("bin/0.0.1"), "echo");
    let saved = p.hook("save", "").stdout;
    assert!(saved.is_empty(), "an older version's binary is not run");
}

#[test]
fn launcher_finds_exe_names() {
    let p = Plugin::new();
    let dir = p.installed().parent().unwrap().to_path_buf();
    fake(&dir, "echo");
    fs::rename(
        dir.join("compact-guardian"),
        dir.join("compact-guardian.exe"),
    )
    .unwrap();
    let o = p.hook("save", "");
    assert_eq!(text(&o.stdout), "save\n");
}

#[test]
fn launcher_skips_a_non_executable_candidate() {
    let p = Plugin::new();
    fs::create_dir_all(p.installed().parent().unwrap()).unwrap();
    fs::write(p.installed(), "not a program").unwrap();
    let o = p.hook("save", "");
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), String::new()));
    assert_eq!(text(&o.stderr).lines().count(), 1);
}

#[test]
fn launcher_never_runs_itself_from_path() {
    let p = Plugin::new();
    let path = format!(
        "{}:{}",
        p.root().join("bin").display(),
        p.path("tools").display()
    );
    let o = p.run("compact-guardian", &["restore"], &[("PATH", &path)], "");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stderr).lines().count(), 1);
}

#[test]
fn launcher_from_a_checkout_finds_target_release_without_plugin_root() {
    // The README's debugging commands run `bin/compact-guardian` from a checkout by hand.
    let p = Plugin::new();
    fake(&p.path("target/release"), "echo");
    let o = by_hand(&p.root(), "save", &[("PATH", Path::new("/usr/bin:/bin"))]);
    assert_eq!(text(&o.stdout), "save\n", "{}", text(&o.stderr));
}

#[test]
fn launcher_says_when_provisioning_is_running() {
    let p = Plugin::new();
    fs::create_dir_all(p.data().join("provision.lock")).unwrap();
    fs::write(p.data().join("provision.lock/building"), "").unwrap();
    // The launcher waits with `sleep` (D024): counted through a wrapper, not timed, so the answer
    // does not depend on the machine's speed.
    let slept = p.path("slept.log");
    let sleep = p.path("tools/sleep");
    fs::remove_file(&sleep).unwrap();
    write_executable(
        &sleep,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec /bin/sleep \"$@\"\n",
            slept.display()
        )
        .as_bytes(),
    );
    let o = p.hook("save", "");
    assert!(
        !slept.exists(),
        "a compaction does not wait for a build: it slept {:?}",
        fs::read_to_string(&slept)
    );
    let err = text(&o.stderr);
    assert_eq!((o.status.code(), err.lines().count()), (Some(0), 1));
    assert_has_all(&err, &["still being downloaded or built"]);
    assert!(o.stdout.is_empty());
}

#[test]
fn provision_does_nothing_when_this_version_is_installed() {
    let p = Plugin::new();
    fs::create_dir_all(p.installed().parent().unwrap()).unwrap();
    copy_executable(
        Path::new(env!("CARGO_BIN_EXE_compact-guardian")),
        &p.installed(),
    );
    let o = p.run("compact-guardian-provision", &[], &[], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
    assert!(!p.data().join("provision.log").exists());
}

// ---- Verified download from a loopback server (no cargo on PATH).

fn system_message(out: &[u8]) -> String {
    let v: serde_json::Value =
        serde_json::from_slice(out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(out)));
    v["systemMessage"].as_str().unwrap().to_owned()
}

#[test]
fn fresh_install_without_cargo_downloads_verifies_and_protects_the_next_compaction() {
    let p = Plugin::new();
    let archive = dist(&p.path("dist"));
    assert!(
        archive.ends_with(format!(
            "v{}/compact-guardian-x86_64-unknown-linux-musl.tar.gz",
            version()
        )),
        "{archive:?}"
    );
    let server = Server::new(p.path("dist"));
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", server.url.as_str())];

    let start = Instant::now();
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    // Within the hook's 10 s (the client's limit), not a measure of this machine's speed.
    assert!(start.elapsed() < Duration::from_secs(9), "the hook waited");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stdout.is_empty(),
        "nothing for the user on success: {}",
        text(&o.stdout)
    );
    p.wait_for_provisioning();
    let log = p.log();
    assert_has_all(&log, &["SHA-256 verified"]);
    let mode = fs::metadata(p.installed()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755, "{log}");

    // The next compaction is protected, through the launcher, with nothing else installed.
    let t = p.transcript();
    let o = p.hook("save", &hook("s1", &t));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
    let o = p.hook("restore", &start_hook("s1", &t));
    assert!(
        text(&o.stdout).contains("Saved by the compact-guardian plugin"),
        "{o:?}"
    );
    // And the next start does nothing more.
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
}

#[test]
fn tampered_archive_is_refused_never_run_and_reported_once() {
    let p = Plugin::new();
    let archive = dist(&p.path("dist"));
    let mut bytes = fs::read(&archive).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x55;
    fs::write(&archive, bytes).unwrap();
    let server = Server::new(p.path("dist"));
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", server.url.as_str())];

    // The job ends within the start's short wait: the first start itself says it, once.
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    let first = system_message(&o.stdout);
    assert_has_all(&first, &["SHA-256", "rustup.rs"]);
    p.wait_for_provisioning();
    assert!(p.log().contains("SHA-256 mismatch"), "{}", p.log());
    assert!(!p.installed().exists(), "an unverified file was installed");
    let leftovers: Vec<_> = fs::read_dir(p.data())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("provision."))
        .filter(|n| n != "provision.log")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Without a binary, each compaction tells the user where they look (PostCompact), and the
    // next session start once more, with the fix; the start after that stays quiet.
    let t = p.transcript();
    let o = p.run(
        "compact-guardian",
        &["restore"],
        &env,
        &start_hook("s1", &t),
    );
    // Only a line for the user (Claude Code shows a SessionStart `systemMessage`): nothing of
    // it reaches the model.
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.get("hookSpecificOutput").is_none(), "{v}");
    assert_eq!(text(&o.stderr).lines().count(), 1);
    let msg = system_message(&o.stdout);
    assert_has_all(&msg, &["SHA-256", "NOT protected"]);
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert!(o.stdout.is_empty(), "told once per version and failure");
    assert!(
        !p.data().join("provision.lock").exists(),
        "not retried while nothing changed"
    );
    assert_eq!(
        p.log().matches("SHA-256 mismatch").count(),
        1,
        "a compaction within the hour does not download again: {}",
        p.log()
    );
    assert!(!p.installed().exists());
}

#[test]
fn unreachable_or_unreleased_url_falls_back_and_reports_once() {
    let dead = dead_url();
    let empty = tempfile::tempdir().unwrap();
    let server = Server::new(empty.path().to_path_buf()); // answers 404: version not released
    // Said in the user's words, with the one fix that applies (never "curl exit 7", and no
    // "allow downloads" for a version that was never published). Issue #39: a cause that may go
    // away by itself (the network, a release being published) is tried again at every start; a
    // refused URL only once the URL changed.
    for (case, url, reason, fix, retried) in [
        (
            "unreachable",
            dead.as_str(),
            "could not reach the download server",
            "Fix: check this machine's network connection, then start a new session",
            true,
        ),
        (
            "404",
            server.url.as_str(),
            "no prebuilt binary has been published",
            "Fix: install Rust from https://rustup.rs, then start a new session",
            true,
        ),
        (
            "insecure",
            "http://example.invalid",
            "release URL is refused",
            "Fix: correct or unset COMPACT_GUARDIAN_RELEASE_URL, then start a new session",
            false,
        ),
    ] {
        let p = Plugin::new();
        let env = [("COMPACT_GUARDIAN_RELEASE_URL", url)];
        // The first start tells the user at once (the job ends within its short wait).
        let o = p.run("compact-guardian-provision", &[], &env, "{}");
        let msg = system_message(&o.stdout);
        p.wait_for_provisioning();
        assert!(p.log().contains("cargo not found"), "{case}: {}", p.log());
        assert!(!p.installed().exists());
        assert!(msg.contains(reason) && msg.contains(fix), "{case}: {msg}");
        assert_eq!(msg.matches("Fix:").count(), 1, "{case}: one action: {msg}");
        assert!(msg.contains("NOT protected"), "{case}: {msg}");
        assert!(
            !msg.contains("curl") && !msg.contains("exit") && !msg.contains("rustup default"),
            "{case}: {msg}"
        );
        if case == "404" {
            assert!(!msg.contains("network"), "{case}: {msg}");
        }
        // Every compaction that goes unprotected says so where the user looks (the SessionStart
        // line), not only the first one, and not on stderr alone.
        for _ in 0..2 {
            let o = p.run("compact-guardian", &["restore"], &env, "{}");
            let msg = system_message(&o.stdout);
            assert!(
                msg.starts_with("compact-guardian: ") && msg.contains(reason),
                "{case}: {msg}"
            );
            assert!(msg.matches("NOT protected").count() == 1, "{case}: {msg}");
        }
        let o = p.run("compact-guardian-provision", &[], &env, "{}");
        assert!(o.stdout.is_empty(), "{case}: once");
        p.wait_for_provisioning();
        assert_eq!(
            p.log().matches("provisioning compact-guardian").count(),
            if retried { 2 } else { 1 },
            "{case}"
        );
        // A forced retry tries again.
        let o = p.run(
            "compact-guardian-provision",
            &[],
            &[env[0], ("COMPACT_GUARDIAN_RETRY", "1")],
            "{}",
        );
        assert!(o.stdout.is_empty());
        p.wait_for_provisioning();
        assert_eq!(
            p.log().matches("provisioning compact-guardian").count(),
            if retried { 3 } else { 2 },
            "{case}"
        );
    }
}

// ---- Windows checkouts (issue #21): CRLF line endings must never block a compaction.

/// The plugin as a CRLF checkout leaves it: every text file of the plugin with CR before each LF.
fn to_crlf(p: &Plugin) {
    for dir in ["bin", "lib", "hooks", ".claude-plugin"] {
        for e in fs::read_dir(p.root().join(dir)).unwrap() {
            crlf_file(&e.unwrap().path());
        }
    }
    crlf_file(&p.path("Cargo.toml"));
}

fn crlf_file(path: &Path) {
    let s = fs::read_to_string(path).unwrap();
    fs::write(path, s.replace('\n', "\r\n")).unwrap();
}

#[test]
fn crlf_checkout_hooks_exit_zero_on_every_input_and_still_protect() {
    let p = Plugin::new();
    to_crlf(&p);
    let session = p.transcript();
    let bin = env!("CARGO_BIN_EXE_compact-guardian");
    let good = hook("crlf", &session);
    for shell in ["sh", "bash"] {
        for input in ["", "{}", "not json", "{\"session_id\":", good.as_str()] {
            for sub in ["save", "restore"] {
                let mut c = Command::new(shell);
                c.arg(p.root().join("bin/compact-guardian")).arg(sub);
                let o = p
                    .as_client(&mut c)
                    .env("COMPACT_GUARDIAN_BIN", bin)
                    .stdin(Stdio::from(fs::File::open(write_input(&p, input)).unwrap()))
                    .output()
                    .unwrap();
                assert_eq!(o.status.code(), Some(0), "{shell} {sub} {input:?}: {o:?}");
                assert!(text(&o.stderr).lines().count() <= 1, "{o:?}");
            }
        }
    }
    // Through the CR-free copy the launcher still finds the binary: a save and its restore work.
    let saved = p.run(
        "compact-guardian",
        &["save"],
        &[("COMPACT_GUARDIAN_BIN", bin)],
        &good,
    );
    assert!(
        text(&saved.stdout).contains("compact-guardian"),
        "{saved:?}"
    );
    let restored = p.run(
        "compact-guardian",
        &["restore"],
        &[("COMPACT_GUARDIAN_BIN", bin)],
        &start_hook("crlf", &session),
    );
    assert!(
        text(&restored.stdout).contains("fix the failing test"),
        "{restored:?}"
    );
    // The startup hook too, and it reads the version without the CR.
    let o = p.run("compact-guardian-provision", &[], &[], "");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    p.wait_for_provisioning();
    assert!(
        p.log()
            .contains(&format!("compact-guardian {} ", version())),
        "{}",
        p.log()
    );
    assert!(!p.log().contains('\r'), "{}", p.log());
}

fn write_input(p: &Plugin, input: &str) -> PathBuf {
    let f = p.path("input.json");
    fs::write(&f, input).unwrap();
    f
}

#[test]
fn launcher_with_its_library_missing_exits_zero_under_dash() {
    // dash exits 2 when `.` cannot open a file, whatever `||` follows: the launcher must check first.
    let p = Plugin::new();
    fs::remove_file(p.root().join("lib/provision.sh")).unwrap();
    for script in ["compact-guardian", "compact-guardian-provision"] {
        let o = p.run(script, &["save"], &[], "{}");
        assert_eq!(o.status.code(), Some(0), "{script}: {o:?}");
        assert!(text(&o.stderr).lines().count() <= 1, "{o:?}");
    }
}

#[test]
fn gitattributes_keeps_lf_in_an_autocrlf_clone() {
    // Git for Windows clones with core.autocrlf=true; .gitattributes must win for every file the
    // plugin runs or reads.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let git = |dir: &Path, args: &[&str]| {
        let o = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {o:?}");
    };
    fs::create_dir_all(&src).unwrap();
    git(&src, &["init", "-q"]);
    let files = [
        ".gitattributes",
        "plugin/bin/compact-guardian",
        "plugin/bin/compact-guardian-provision",
        "plugin/lib/provision.sh",
        "plugin/lib/provision-job.sh",
        "plugin/hooks/hooks.json",
        "plugin/.claude-plugin/plugin.json",
        "Cargo.toml",
    ];
    for f in files {
        fs::create_dir_all(src.join(f).parent().unwrap()).unwrap();
        fs::copy(repo().join(f), src.join(f)).unwrap();
    }
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-q", "-m", "plugin"]);
    git(
        tmp.path(),
        &["-c", "core.autocrlf=true", "clone", "-q", "src", "clone"],
    );
    for f in files {
        let bytes = fs::read(tmp.path().join("clone").join(f)).unwrap();
        assert!(!bytes.contains(&b'\r'), "{f} was checked out with CR");
    }
}

#[test]
fn a_binary_on_path_without_cargo_is_enough_no_download_no_warning() {
    // Issue #22: cargo install / binstall users have compact-guardian on PATH and no cargo. The
    // launcher runs it; the startup hook must find it too, and neither download nor warn.
    let p = Plugin::new();
    let on_path = p.path("cargo-bin");
    fake(&on_path, "echo");
    let path = format!("{}:{}", on_path.display(), p.path("tools").display());
    // Even after an earlier failed attempt was recorded for this version.
    fs::create_dir_all(p.data()).unwrap();
    fs::write(
        p.data().join(format!("failed-{}", version())),
        "download\tnetwork error",
    )
    .unwrap();
    let o = p.run("compact-guardian-provision", &[], &[("PATH", &path)], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty(), "no systemMessage: {}", text(&o.stdout));
    assert!(!p.data().join("provision.lock").exists());
    assert!(
        !p.data().join("provision.log").exists(),
        "nothing provisioned"
    );
    let saved = p.run("compact-guardian", &["save"], &[("PATH", &path)], "");
    assert_eq!(
        text(&saved.stdout),
        "save\n",
        "the launcher runs the PATH binary"
    );
}

#[test]
fn installing_rust_after_a_failed_download_retries_at_the_next_start() {
    // Issue #22: the message says "install Rust and start a new session"; that must work now,
    // not a day later.
    let dead = dead_url();
    let p = Plugin::new();
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", dead.as_str())];
    p.run("compact-guardian-provision", &[], &env, "{}");
    p.wait_for_provisioning();
    assert!(p.log().contains("cargo not found"), "{}", p.log());
    // The user installs Rust (a stand-in cargo whose build leaves the test build where cargo
    // would): the next start builds and installs, with no variable set, and says nothing stale.
    let path = fake_rust(&p, "1.95.0", &builds(), false);
    let o = p.run(
        "compact-guardian-provision",
        &[],
        &[env[0], ("PATH", &path)],
        "{}",
    );
    p.wait_for_provisioning();
    assert_eq!(
        p.log().matches("provisioning compact-guardian").count(),
        2,
        "retried at once: {}",
        p.log()
    );
    assert!(p.log().contains("building compact-guardian"), "{}", p.log());
    assert!(p.installed().is_file(), "{}", p.log());
    // Built within the start's short wait or not, nothing stale is said.
    let said = text(&o.stdout);
    assert!(!said.contains("could not reach"), "stale warning: {said}");
}

#[test]
fn an_unprotected_compaction_is_told_where_the_user_looks_each_time() {
    // Issue #22: the first compaction after an in-session install finds no binary. One hook says
    // so as a systemMessage, at every such compaction, and the others stay silent on stdout
    // (their output goes to the summarizer and the model). D027: in Claude Code that hook is
    // SessionStart (`restore`), whose line is shown after manual and automatic compactions
    // alike; in Codex it is PostCompact (`audit`).
    let p = Plugin::new();
    for _ in 0..2 {
        let o = p.hook("restore", "{}");
        assert_eq!(o.status.code(), Some(0));
        let msg = system_message(&o.stdout);
        assert_has_all(&msg, &["NOT protected"]);
    }
    for hook in ["save", "audit", "correct"] {
        let o = p.hook(hook, "{}");
        assert!(o.stdout.is_empty(), "{hook}: {}", text(&o.stdout));
    }
    fs::create_dir_all(p.data().join("provision.lock")).unwrap();
    let msg = system_message(&p.hook("restore", "{}").stdout);
    assert_has_all(&msg, &["still being downloaded or built"]);
    // Run by Codex (the plugin under its home): the PostCompact hook tells, restore stays quiet.
    let codex = [("CODEX_HOME", p.dir().to_str().unwrap())];
    let msg = system_message(&p.run("compact-guardian", &["audit"], &codex, "{}").stdout);
    assert_has_all(&msg, &["NOT protected"]);
    let o = p.run("compact-guardian", &["restore"], &codex, "{}");
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

#[test]
fn a_compaction_no_binary_ran_for_is_recorded_and_status_shows_it() {
    // Issue #30 point 3: no binary ran, so nothing recorded the one failure `status` exists to
    // show. The launcher notes it in the snapshot folder; `status` lists it and exits 1.
    let p = Plugin::new();
    for _ in 0..25 {
        assert_eq!(p.hook("save", "{}").status.code(), Some(0));
    }
    let log = fs::read_to_string(p.path("store/compact-guardian-unprotected.log")).unwrap();
    assert_eq!(log.lines().count(), 20, "kept bounded: {log}");
    assert!(
        log.lines()
            .all(|l| l.contains("could not reach the download server")),
        "{log}"
    );
    let store = p.path("store");
    let status = Cmd::new(&["status"])
        .env("COMPACT_GUARDIAN_DIR", store.to_str().unwrap())
        .run();
    assert_eq!(status.code, Some(1), "{}", status.stdout);
    assert_has_all(
        &status.stdout,
        &[
            "Compactions NOT protected because no binary ran",
            "could not reach the download server",
        ],
    );
}

#[test]
fn a_command_run_by_hand_without_a_binary_says_why_and_fails() {
    // Issue #30 point 5: `bin/compact-guardian preview FILE` with no binary exited 0, silently
    // to the eye. A person gets the reason and exit 1; hooks still exit 0.
    let p = Plugin::new();
    for args in [&["preview", "t.jsonl"][..], &["status"], &["--version"]] {
        let o = p.run("compact-guardian", args, &[], "");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(text(&o.stderr).contains("no native binary"), "{args:?}");
    }
    assert!(!p.path("store/compact-guardian-unprotected.log").exists());
}

// ---- At the compaction itself (issue #22): no startup hook has run since the install.

#[test]
fn first_compaction_before_any_startup_hook_downloads_now_and_is_protected() {
    // `/plugin install` inside a running session: no startup hook has run, no binary, no record.
    // The compaction fetches the verified release itself, within the hook's time, and is saved.
    let p = Plugin::new();
    dist(&p.path("dist"));
    let server = Server::new(p.path("dist"));
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", server.url.as_str())];
    let t = p.transcript();

    let start = Instant::now();
    let o = p.run("compact-guardian", &["save"], &env, &hook("s1", &t));
    assert!(
        start.elapsed() < Duration::from_secs(9),
        "within the hook's 10 s"
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
    assert!(p.log().contains("SHA-256 verified"), "{}", p.log());
    assert!(p.installed().is_file());
    assert!(!p.data().join("provision.lock").exists());
    let o = p.run(
        "compact-guardian",
        &["restore"],
        &env,
        &start_hook("s1", &t),
    );
    assert!(
        text(&o.stdout).contains("Saved by the compact-guardian plugin"),
        "{o:?}"
    );
    let o = p.run("compact-guardian", &["audit"], &env, "{}");
    assert!(
        !text(&o.stdout).contains("NOT protected"),
        "{}",
        text(&o.stdout)
    );
    // The next session start finds it installed: nothing more to do.
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert!(o.stdout.is_empty() && !p.data().join("provision.lock").exists());
    assert_eq!(p.log().matches("downloading").count(), 1, "{}", p.log());
}

#[test]
fn a_compaction_does_not_wait_on_a_failed_download_twice_within_the_hour() {
    let p = Plugin::new();
    let t = p.transcript();
    for _ in 0..3 {
        let start = Instant::now();
        let o = p.hook("save", &hook("s1", &t));
        assert!(
            start.elapsed() < Duration::from_secs(9),
            "within the hook's 10 s"
        );
        assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), String::new()));
        assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    }
    assert_eq!(p.log().matches("downloading").count(), 1, "{}", p.log());
    let msg = system_message(&p.hook("restore", "{}").stdout);
    assert_has_all(
        &msg,
        &["could not reach the download server", "NOT protected"],
    );
    // An hour later, the next compaction tries again.
    let failed = p.data().join(format!("failed-{}", version()));
    let old = std::time::SystemTime::now() - Duration::from_secs(3700);
    fs::File::options()
        .write(true)
        .open(&failed)
        .unwrap()
        .set_modified(old)
        .unwrap();
    p.hook("save", &hook("s1", &t));
    assert_eq!(p.log().matches("downloading").count(), 2, "{}", p.log());
}

#[test]
fn a_compaction_during_the_startup_download_waits_for_it_briefly() {
    // The first session's download is still running when the first compaction comes: wait a
    // few seconds for it, then run what it installed.
    let p = Plugin::new();
    let lock = p.data().join("provision.lock");
    fs::create_dir_all(&lock).unwrap();
    let bin_dir = p.installed().parent().unwrap().to_path_buf();
    let finisher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1200));
        fake(&bin_dir, "echo");
        fs::remove_dir(&lock).unwrap();
    });
    let o = p.hook("save", "");
    finisher.join().unwrap();
    assert_eq!(text(&o.stdout), "save\n", "{}", text(&o.stderr));
    assert!(p.log().is_empty(), "no second download: {}", p.log());
}

#[test]
fn a_failed_download_at_a_compaction_starts_the_build_when_cargo_exists() {
    let p = Plugin::new();
    let path = with_failing_cargo(&p);
    let o = p.run("compact-guardian", &["save"], &[("PATH", &path)], "");
    assert_eq!(o.status.code(), Some(0));
    p.wait_for_provisioning();
    let log = p.log();
    assert_has_all(&log, &["building compact-guardian"]);
    assert_eq!(log.matches("downloading").count(), 2, "{log}");
    // The build failed: that is what the user is told, not the download.
    let msg = system_message(
        &p.run("compact-guardian", &["restore"], &[("PATH", &path)], "{}")
            .stdout,
    );
    assert_has_all(&msg, &["building", "failed"]);
}

#[test]
fn a_source_build_keeps_its_cargo_caches_in_the_data_folder_unless_the_user_has_a_cargo_home() {
    // Issue #30 point 8: the build left 52 MB in ~/.cargo/registry of a user who had no ~/.cargo.
    let p = Plugin::new();
    let rust = p.path("rust-bin");
    fs::create_dir_all(&rust).unwrap();
    let seen = p.path("cargo-home-seen");
    write_executable(
        &rust.join("cargo"),
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && echo 'cargo 1.95.0' && exit 0\nprintf '%s' \"${{CARGO_HOME:-unset}}\" >'{}'\nexit 1\n",
            seen.display()
        )
        .as_bytes(),
    );
    let path = format!("{}:{}", rust.display(), p.path("tools").display());
    let build = || {
        let _ = fs::remove_file(&seen);
        p.run("compact-guardian", &["save"], &[("PATH", &path)], "");
        p.wait_for_provisioning();
        fs::read_to_string(&seen).unwrap_or_default()
    };
    assert_eq!(
        build(),
        p.data().join("cargo-home").display().to_string(),
        "no ~/.cargo: caches in the data folder"
    );
    fs::create_dir_all(p.path("home/.cargo")).unwrap();
    let _ = fs::remove_file(p.data().join("provision-failed"));
    for f in fs::read_dir(p.data()).unwrap().flatten() {
        if f.file_name().to_string_lossy().contains("fail") {
            let _ = fs::remove_file(f.path());
        }
    }
    assert_eq!(
        build(),
        "unset",
        "the user's own cargo home is theirs to use"
    );
}

#[test]
fn launcher_run_by_hand_from_an_installed_plugin_finds_its_data_folder() {
    // Issue #22: the README's debug commands run `bin/compact-guardian` from the installed plugin
    // folder, where CLAUDE_PLUGIN_DATA is unset. Claude Code's layout: the plugin in
    // <plugins>/cache/<marketplace>/<plugin>/<version>, its data in
    // <plugins>/data/<plugin>-<marketplace> (checked against the real CLI in the e2e suite).
    let p = Plugin::new();
    let plugins = p.path("home/.claude/plugins");
    let installed = plugins.join(format!("cache/my.market/compact-guardian/{}", version()));
    fs::create_dir_all(installed.parent().unwrap()).unwrap();
    fs::rename(p.root(), &installed).unwrap();
    let data = plugins.join("data/compact-guardian-my-market");
    fake(&data.join("bin").join(version()), "echo");
    let env = [("PATH", &*p.path("tools")), ("HOME", &*p.path("home"))];
    let o = by_hand(&installed, "status", &env);
    assert_eq!(text(&o.stdout), "status\n", "{}", text(&o.stderr));
}

/// The plugin as Codex installs it (`<home>/.codex/plugins/cache/<marketplace>/<plugin>/<version>`,
/// enabled in `config.toml`), with no binary: what a Codex user from the marketplace has before
/// Codex ran any of its hooks. Returns the installed copy.
fn installed_in_codex(p: &Plugin) -> PathBuf {
    let codex = p.path("home/.codex");
    let installed = codex.join(format!(
        "plugins/cache/compact-guardian/compact-guardian/{}",
        version()
    ));
    fs::create_dir_all(installed.parent().unwrap()).unwrap();
    fs::rename(p.root(), &installed).unwrap();
    fs::write(
        codex.join("config.toml"),
        "[plugins.\"compact-guardian@compact-guardian\"]\nenabled = true\n",
    )
    .unwrap();
    installed
}

/// `status` run by hand from the plugin `installed` (a person's shell: the system tools, the
/// plugin's home), its release at `url`.
fn status_by_hand(p: &Plugin, installed: &Path, url: &str) -> Output {
    let url = PathBuf::from(url);
    let env = [
        ("PATH", &*p.path("tools")),
        ("HOME", &*p.path("home")),
        ("COMPACT_GUARDIAN_RELEASE_URL", &*url),
    ];
    by_hand(installed, "status", &env)
}

/// Issue #55: for a Codex user from the marketplace the installed launcher is the only `status`
/// there is, and before Codex ran the startup hook (never trusted, or every hook changed by an
/// update) it said only "not installed yet (it is installed at the next session start)", false
/// while Codex refuses the hooks. It fetches the verified release now, as a compaction does, and
/// the binary's report says what is true.
#[test]
fn status_by_hand_without_a_binary_fetches_the_release_and_reports() {
    let p = Plugin::new();
    dist(&p.path("dist"));
    let server = Server::new(p.path("dist"));
    let installed = installed_in_codex(&p);
    let o = status_by_hand(&p, &installed, &server.url);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    for said in [
        format!("compact-guardian {}", version()),
        "Codex: installed (compact-guardian@compact-guardian)".to_owned(),
        "hooks with a trust record: 0 of 6: NOT trusted".to_owned(),
        "Trust all and continue".to_owned(),
    ] {
        assert!(out.contains(&said), "{said}:\n{out}");
    }
    assert!(
        p.path("home/.codex/plugins/data/compact-guardian-compact-guardian/bin")
            .join(version())
            .join("compact-guardian")
            .is_file(),
        "not installed where the hooks look"
    );
    assert!(!text(&o.stderr).contains("no native binary"), "{o:?}");
}

/// Issue #55: when no binary can be fetched either, the launcher's own line for a Codex user
/// says why, and that Codex runs the hook that installs it only while it trusts the hooks.
#[test]
fn status_by_hand_from_codexs_copy_without_any_binary_says_codex_must_trust_the_hooks() {
    let p = Plugin::new();
    let installed = installed_in_codex(&p);
    let o = status_by_hand(&p, &installed, &dead_url());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_has_all(
        &err,
        &[
            "no native binary",
            "run only while Codex trusts them",
            "choose \"Trust all and continue\"",
        ],
    );
    assert_lacks_all(&err, &["it is installed at the next session start"]);
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Issue #55: route 3 (`claude --plugin-dir plugin` in a built checkout) is not installed from a
/// marketplace, and `status` called it "not installed; left behind" while it was in use and its
/// last compaction protected. Claude Code names such a plugin `compact-guardian@inline`, its
/// data folder `compact-guardian-inline`, where the launcher remembers the root it ran from.
#[test]
fn status_tells_a_plugin_loaded_with_plugin_dir_from_one_left_behind() {
    let p = Plugin::new();
    let built = built_in_checkout(&p);
    let data = p.path("home/.claude/plugins/data/compact-guardian-inline");
    let t = p.transcript();
    let store = p.path("home/.claude/compact-guardian");
    let hook_env = [
        ("CLAUDE_PLUGIN_DATA", data.to_str().unwrap()),
        ("COMPACT_GUARDIAN_DIR", store.to_str().unwrap()),
    ];
    let o = p.run("compact-guardian", &["save"], &hook_env, &hook("s1", &t));
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let status = || {
        let o = Command::new(&built)
            .arg("status")
            .env_clear()
            .env("HOME", p.path("home"))
            .output()
            .unwrap();
        (o.status.code(), text(&o.stdout))
    };
    let (code, out) = status();
    assert_eq!(code, Some(0), "{out}");
    assert_has_all(
        &out,
        &[&format!(
            "Claude Code: loaded with --plugin-dir from {}",
            p.root().display()
        )],
    );
    assert_lacks_all(&out, &["left behind"]);
    // The checkout's plugin folder gone: what Claude Code kept of it is left behind.
    fs::rename(p.root(), p.path("moved")).unwrap();
    let (_, out) = status();
    assert_has_all(&out, &["Claude Code: not installed; left behind"]);
}

#[test]
fn hooks_are_shell_form_commands_bash_and_sh_can_run() {
    // D021: every hook is `"${CLAUDE_PLUGIN_ROOT}/bin/<launcher>" [subcommand]` in shell form: no
    // `"shell": "powershell"` (refused with an error at every event where there is no pwsh) and no
    // exec form (`args`: on Windows it needs an .exe at that path). Each subcommand is one the
    // binary fails open on, and each hook ends well within its timeout.
    let hooks: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo().join("plugin/hooks/hooks.json")).unwrap())
            .unwrap();
    let mut seen = Vec::new();
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for h in group["hooks"].as_array().unwrap() {
                let keys: Vec<&str> = h.as_object().unwrap().keys().map(|k| k.as_str()).collect();
                assert!(
                    !keys.contains(&"shell") && !keys.contains(&"args"),
                    "{event}: {h}"
                );
                let cmd = h["command"].as_str().unwrap();
                let rest = cmd
                    .strip_prefix("\"${CLAUDE_PLUGIN_ROOT}/bin/")
                    .unwrap_or_else(|| panic!("{event}: {cmd}"));
                let (script, arg) = rest.split_once('"').unwrap();
                assert!(repo().join("plugin/bin").join(script).is_file(), "{cmd}");
                let arg = arg.trim();
                assert!(
                    ["save", "restore", "audit", "correct", ""].contains(&arg),
                    "{event}: {cmd}"
                );
                assert!(h["timeout"].as_u64().unwrap() <= 10, "{event}");
                seen.push(format!("{event}:{arg}"));
            }
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "PostCompact:audit",
            "PostToolUse:correct",
            "PostToolUseFailure:correct",
            "PreCompact:save",
            "SessionStart:",
            "SessionStart:restore",
            "UserPromptSubmit:correct"
        ]
    );
}

/// A compaction with no binary, downloading from a server that connects and never answers: the
/// launcher, once its download job holds the provision lock (in a process group of its own when
/// `own_group`, as a client that ends the whole group would start it). The listener must live
/// as long as the test.
fn compaction_downloading_from_a_silent_server(
    p: &Plugin,
    own_group: bool,
) -> (std::process::Child, TcpListener) {
    use std::os::unix::process::CommandExt;
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let mut c = Command::new("sh");
    c.arg(p.root().join("bin/compact-guardian"))
        .arg("save")
        .env_clear()
        .env("PATH", p.path("tools"))
        .env("HOME", p.path("home"))
        .env("CLAUDE_PLUGIN_ROOT", p.root())
        .env("CLAUDE_PLUGIN_DATA", p.data())
        .env("COMPACT_GUARDIAN_RELEASE_URL", &url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if own_group {
        c.process_group(0);
    }
    let child = c.spawn().unwrap();
    let lock = p.data().join("provision.lock");
    let start = Instant::now();
    while !lock.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    (child, silent)
}

/// Waits for the provision lock to go, failing the test if it stays longer than `within`.
fn lock_released_within(lock: &Path, within: Duration) {
    let start = Instant::now();
    while lock.exists() {
        assert!(start.elapsed() < within, "the lock stayed behind");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_compaction_download_stopped_by_the_hook_time_limit_lets_go_of_its_lock() {
    // Claude Code ends a hook at its timeout; a lock left behind would make every compaction of
    // the next hour wait on a download nobody runs.
    let p = Plugin::new();
    let (mut child, _silent) = compaction_downloading_from_a_silent_server(&p, true);
    let lock = p.data().join("provision.lock");
    let killed = Command::new("kill")
        .args(["-TERM", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait().unwrap();
    lock_released_within(&lock, Duration::from_secs(2));
}

// ---- Issue #29: the compaction-time download holds whatever the release server sends.

/// Replaces the release archive with one holding what `stage` puts in a folder, and a matching
/// `.sha256`: a hostile or broken release server can checksum anything it serves.
fn hostile_release(p: &Plugin, stage: impl FnOnce(&Path)) {
    let archive = dist(&p.path("dist"));
    let dir = p.path("stage");
    fs::create_dir_all(&dir).unwrap();
    stage(&dir);
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let ok = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(&dir)
        .args(&names)
        .status()
        .unwrap();
    assert!(ok.success());
    let sum = Command::new("sha256sum").arg(&archive).output().unwrap();
    let sum = text(&sum.stdout);
    let name = archive.file_name().unwrap().to_string_lossy().into_owned();
    let line = format!("{}  {name}\n", sum.split(' ').next().unwrap());
    fs::write(archive.with_file_name(format!("{name}.sha256")), line).unwrap();
}

/// The first compaction after an install, against the release at `url`: the launcher must end
/// in time with exit 0, print no hook decision, and install nothing it should not.
fn first_compaction(p: &Plugin, url: &str) -> (Output, Duration) {
    let t = p.transcript();
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", url)];
    let start = Instant::now();
    let o = p.run("compact-guardian", &["save"], &env, &hook("s1", &t));
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        took < Duration::from_secs(9),
        "past the hook's 10 s: {took:?}"
    );
    assert!(!text(&o.stdout).contains("decision"), "{o:?}");
    assert!(
        !p.data().join("provision.lock").exists(),
        "lock left behind"
    );
    (o, took)
}

#[test]
fn a_released_script_is_never_installed_or_run_as_the_hook() {
    // Case 1: a "binary" that is a shell script printing a block decision and exiting 2 passed
    // the version check and blocked the compaction.
    let p = Plugin::new();
    hostile_release(&p, |dir| {
        let f = dir.join("compact-guardian");
        fs::write(&f, format!("#!/bin/sh\necho 'compact-guardian {}'\necho '{{\"decision\":\"block\"}}'\nexit 2\n", version())).unwrap();
        fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).unwrap();
    });
    let server = Server::new(p.path("dist"));
    first_compaction(&p, &server.url);
    assert!(!p.installed().exists(), "a script was installed");
    assert!(p.log().contains("holds no x86_64"), "{}", p.log());
    let o = p.run(
        "compact-guardian",
        &["audit"],
        &[("COMPACT_GUARDIAN_RELEASE_URL", &server.url)],
        "{}",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!text(&o.stdout).contains("decision"));
}

#[test]
fn a_released_link_to_a_local_file_is_never_installed() {
    // Case 3: an archive whose compact-guardian is a symlink to a file on this machine: the
    // checksum covers the archive, not the link's target, which was run and installed.
    let p = Plugin::new();
    let real = PathBuf::from(env!("CARGO_BIN_EXE_compact-guardian"));
    hostile_release(&p, |dir| {
        std::os::unix::fs::symlink(&real, dir.join("compact-guardian")).unwrap();
    });
    let server = Server::new(p.path("dist"));
    first_compaction(&p, &server.url);
    assert!(!p.installed().exists(), "a link's target was installed");
    assert!(
        p.log().contains("no binary as a regular file"),
        "{}",
        p.log()
    );
}

#[test]
fn a_binary_that_hangs_or_an_archive_that_explodes_cannot_hold_the_hook() {
    // Case 2: a native binary whose --version never returns kept the hook past Claude Code's
    // 10 s; an archive unpacking to gigabytes took 30 s.
    let p = Plugin::new();
    hostile_release(&p, |dir| {
        let c = dir.join("hang.c");
        fs::write(
            &c,
            "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n",
        )
        .unwrap();
        let ok = Command::new("cc")
            .arg("-o")
            .arg(dir.join("compact-guardian"))
            .arg(&c)
            .status();
        assert!(
            ok.is_ok_and(|s| s.success()),
            "a C compiler (cargo links with it)"
        );
        fs::remove_file(c).unwrap();
    });
    let server = Server::new(p.path("dist"));
    let (_, took) = first_compaction(&p, &server.url);
    assert!(!p.installed().exists());
    assert!(p.log().contains("did not answer within 2 s"), "{}", p.log());
    // It gave up on the binary after its 2 s (the log says so), well within the hook's 10 s.
    assert!(took < Duration::from_secs(9), "{took:?}");

    let p = Plugin::new();
    hostile_release(&p, |dir| {
        let f = fs::File::create(dir.join("compact-guardian")).unwrap();
        f.set_len(200 * 1024 * 1024).unwrap(); // 200 MiB of zeros: a 200 KB archive
    });
    let server = Server::new(p.path("dist"));
    let (_, took) = first_compaction(&p, &server.url);
    assert!(!p.installed().exists());
    assert!(p.log().contains("over 64 MiB"), "{}", p.log());
    // Refused by its size, not unpacked (that took 30 s): within the hook's 10 s.
    assert!(took < Duration::from_secs(9), "{took:?}");
}

/// A server that answers every request with an endless body (chunked, no length), for 20 s.
fn endless_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let Ok((mut s, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            std::thread::spawn(move || {
                let _ = s.set_nonblocking(false);
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                let chunk = format!("10000\r\n{}\r\n", "x".repeat(0x10000));
                while Instant::now() < until && s.write_all(chunk.as_bytes()).is_ok() {}
            });
        }
    });
    url
}

#[test]
fn an_endless_download_stops_at_its_size_cap_and_is_named_for_what_it_was() {
    // Case 5: an endless body put 1.3 GB in the data folder, and it was reported as "could not
    // reach the download server".
    let p = Plugin::new();
    let url = endless_server();
    first_compaction(&p, &url);
    assert!(!p.installed().exists());
    assert!(p.log().contains("larger than 64 MB"), "{}", p.log());
    let biggest = fs::read_dir(p.data())
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .max()
        .unwrap_or(0);
    assert!(
        biggest < 1024 * 1024,
        "{biggest} bytes left in the data folder"
    );
    let msg = system_message(
        &p.run(
            "compact-guardian",
            &["restore"],
            &[("COMPACT_GUARDIAN_RELEASE_URL", &url)],
            "{}",
        )
        .stdout,
    );
    assert_has_all(&msg, &["not a release archive"]);
    assert_lacks_all(&msg, &["could not reach"]);
}

#[test]
fn the_download_job_lets_go_of_its_lock_when_its_hook_is_killed_alone() {
    // Case 2: Claude Code ends the hook process; the job it started survived and held the
    // provision lock, so the next compaction waited and went unprotected.
    let p = Plugin::new();
    let (mut child, _silent) = compaction_downloading_from_a_silent_server(&p, false);
    let lock = p.data().join("provision.lock");
    child.kill().unwrap(); // SIGKILL to the launcher only: nothing can trap it
    child.wait().unwrap();
    lock_released_within(&lock, Duration::from_millis(2_500));
}

#[test]
fn folders_the_binary_lives_in_are_private_whatever_the_umask() {
    // Case 4: with umask 000 the data folder, bin/ and bin/<version>/ were created 0777: another
    // local user could replace the installed binary.
    let p = Plugin::new();
    dist(&p.path("dist"));
    let server = Server::new(p.path("dist"));
    let t = p.transcript();
    let url = [("COMPACT_GUARDIAN_RELEASE_URL", server.url.as_str())];
    let r = p.launch("umask 000", "save", &url, &hook("s1", &t));
    assert!(r.stdout.contains("fix the failing test"), "{r:?}");
    for dir in [
        p.data(),
        p.data().join("bin"),
        p.installed().parent().unwrap().to_owned(),
    ] {
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
    let mode = fs::metadata(p.installed()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o022, 0, "{mode:o}");
}

// ---- Issue #31: the launcher's fast path.

/// The launcher's memory names this plugin's root and this version's binary in its data folder.
fn assert_remembers_its_binary(p: &Plugin) {
    assert_eq!(
        fs::read_to_string(remembered(p)).unwrap(),
        format!(
            "{}\nbin/{}/compact-guardian\n",
            p.root().display(),
            version()
        )
    );
}

#[test]
fn the_launcher_remembers_its_binary_in_the_data_folder_and_then_reaches_it_without_its_library() {
    let p = Plugin::new();
    let installed = install_test_binary(&p);
    let t = p.transcript();
    let before = tree(&p.root());
    let o = p.hook("save", &hook("s1", &t));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
    assert_remembers_its_binary(&p);
    assert!(tree(&p.root()) == before, "the plugin folder was written");
    // The next run goes straight to it: the provisioning library is not even read.
    fs::remove_file(p.root().join("lib/provision.sh")).unwrap();
    let o = p.hook("restore", &start_hook("s1", &t));
    assert!(
        text(&o.stdout).contains("Saved by the compact-guardian plugin"),
        "{o:?}"
    );
    // Gone (a cleaned data folder): the ordinary search takes over, still exit 0.
    fs::remove_file(&installed).unwrap();
    let o = p.hook("save", &hook("s2", &t));
    assert_eq!(o.status.code(), Some(0));
    assert!(
        text(&o.stderr).contains("lib/provision.sh missing"),
        "{o:?}"
    );
}

#[test]
fn the_fast_path_survives_a_crlf_checkout_and_yields_to_an_override() {
    let p = Plugin::new();
    install_test_binary(&p);
    let t = p.transcript();
    p.hook("save", &hook("s1", &t));
    assert!(remembered(&p).exists());
    to_crlf(&p);
    for sub in ["save", "restore", "audit"] {
        let o = p.run("compact-guardian", &[sub], &[], &hook("s1", &t));
        assert_eq!(o.status.code(), Some(0), "{sub}: {o:?}");
    }
    // An explicit override always wins over the remembered binary.
    let echo = fake(&p.path("echo-bin"), "echo");
    let o = p.run(
        "compact-guardian",
        &["save"],
        &[("COMPACT_GUARDIAN_BIN", echo.to_str().unwrap())],
        "{}",
    );
    assert_eq!(text(&o.stdout).trim(), "save", "{o:?}");
}

/// Replaces the plugin's version in its manifest and the crate's Cargo.toml (a checkout after
/// `git pull`).
fn set_version(p: &Plugin, v: &str) {
    for (file, line, new) in [
        (
            p.root().join(".claude-plugin/plugin.json"),
            format!("\"version\": \"{}\"", version()),
            format!("\"version\": \"{v}\""),
        ),
        (
            p.path("Cargo.toml"),
            format!("version = \"{}\"", version()),
            format!("version = \"{v}\""),
        ),
    ] {
        let text = fs::read_to_string(&file).unwrap();
        assert!(text.contains(&line), "{}", file.display());
        fs::write(&file, text.replacen(&line, &new, 1)).unwrap();
    }
}

#[test]
fn a_remembered_binary_is_not_run_once_the_plugins_version_changed() {
    // A checkout's plugin folder is not per version: after `git pull` brings a new version, the
    // remembered binary is the old version's. The entry is older than the manifest: not used.
    let p = Plugin::new();
    install_test_binary(&p);
    p.hook("audit", "{}");
    assert!(remembered(&p).exists());
    std::thread::sleep(Duration::from_millis(20));
    set_version(&p, "0.0.9");
    fake(&p.data().join("bin/0.0.9"), "echo");
    let o = p.hook("save", "{}");
    assert_eq!(text(&o.stdout), "save\n", "{o:?}");
}

#[test]
fn a_remembered_binary_of_another_plugin_root_is_not_run() {
    // Two checkouts loaded with --plugin-dir share one data folder: one's entry is not the
    // other's, even when it names a binary in that data folder.
    let p = Plugin::new();
    fake(&p.data().join("bin/0.0.1"), "echo");
    fs::write(
        remembered(&p),
        format!(
            "{}\nbin/0.0.1/compact-guardian\n",
            p.path("another-checkout").display()
        ),
    )
    .unwrap();
    let o = p.hook("audit", "");
    assert_eq!(text(&o.stdout), "", "another root's binary ran: {o:?}");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_later_cargo_build_in_a_checkout_wins_over_the_remembered_data_folder_binary() {
    // Issue #41 item 11: the first session ran before the checkout was built, so the data
    // folder's binary was remembered; `cargo build --release` then comes first again, as the
    // launcher's documented order says.
    let p = Plugin::new();
    install_test_binary(&p);
    p.hook("audit", "{}");
    assert!(
        fs::read_to_string(remembered(&p))
            .unwrap()
            .ends_with(&format!("\nbin/{}/compact-guardian\n", version()))
    );
    fake(&p.path("target/release"), "echo");
    let o = p.hook("save", "{}");
    assert_eq!(text(&o.stdout), "save\n", "{o:?}");
    assert!(
        fs::read_to_string(remembered(&p))
            .unwrap()
            .ends_with("\ntarget/release/compact-guardian\n")
    );
}

#[test]
fn a_planted_entry_naming_any_other_program_is_never_run() {
    // Issue #41 item 11: the entry is checked, not trusted: it can only name one of the two
    // places the search itself looks first (this root's target/release, the data folder's bin/).
    let p = Plugin::new();
    install_test_binary(&p);
    let elsewhere = fake(&p.path("elsewhere"), "echo");
    fake(&p.data().join("bin/x/y"), "echo");
    for planted in [
        elsewhere.display().to_string(),
        "bin/../../elsewhere/compact-guardian".to_owned(),
        "bin/x/y/compact-guardian".to_owned(),
        "../elsewhere/compact-guardian".to_owned(),
    ] {
        fs::write(
            remembered(&p),
            format!("{}\n{planted}\n", p.root().display()),
        )
        .unwrap();
        let o = p.run("compact-guardian", &["--version"], &[], "");
        assert_eq!(
            text(&o.stdout),
            format!("compact-guardian {}\n", version()),
            "{planted}: {o:?}"
        );
        assert_eq!(
            fs::read_to_string(remembered(&p)).unwrap(),
            format!(
                "{}\nbin/{}/compact-guardian\n",
                p.root().display(),
                version()
            ),
            "the search's own pick replaced {planted}"
        );
    }
}

/// Runs `script` of the plugin with its folder read-only as the client's cache may be: mounted
/// read-only in a mount namespace of its own when the tests run as root (whom file modes do not
/// stop), else with every write bit removed.
fn run_read_only(p: &Plugin, script: &str, args: &[&str], stdin: &str) -> Output {
    let root = p.root();
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| text(&o.stdout).trim() == "0");
    let mut c = if as_root {
        let mut c = Command::new("unshare");
        c.args([
            "-m",
            "sh",
            "-c",
            "mount --bind -o ro \"$0\" \"$0\" && exec sh \"$@\"",
        ])
        .arg(&root);
        c
    } else {
        Command::new("sh")
    };
    c.arg(root.join("bin").join(script)).args(args);
    p.as_client(&mut c).env(
        "PATH",
        format!("/usr/sbin:/sbin:{}", p.path("tools").display()),
    );
    output_with(c, stdin)
}

#[test]
fn hooks_never_write_into_a_read_only_plugin_folder_nor_say_so_on_stderr() {
    // Issue #39 (nothing is ever written inside the installed plugin folder) and #41 item 6
    // (every hook wrote a line to stderr when that folder was read-only: the failed redirection
    // was reported before its 2>/dev/null applied).
    let p = Plugin::new();
    install_test_binary(&p);
    let t = p.transcript();
    let before = tree(&p.root());
    let as_root = text(&Command::new("id").arg("-u").output().unwrap().stdout).trim() == "0";
    if !as_root {
        for f in before.keys().chain([&p.root()]) {
            let mode = fs::metadata(f).unwrap().permissions().mode();
            fs::set_permissions(f, fs::Permissions::from_mode(mode & !0o222)).unwrap();
        }
    }
    for round in 0..3 {
        for (script, args, input) in [
            ("compact-guardian-provision", &[][..], "{}".to_owned()),
            ("compact-guardian", &["save"], hook("s1", &t)),
            ("compact-guardian", &["restore"], start_hook("s1", &t)),
            (
                "compact-guardian",
                &["audit"],
                post_compact("s1", &t, "manual", "All done."),
            ),
            (
                "compact-guardian",
                &["correct"],
                r#"{"session_id":"s1","hook_event_name":"PostToolUse"}"#.to_owned(),
            ),
        ] {
            let o = run_read_only(&p, script, args, &input);
            assert_eq!(o.status.code(), Some(0), "{round} {script} {args:?}: {o:?}");
            assert_eq!(text(&o.stderr), "", "{round} {script} {args:?}");
        }
    }
    if !as_root {
        for f in before.keys().chain([&p.root()]) {
            let mode = fs::metadata(f).unwrap().permissions().mode();
            fs::set_permissions(f, fs::Permissions::from_mode(mode | 0o200)).unwrap();
        }
    }
    assert!(tree(&p.root()) == before, "the plugin folder changed");
    assert!(
        remembered(&p).exists(),
        "the fast path is remembered in the data folder"
    );
}

#[test]
fn a_data_folder_that_cannot_be_written_costs_the_fast_path_and_nothing_else() {
    // Best effort and silent: a data folder path that is a file (or is read-only) leaves the
    // launcher on its search, with the binary found, the hook's output whole and no stderr.
    let p = Plugin::new();
    built_in_checkout(&p);
    fs::write(p.data(), "not a folder").unwrap();
    let t = p.transcript();
    for _ in 0..2 {
        let o = p.hook("save", &hook("s1", &t));
        assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
        assert_eq!((o.status.code(), text(&o.stderr)), (Some(0), String::new()));
    }
}

#[test]
fn parallel_first_hooks_leave_one_whole_entry() {
    // Matching hooks run in parallel: each writes the entry to its own file and renames it.
    let p = Plugin::new();
    install_test_binary(&p);
    let children: Vec<_> = (0..12)
        .map(|_| {
            Command::new("sh")
                .arg(p.root().join("bin/compact-guardian"))
                .arg("--version")
                .env_clear()
                .env("PATH", p.path("tools"))
                .env("CLAUDE_PLUGIN_ROOT", p.root())
                .env("CLAUDE_PLUGIN_DATA", p.data())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(
            (text(&o.stdout), text(&o.stderr)),
            (format!("compact-guardian {}\n", version()), String::new())
        );
    }
    assert_remembers_its_binary(&p);
    let left: Vec<_> = fs::read_dir(p.data())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("launcher-found."))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

// ---- Issue #39: a failed first build or a missing toolchain says what happened and the one
// thing to do, and the next session after the fix tries again without being asked.

/// A Rust toolchain as the startup hook meets it, in `<tmp>/rust-bin`: a `cargo` whose
/// `--version` prints `version` (or, with `version` empty, rustup's answer when no toolchain is
/// set, exit 1) and whose `build` runs `build` (sh), a `rustc` printing `rustc <version>`, and
/// with `rustup`, a `rustup`. Returns a PATH with it first.
fn fake_rust(p: &Plugin, version: &str, build: &str, rustup: bool) -> String {
    let dir = p.path("rust-bin");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let answer = if version.is_empty() {
        "echo \"error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured.\" >&2; echo \"help: run 'rustup default stable' to download the latest stable release of Rust and set it as your default toolchain.\" >&2; exit 1".to_owned()
    } else {
        format!("echo 'cargo {version} (0000000 2026-01-01)'; exit 0")
    };
    let script = |name: &str, body: &str| {
        write_executable(&dir.join(name), format!("#!/bin/sh\n{body}\n").as_bytes());
    };
    script(
        "cargo",
        &format!("case $1 in --version) {answer} ;; build) {build}; exit $? ;; esac\nexit 1"),
    );
    script(
        "rustc",
        &format!("echo 'rustc {version} (0000000 2026-01-01)'"),
    );
    if rustup {
        script("rustup", "exit 0");
    }
    format!("{}:{}", dir.display(), p.path("tools").display())
}

/// A `build` for [`fake_rust`] that succeeds: the test build, where cargo would leave it.
fn builds() -> String {
    format!(
        "mkdir -p \"$CARGO_TARGET_DIR/release\" && cp '{}' \"$CARGO_TARGET_DIR/release/compact-guardian\"",
        env!("CARGO_BIN_EXE_compact-guardian")
    )
}

/// How many provisioning attempts the log shows.
fn attempts(p: &Plugin) -> usize {
    p.log().matches("provisioning compact-guardian").count()
}

/// Runs the startup hook and waits for its job: the `systemMessage` it printed, if any.
fn start(p: &Plugin, env: &[(&str, impl AsRef<str>)]) -> Option<String> {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_ref())).collect();
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert_eq!((o.status.code(), text(&o.stderr)), (Some(0), String::new()));
    p.wait_for_provisioning();
    (!o.stdout.is_empty()).then(|| system_message(&o.stdout))
}

/// The startup hook's environment offline (its release URL answers nothing) with
/// [`fake_rust`]'s toolchain first on PATH.
type Offline = [(&'static str, String); 2];

/// A plugin whose startup hook starts offline with [`fake_rust`]'s toolchain (its arguments):
/// the plugin, what the first start said (the test fails if nothing), and that environment.
fn first_start(version: &str, build: &str, rustup: bool) -> (Plugin, String, Offline) {
    let p = Plugin::new();
    let path = fake_rust(&p, version, build, rustup);
    let env = [("COMPACT_GUARDIAN_RELEASE_URL", dead_url()), ("PATH", path)];
    let msg = start(&p, &env).expect("the first start says what happened");
    (p, msg, env)
}

#[test]
fn an_installed_plugin_builds_from_its_marketplace_clone_else_says_to_cargo_install() {
    // D076: the installed plugin is the folder `plugin/` alone, without the crate. The startup
    // hook builds from the client's clone of the marketplace when it is at this version (Claude
    // Code's <plugins>/marketplaces/<marketplace>); with none, it says how to get the binary.
    let p = Plugin::new();
    let plugins = p.path("home/.claude/plugins");
    let installed = plugins.join(format!("cache/m/compact-guardian/{}", version()));
    fs::create_dir_all(&installed).unwrap();
    let o = Command::new("cp")
        .arg("-R")
        .arg(format!("{}/.", p.root().display()))
        .arg(&installed)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let args = p.path("build-args");
    let build = format!("echo \"$@\" >'{}'; {}", args.display(), builds());
    let path = fake_rust(&p, "1.95.0", &build, false);
    let url = dead_url();
    let env = [
        ("CLAUDE_PLUGIN_ROOT", installed.to_str().unwrap()),
        ("COMPACT_GUARDIAN_RELEASE_URL", url.as_str()),
        ("PATH", &path),
    ];
    let msg = start(&p, &env).expect("said at the first start");
    assert_has_all(
        &msg,
        &[
            "no source of v",
            "Fix: run 'cargo install --locked --git https://github.com/compact-guardian/compact-guardian --tag v",
        ],
    );
    assert!(!args.exists(), "nothing to build from, nothing built");
    // The marketplace's clone at this version: the next start builds from it.
    let clone = plugins.join("marketplaces/m");
    fs::create_dir_all(&clone).unwrap();
    fs::copy(repo().join("Cargo.toml"), clone.join("Cargo.toml")).unwrap();
    start(&p, &env);
    let built_with = fs::read_to_string(&args).unwrap_or_default();
    assert!(
        built_with.contains(&format!("--manifest-path {}/Cargo.toml", clone.display())),
        "{built_with}\n{}",
        p.log()
    );
    assert!(p.installed().is_file(), "{}", p.log());
}

#[test]
fn a_rustup_without_a_toolchain_is_told_to_set_one_and_the_next_start_builds() {
    // Said at the first start itself (the job ends within the start's short wait).
    let (p, msg, env) = first_start("", "exit 1", true);
    assert_has_all(
        &msg,
        &[
            "rustup is installed but has no Rust toolchain",
            "Fix: run 'rustup default stable', then start a new session.",
        ],
    );
    assert_eq!(msg.matches("Fix:").count(), 1, "one action: {msg}");
    assert_eq!(start(&p, &env), None, "said once");
    // The user runs `rustup default stable`: the next start builds, with no variable set, and
    // the next compaction is protected.
    let before = attempts(&p);
    let path = fake_rust(&p, "1.95.0", &builds(), true);
    assert_eq!(start(&p, &[env[0].clone(), ("PATH", path)]), None);
    assert_eq!(attempts(&p), before + 1, "{}", p.log());
    assert!(p.installed().is_file(), "{}", p.log());
    let t = p.transcript();
    let url = [(env[0].0, env[0].1.as_str())];
    let o = p.run("compact-guardian", &["save"], &url, &hook("s1", &t));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
}

#[test]
fn nobody_without_rustup_is_told_to_run_rustup() {
    // A distribution's Rust, older than the crate's rust-version, and no rustup.
    let (p, msg, env) = first_start("1.65.0", "echo BUILD-RAN >&2; exit 1", false);
    assert_has_all(
        &msg,
        &[
            "its Rust is 1.65, older than the 1.89 this version needs",
            "Fix: install a current Rust from https://rustup.rs",
        ],
    );
    assert!(
        !msg.contains("rustup update") && !msg.contains("rustup default"),
        "{msg}"
    );
    assert!(
        !p.log().contains("BUILD-RAN"),
        "a build bound to fail was not run: {}",
        p.log()
    );
    assert!(!p.log().contains("rustup default"), "{}", p.log());
    // With rustup there, the one fix is rustup's.
    let with_rustup = fake_rust(&p, "1.65.0", "exit 1", true);
    let o = p.run(
        "compact-guardian",
        &["restore"],
        &[(env[0].0, &env[0].1), ("PATH", &with_rustup)],
        "{}",
    );
    assert!(
        system_message(&o.stdout).contains("Fix: run 'rustup update'"),
        "{o:?}"
    );
    // No cargo at all: never a rustup command, only where to get Rust.
    let q = Plugin::new();
    let msg = start(&q, &env[..1]).unwrap();
    assert!(
        !msg.contains("rustup update") && !msg.contains("rustup default"),
        "{msg}"
    );
}

#[test]
fn an_updated_toolchain_retries_the_build_at_the_next_start() {
    let p = Plugin::new();
    let url = dead_url();
    let run = |path: &str| {
        start(
            &p,
            &[
                ("COMPACT_GUARDIAN_RELEASE_URL", url.as_str()),
                ("PATH", path),
            ],
        )
    };
    let old = fake_rust(&p, "1.70.0", "exit 1", true);
    let msg = run(&old).unwrap();
    assert_has_all(&msg, &["older than the 1.89", "rustup update"]);
    // Nothing changed: only the download is tried again (a release may have been published).
    let n = attempts(&p);
    assert_eq!(run(&old), None);
    assert_eq!(attempts(&p), n + 1);
    assert!(
        p.log().contains("not tried again with the same toolchain"),
        "{}",
        p.log()
    );
    assert!(
        !p.log().contains("building compact-guardian"),
        "{}",
        p.log()
    );
    // `rustup update`: the next start builds, and installs.
    let new = fake_rust(&p, "1.95.0", &builds(), true);
    assert_eq!(run(&new), None);
    assert!(p.log().contains("building compact-guardian"), "{}", p.log());
    assert!(p.installed().is_file(), "{}", p.log());
}

#[test]
fn a_build_that_could_not_reach_crates_io_is_retried_at_the_next_start() {
    let (p, msg, env) = first_start(
        "1.95.0",
        "echo 'error: failed to download from `https://static.crates.io/api/v1/crates/memchr/2.7.4/download`' >&2; exit 101",
        true,
    );
    assert_has_all(
        &msg,
        &[
            "needs its dependencies from crates.io, which could not be reached",
            "Fix: start a new session once the network is back",
        ],
    );
    let n = p.log().matches("building compact-guardian").count();
    assert_eq!(start(&p, &env), None, "said once");
    assert_eq!(
        p.log().matches("building compact-guardian").count(),
        n + 1,
        "built again: {}",
        p.log()
    );
}

#[test]
fn a_compile_error_is_reported_not_rebuilt_with_the_same_toolchain() {
    let (p, msg, env) = first_start(
        "1.95.0",
        "echo 'error[E0308]: mismatched types' >&2; exit 101",
        true,
    );
    assert_has_all(
        &msg,
        &[
            "building v",
            "error[E0308]: mismatched types",
            "Fix: please report it at",
        ],
    );
    assert_lacks_all(&msg, &["rustup"]);
    start(&p, &env);
    assert_eq!(
        p.log().matches("building compact-guardian").count(),
        1,
        "{}",
        p.log()
    );
}

#[test]
fn the_network_back_installs_at_the_next_start_without_any_variable() {
    let p = Plugin::new();
    let dead = dead_url();
    let msg = start(&p, &[("COMPACT_GUARDIAN_RELEASE_URL", dead.as_str())]).unwrap();
    assert_has_all(
        &msg,
        &[
            "could not reach the download server",
            "Fix: check this machine's network connection, then start a new session",
        ],
    );
    assert_lacks_all(&msg, &["rustup"]);
    // Still down: tried again, said no more.
    assert_eq!(
        start(&p, &[("COMPACT_GUARDIAN_RELEASE_URL", dead.as_str())]),
        None
    );
    assert_eq!(attempts(&p), 2);
    // Back (the same release URL now answers): installed at the next start, silently.
    dist(&p.path("dist"));
    let addr = dead.trim_start_matches("http://");
    let _server = Server::on(p.path("dist"), TcpListener::bind(addr).unwrap());
    let msg = start(&p, &[("COMPACT_GUARDIAN_RELEASE_URL", dead.as_str())]);
    assert_eq!(msg, None);
    assert!(p.installed().is_file(), "{}", p.log());
}

/// What the startup hook tells the user as it starts (before its job ends).
fn first_words(p: &Plugin, env: &[(&str, &str)]) -> String {
    system_message(&p.run("compact-guardian-provision", &[], env, "{}").stdout)
}

#[test]
fn the_first_start_says_it_is_downloading_or_building() {
    // A download that takes longer than the start's short wait: the user is told, once.
    let p = Plugin::new();
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let msg = first_words(&p, &[("COMPACT_GUARDIAN_RELEASE_URL", &url)]);
    assert!(
        msg.starts_with("compact-guardian: downloading its binary for v"),
        "{msg}"
    );
    assert_has_all(
        &msg,
        &["until it is installed, compactions are NOT protected"],
    );
    // Stop the job (its lock) rather than wait out its timeouts.
    drop(silent);
    p.wait_for_provisioning();
    // A build that takes longer: the user is told it is building.
    let q = Plugin::new();
    let path = fake_rust(&q, "1.95.0", "sleep 5; exit 1", true);
    let dead = dead_url();
    let msg = first_words(
        &q,
        &[("COMPACT_GUARDIAN_RELEASE_URL", &dead), ("PATH", &path)],
    );
    assert!(
        msg.starts_with("compact-guardian: building its binary for v"),
        "{msg}"
    );
    assert_has_all(&msg, &["with cargo in the background"]);
    q.wait_for_provisioning();
}
