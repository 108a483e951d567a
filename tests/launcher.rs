//! The POSIX sh launcher the hooks call and the startup hook that provisions the native binary:
//! search order, fail-open when nothing is installed, never running itself, and the verified
//! download served from a loopback HTTP server with no cargo on PATH (issue #11).

use crate::common::{Server, dist, hook, small_session, start_hook, tools_without_rust};
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

fn version() -> String {
    let toml = fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    toml.lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .unwrap()
        .trim_end_matches('"')
        .to_owned()
}

/// A plugin as a marketplace installs it: the repository's plugin files, no `target/`.
struct Plugin {
    tmp: tempfile::TempDir,
}

impl Plugin {
    fn new() -> Plugin {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("plugin");
        for dir in ["bin", "lib", "hooks", ".claude-plugin"] {
            fs::create_dir_all(root.join(dir)).unwrap();
            for e in fs::read_dir(repo().join(dir)).unwrap() {
                let e = e.unwrap();
                if e.file_name() == ".found" {
                    continue; // the launcher's memory in a developer's checkout: not the plugin's
                }
                fs::copy(e.path(), root.join(dir).join(e.file_name())).unwrap();
            }
        }
        fs::copy(repo().join("Cargo.toml"), root.join("Cargo.toml")).unwrap();
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        tools_without_rust(&tmp.path().join("tools"));
        Plugin { tmp }
    }
    fn root(&self) -> PathBuf {
        self.tmp.path().join("plugin")
    }
    fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }
    fn path(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }
    fn installed(&self) -> PathBuf {
        self.data()
            .join("bin")
            .join(version())
            .join("compact-guardian")
    }

    /// Runs a plugin script as Claude Code would: no terminal, a clean environment whose PATH has
    /// the system tools but no cargo (it lives in ~/.cargo/bin, and HOME is a fresh folder), and
    /// a release URL nothing answers at unless `env` names one (tests never reach the internet).
    fn run(&self, script: &str, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
        let mut c = Command::new("sh");
        c.arg(self.root().join("bin").join(script))
            .args(args)
            .env_clear()
            .env("PATH", self.path("tools"))
            .env("HOME", self.path("home"))
            .env("CLAUDE_PLUGIN_ROOT", self.root())
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .env("COMPACT_GUARDIAN_DIR", self.path("store"))
            .env("COMPACT_GUARDIAN_RELEASE_URL", dead_url())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        // A script that exits without reading its input (fail-open) closes the pipe first.
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        child.wait_with_output().unwrap()
    }

    /// Waits until the background provisioning job has let go of its lock.
    fn wait_for_provisioning(&self) {
        let lock = self.data().join("provision.lock");
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(50));
        while lock.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "provisioning still running; log:\n{}",
                fs::read_to_string(self.data().join("provision.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        fs::read_to_string(self.data().join("provision.log")).unwrap_or_default()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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
    fs::copy(src, &p).unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
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

/// A PATH with the system tools and a cargo whose build fails at once (enough to see whether a
/// build is started).
fn with_failing_cargo(p: &Plugin) -> String {
    let rust = p.path("rust-bin");
    fake(&rust, "false");
    fs::rename(rust.join("compact-guardian"), rust.join("cargo")).unwrap();
    format!("{}:{}", rust.display(), p.path("tools").display())
}

#[test]
fn launcher_search_order() {
    let p = Plugin::new();
    let explicit = fake(&p.path("explicit"), "echo");
    fake(&p.root().join("target/release"), "dirname");
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
    fs::remove_file(p.root().join("target/release/compact-guardian")).unwrap();
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
    assert!(
        err.contains("could not reach the download server") && err.contains("NOT protected"),
        "{err}"
    );
}

#[test]
fn launcher_ignores_another_versions_binary() {
    let p = Plugin::new();
    fake(&p.data().join("bin/0.0.1"), "echo");
    let o = p.run("compact-guardian", &["save"], &[], "");
    assert_eq!(text(&o.stdout), "", "an older version's binary is not run");
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
    let o = p.run("compact-guardian", &["save"], &[], "");
    assert_eq!(text(&o.stdout), "save\n");
}

#[test]
fn launcher_skips_a_non_executable_candidate() {
    let p = Plugin::new();
    fs::create_dir_all(p.installed().parent().unwrap()).unwrap();
    fs::write(p.installed(), "not a program").unwrap();
    let o = p.run("compact-guardian", &["save"], &[], "");
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
    fake(&p.root().join("target/release"), "echo");
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
    fs::write(
        &sleep,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec /bin/sleep \"$@\"\n",
            slept.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&sleep, fs::Permissions::from_mode(0o755)).unwrap();
    let o = p.run("compact-guardian", &["save"], &[], "");
    assert!(
        !slept.exists(),
        "a compaction does not wait for a build: it slept {:?}",
        fs::read_to_string(&slept)
    );
    let err = text(&o.stderr);
    assert_eq!((o.status.code(), err.lines().count()), (Some(0), 1));
    assert!(err.contains("still being downloaded or built"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn provision_does_nothing_when_this_version_is_installed() {
    let p = Plugin::new();
    fs::create_dir_all(p.installed().parent().unwrap()).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_compact-guardian"), p.installed()).unwrap();
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
    assert!(start.elapsed() < Duration::from_secs(5), "the hook waited");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stdout.is_empty(),
        "nothing for the user on success: {}",
        text(&o.stdout)
    );
    p.wait_for_provisioning();
    let log = p.log();
    assert!(log.contains("SHA-256 verified"), "{log}");
    let mode = fs::metadata(p.installed()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755, "{log}");

    // The next compaction is protected, through the launcher, with nothing else installed.
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
    let o = p.run("compact-guardian", &["save"], &[], &hook("s1", &t));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
    let o = p.run("compact-guardian", &["restore"], &[], &start_hook("s1", &t));
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

    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert!(o.stdout.is_empty());
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
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
    assert!(
        msg.contains("SHA-256") && msg.contains("NOT protected"),
        "{msg}"
    );
    let msg = system_message(&p.run("compact-guardian-provision", &[], &env, "{}").stdout);
    assert!(
        msg.contains("SHA-256") && msg.contains("rustup.rs"),
        "{msg}"
    );
    let o = p.run("compact-guardian-provision", &[], &env, "{}");
    assert!(o.stdout.is_empty(), "told once per version and failure");
    assert!(
        !p.data().join("provision.lock").exists(),
        "not retried on every start"
    );
    assert_eq!(
        p.log().matches("SHA-256 mismatch").count(),
        1,
        "a compaction within the hour does not download again: {}",
        p.log()
    );
    assert!(!p.installed().exists());
}

/// A loopback URL nothing listens on (bound, then closed again): connection refused.
fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

#[test]
fn unreachable_or_unreleased_url_falls_back_and_reports_once() {
    let dead = dead_url();
    let empty = tempfile::tempdir().unwrap();
    let server = Server::new(empty.path().to_path_buf()); // answers 404: version not released
    // Said in the user's words, with the one fix that applies (never "curl exit 7", and no
    // "allow downloads" for a version that was never published).
    for (case, url, reason) in [
        (
            "unreachable",
            dead.as_str(),
            "could not reach the download server",
        ),
        (
            "404",
            server.url.as_str(),
            "no prebuilt binary has been published",
        ),
        (
            "insecure",
            "http://example.invalid",
            "release URL is refused",
        ),
    ] {
        let p = Plugin::new();
        let env = [("COMPACT_GUARDIAN_RELEASE_URL", url)];
        let o = p.run("compact-guardian-provision", &[], &env, "{}");
        assert!(o.stdout.is_empty(), "{case}");
        p.wait_for_provisioning();
        assert!(p.log().contains("cargo not found"), "{case}: {}", p.log());
        assert!(!p.installed().exists());
        // The next session start tells the user, once, naming the fix.
        let o = p.run("compact-guardian-provision", &[], &env, "{}");
        let msg = system_message(&o.stdout);
        assert!(
            msg.contains(reason) && msg.contains("https://rustup.rs"),
            "{case}: {msg}"
        );
        assert!(msg.contains("NOT protected"), "{case}: {msg}");
        assert!(
            !msg.contains("curl") && !msg.contains("exit"),
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
        assert!(
            !p.data().join("provision.lock").exists(),
            "{case}: no retry"
        );
        // A forced retry (a day later) tries again.
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
            2,
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
    crlf_file(&p.root().join("Cargo.toml"));
}

fn crlf_file(path: &Path) {
    let s = fs::read_to_string(path).unwrap();
    fs::write(path, s.replace('\n', "\r\n")).unwrap();
}

#[test]
fn crlf_checkout_hooks_exit_zero_on_every_input_and_still_protect() {
    let p = Plugin::new();
    to_crlf(&p);
    let session = p.path("session.jsonl");
    fs::write(&session, small_session().join("\n") + "\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_compact-guardian");
    let good = hook("crlf", &session);
    for shell in ["sh", "bash"] {
        for input in ["", "{}", "not json", "{\"session_id\":", good.as_str()] {
            for sub in ["save", "restore"] {
                let o = Command::new(shell)
                    .arg(p.root().join("bin/compact-guardian"))
                    .arg(sub)
                    .env_clear()
                    .env("PATH", p.path("tools"))
                    .env("HOME", p.path("home"))
                    .env("CLAUDE_PLUGIN_ROOT", p.root())
                    .env("CLAUDE_PLUGIN_DATA", p.data())
                    .env("COMPACT_GUARDIAN_DIR", p.path("store"))
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
        "bin/compact-guardian",
        "bin/compact-guardian-provision",
        "lib/provision.sh",
        "lib/provision-job.sh",
        "hooks/hooks.json",
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
    // The user installs Rust (a stand-in cargo that fails fast is enough to see the retry).
    let path = with_failing_cargo(&p);
    let o = p.run(
        "compact-guardian-provision",
        &[],
        &[env[0], ("PATH", &path)],
        "{}",
    );
    assert!(o.stdout.is_empty(), "no stale warning: {}", text(&o.stdout));
    p.wait_for_provisioning();
    assert_eq!(
        p.log().matches("provisioning compact-guardian").count(),
        2,
        "retried at once: {}",
        p.log()
    );
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
        let o = p.run("compact-guardian", &["restore"], &[], "{}");
        assert_eq!(o.status.code(), Some(0));
        let msg = system_message(&o.stdout);
        assert!(msg.contains("NOT protected"), "{msg}");
    }
    for hook in ["save", "audit", "correct"] {
        let o = p.run("compact-guardian", &[hook], &[], "{}");
        assert!(o.stdout.is_empty(), "{hook}: {}", text(&o.stdout));
    }
    fs::create_dir_all(p.data().join("provision.lock")).unwrap();
    let msg = system_message(&p.run("compact-guardian", &["restore"], &[], "{}").stdout);
    assert!(msg.contains("still being downloaded or built"), "{msg}");
    // Run by Codex (the plugin under its home): the PostCompact hook tells, restore stays quiet.
    let codex = [("CODEX_HOME", p.tmp.path().to_str().unwrap())];
    let msg = system_message(&p.run("compact-guardian", &["audit"], &codex, "{}").stdout);
    assert!(msg.contains("NOT protected"), "{msg}");
    let o = p.run("compact-guardian", &["restore"], &codex, "{}");
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

#[test]
fn a_compaction_no_binary_ran_for_is_recorded_and_status_shows_it() {
    // Issue #30 point 3: no binary ran, so nothing recorded the one failure `status` exists to
    // show. The launcher notes it in the snapshot folder; `status` lists it and exits 1.
    let p = Plugin::new();
    for _ in 0..25 {
        let o = p.run("compact-guardian", &["save"], &[], "{}");
        assert_eq!(o.status.code(), Some(0));
    }
    let log = fs::read_to_string(p.path("store/compact-guardian-unprotected.log")).unwrap();
    assert_eq!(log.lines().count(), 20, "kept bounded: {log}");
    assert!(
        log.lines()
            .all(|l| l.contains("could not reach the download server")),
        "{log}"
    );
    let status = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
        .arg("status")
        .env("COMPACT_GUARDIAN_DIR", p.path("store"))
        .output()
        .unwrap();
    let shown = text(&status.stdout);
    assert_eq!(status.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("Compactions NOT protected because no binary ran")
            && shown.contains("could not reach the download server"),
        "{shown}"
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();

    let start = Instant::now();
    let o = p.run("compact-guardian", &["save"], &env, &hook("s1", &t));
    assert!(
        start.elapsed() < Duration::from_secs(8),
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
    for _ in 0..3 {
        let start = Instant::now();
        let o = p.run("compact-guardian", &["save"], &[], &hook("s1", &t));
        assert!(start.elapsed() < Duration::from_secs(8));
        assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), String::new()));
        assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    }
    assert_eq!(p.log().matches("downloading").count(), 1, "{}", p.log());
    let msg = system_message(&p.run("compact-guardian", &["restore"], &[], "{}").stdout);
    assert!(
        msg.contains("could not reach the download server") && msg.contains("NOT protected"),
        "{msg}"
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
    p.run("compact-guardian", &["save"], &[], &hook("s1", &t));
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
    let o = p.run("compact-guardian", &["save"], &[], "");
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
    assert!(log.contains("building compact-guardian"), "{log}");
    assert_eq!(log.matches("downloading").count(), 2, "{log}");
    // The build failed: that is what the user is told, not the download.
    let msg = system_message(
        &p.run("compact-guardian", &["restore"], &[("PATH", &path)], "{}")
            .stdout,
    );
    assert!(msg.contains("building") && msg.contains("failed"), "{msg}");
}

#[test]
fn a_source_build_keeps_its_cargo_caches_in_the_data_folder_unless_the_user_has_a_cargo_home() {
    // Issue #30 point 8: the build left 52 MB in ~/.cargo/registry of a user who had no ~/.cargo.
    let p = Plugin::new();
    let rust = p.path("rust-bin");
    fs::create_dir_all(&rust).unwrap();
    let seen = p.path("cargo-home-seen");
    fs::write(
        rust.join("cargo"),
        format!(
            "#!/bin/sh\nprintf '%s' \"${{CARGO_HOME:-unset}}\" >'{}'\nexit 1\n",
            seen.display()
        ),
    )
    .unwrap();
    fs::set_permissions(rust.join("cargo"), fs::Permissions::from_mode(0o755)).unwrap();
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

#[test]
fn hooks_are_shell_form_commands_bash_and_sh_can_run() {
    // D021: every hook is `"${CLAUDE_PLUGIN_ROOT}/bin/<launcher>" [subcommand]` in shell form: no
    // `"shell": "powershell"` (refused with an error at every event where there is no pwsh) and no
    // exec form (`args`: on Windows it needs an .exe at that path). Each subcommand is one the
    // binary fails open on, and each hook ends well within its timeout.
    let hooks: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo().join("hooks/hooks.json")).unwrap())
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
                assert!(repo().join("bin").join(script).is_file(), "{cmd}");
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
        assert!(start.elapsed() < Duration::from_secs(5), "never started");
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
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
    assert!(took < Duration::from_secs(6), "{took:?}");

    let p = Plugin::new();
    hostile_release(&p, |dir| {
        let f = fs::File::create(dir.join("compact-guardian")).unwrap();
        f.set_len(200 * 1024 * 1024).unwrap(); // 200 MiB of zeros: a 200 KB archive
    });
    let server = Server::new(p.path("dist"));
    let (_, took) = first_compaction(&p, &server.url);
    assert!(!p.installed().exists());
    assert!(p.log().contains("over 64 MiB"), "{}", p.log());
    assert!(took < Duration::from_secs(4), "{took:?}");
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
    assert!(msg.contains("not a release archive"), "{msg}");
    assert!(!msg.contains("could not reach"), "{msg}");
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
    let script = p.root().join("bin/compact-guardian");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("umask 000; exec sh \"$0\" save")
        .arg(&script)
        .env_clear()
        .env("PATH", p.path("tools"))
        .env("HOME", p.path("home"))
        .env("CLAUDE_PLUGIN_ROOT", p.root())
        .env("CLAUDE_PLUGIN_DATA", p.data())
        .env("COMPACT_GUARDIAN_DIR", p.path("store"))
        .env("COMPACT_GUARDIAN_RELEASE_URL", &server.url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(hook("s1", &t).as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
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

/// Installs the test build as this version's binary in the plugin's data folder.
fn install_test_binary(p: &Plugin) -> PathBuf {
    let installed = p.installed();
    fs::create_dir_all(installed.parent().unwrap()).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_compact-guardian"), &installed).unwrap();
    installed
}

#[test]
fn the_launcher_remembers_its_binary_and_then_reaches_it_without_its_library() {
    let p = Plugin::new();
    let installed = install_test_binary(&p);
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
    let o = p.run("compact-guardian", &["save"], &[], &hook("s1", &t));
    assert!(text(&o.stdout).contains("fix the failing test"), "{o:?}");
    let found = p.root().join("bin/.found");
    assert_eq!(
        fs::read_to_string(&found).unwrap().trim(),
        installed.to_str().unwrap()
    );
    // The next run goes straight to it: the provisioning library is not even read.
    fs::remove_file(p.root().join("lib/provision.sh")).unwrap();
    let o = p.run("compact-guardian", &["restore"], &[], &start_hook("s1", &t));
    assert!(
        text(&o.stdout).contains("Saved by the compact-guardian plugin"),
        "{o:?}"
    );
    // Gone (a cleaned data folder): the ordinary search takes over, still exit 0.
    fs::remove_file(&installed).unwrap();
    let o = p.run("compact-guardian", &["save"], &[], &hook("s2", &t));
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
    let t = p.path("t.jsonl");
    fs::write(&t, small_session().join("\n") + "\n").unwrap();
    p.run("compact-guardian", &["save"], &[], &hook("s1", &t));
    assert!(p.root().join("bin/.found").exists());
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

#[test]
fn a_remembered_binary_of_another_version_is_forgotten_at_session_start() {
    // A checkout's plugin folder is not per version: after a version change, bin/.found may name
    // the old version's binary. The startup hook forgets it; this version's own is kept.
    let p = Plugin::new();
    let old = p.data().join("bin/0.0.1/compact-guardian");
    fs::create_dir_all(old.parent().unwrap()).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_compact-guardian"), &old).unwrap();
    let found = p.root().join("bin/.found");
    fs::write(&found, format!("{}\n", old.display())).unwrap();
    p.run("compact-guardian-provision", &[], &[], "{}");
    p.wait_for_provisioning();
    assert!(
        !found.exists(),
        "the old version's binary is still remembered"
    );
    let installed = install_test_binary(&p);
    fs::write(&found, format!("{}\n", installed.display())).unwrap();
    p.run("compact-guardian-provision", &[], &[], "{}");
    assert!(found.exists(), "this version's binary was forgotten");
}
