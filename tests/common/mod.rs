//! Test harness: run the binary with stdin, an isolated HOME and snapshot folder, and a hang guard;
//! the transcripts and hook inputs the suites share ([`records`]), processes started through sh
//! or several at once ([`process`]), and the plugin's sh scripts run as the client runs them
//! ([`plugin`]).

#![allow(dead_code)] // each test module uses a different part of the harness

/// A test on the shared corpus of real transcripts, written once (as the real-CLI tests are,
/// `tests/e2e/macros.rs`): the `#[test]`, the ignore with what it needs when the build found no
/// corpus (`build.rs`'s `cg_no_corpus`), and `dir`, the corpus's folder ([`corpus`], which fails
/// the test when the corpus is gone since the build): `corpus_test!(name, |dir| { .. })`, or
/// `corpus_test!(name, || { .. })` for a body that finds what it reads itself.
macro_rules! corpus_test {
    ($name:ident, || $body:block) => {
        #[test]
        #[cfg_attr(
            cg_no_corpus,
            ignore = "needs the shared corpus of real transcripts: ../shared/transcripts, or COMPACT_GUARDIAN_CORPUS=<dir>"
        )]
        fn $name() $body
    };
    ($name:ident, |$dir:ident| $body:block) => {
        corpus_test!($name, || {
            let $dir = crate::common::corpus();
            $body
        });
    };
}

#[cfg(unix)]
pub mod plugin;
#[cfg(unix)]
pub mod process;
pub mod records;

#[cfg(unix)]
pub use plugin::*;
#[cfg(unix)]
pub use process::*;
pub use records::*;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a run may take before the harness calls it hung: far past anything a debug build
/// does on a slow, loaded machine with one core, so it only ever catches a hang.
pub const HANG: Duration = Duration::from_secs(120);

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_compact-guardian")
}

/// A finished run.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The `systemMessage` of a JSON hook output (see [`Run::unwrapped`]).
    pub user_line: Option<String>,
}

impl Run {
    /// A SessionStart hook's JSON output as what each reader gets: `stdout` becomes the
    /// `additionalContext` (the model's), `user_line` the `systemMessage` (the user's). Plain
    /// output is left as it is.
    pub fn unwrapped(mut self) -> Run {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(self.stdout.trim())
            && let Some(ctx) = v["hookSpecificOutput"]["additionalContext"].as_str()
        {
            self.user_line = v["systemMessage"].as_str().map(str::to_owned);
            self.stdout = ctx.to_owned();
        }
        self
    }

    /// The contract every hook run keeps: exit 0, no panic text, at most one stderr line.
    pub fn assert_fail_open(&self) -> &Self {
        assert_eq!(self.code, Some(0), "exit code; stderr: {}", self.stderr);
        assert!(
            !self.stderr.contains("panicked"),
            "panic leaked: {}",
            self.stderr
        );
        assert!(
            self.stderr.lines().count() <= 1,
            "more than one stderr line: {:?}",
            self.stderr
        );
        self
    }
}

/// An isolated environment: a temporary HOME, a snapshot folder and a place for transcripts.
/// Its hooks run unbounded (`COMPACT_GUARDIAN_TEST_UNBOUNDED`: no reading deadline, no
/// watchdog within the hour, D036), so what a test sees never depends on the machine's speed;
/// a test of the time bounds themselves runs its command [`Cmd::bounded`].
pub struct Sandbox {
    pub root: tempfile::TempDir,
    pub store: PathBuf,
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let root = tempfile::tempdir().unwrap();
        let store = root.path().join("store");
        Sandbox {
            env: vec![
                (
                    "HOME".into(),
                    root.path().join("home").display().to_string(),
                ),
                ("COMPACT_GUARDIAN_DIR".into(), store.display().to_string()),
                ("COMPACT_GUARDIAN_TEST_UNBOUNDED".into(), "1".into()),
            ],
            store,
            root,
        }
    }

    /// A new sandbox with `lines` as its transcript `t.jsonl`, and that transcript's path.
    pub fn with_transcript(lines: &[String]) -> (Sandbox, PathBuf) {
        let sb = Sandbox::new();
        let t = sb.transcript("t.jsonl", lines);
        (sb, t)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// Writes a transcript made of `lines` (each a JSON record) and returns its path.
    pub fn transcript(&self, name: &str, lines: &[String]) -> PathBuf {
        let p = self.path(name);
        let mut body = lines.join("\n");
        body.push('\n');
        std::fs::write(&p, body).unwrap();
        p
    }

    pub fn snapshot_path(&self, session: &str) -> PathBuf {
        self.store.join(compact_guardian::store::file_name(session))
    }

    /// A command with this sandbox's environment.
    pub fn cmd(&self, args: &[&str]) -> Cmd {
        let mut c = Cmd::new(args);
        c.env = self.env.clone();
        c
    }

    pub fn save(&self, input: &str) -> Run {
        self.cmd(&["save"]).stdin(input).run()
    }

    /// Runs `restore`; `stdout` is the context the model gets (Claude Code's JSON form
    /// unwrapped: its `additionalContext`), `user_line` the `systemMessage` shown to the user.
    pub fn restore(&self, input: &str) -> Run {
        self.cmd(&["restore"]).stdin(input).run().unwrapped()
    }

    /// Ages by `secs` seconds every file of the snapshot folder whose name holds `containing`.
    pub fn age(&self, containing: &str, secs: u64) {
        for e in std::fs::read_dir(&self.store).unwrap().flatten() {
            if e.file_name().to_string_lossy().contains(containing) {
                set_old(&e.path(), secs);
            }
        }
    }

    /// Runs `audit` (Claude Code's PostCompact, `trigger` `manual` or `auto`) on `summary`.
    pub fn audit(&self, session: &str, t: &Path, trigger: &str, summary: &str) -> Run {
        self.cmd(&["audit"])
            .stdin(records::post_compact(session, t, trigger, summary))
            .run()
    }

    /// Claude Code's hooks of one compaction before its PostCompact: `save`, then `restore`,
    /// each keeping the fail-open contract.
    pub fn save_and_restore(&self, session: &str, t: &Path) {
        self.save(&records::hook(session, t)).assert_fail_open();
        self.restore(&records::start_hook(session, t))
            .assert_fail_open();
    }

    /// The same, then the audit of `summary` (Claude Code's PostCompact, `trigger` `manual` or
    /// `auto`): its run, the fail-open contract kept.
    pub fn compact(&self, session: &str, t: &Path, trigger: &str, summary: &str) -> Run {
        self.save_and_restore(session, t);
        let audit = self.audit(session, t, trigger, summary);
        audit.assert_fail_open();
        audit
    }
}

/// A command to run with the binary.
pub struct Cmd {
    args: Vec<String>,
    stdin: Vec<u8>,
    pub env: Vec<(String, String)>,
    stdout: Option<Stdio>,
}

impl Cmd {
    pub fn new(args: &[&str]) -> Cmd {
        Cmd {
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: Vec::new(),
            env: Vec::new(),
            stdout: None,
        }
    }

    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Cmd {
        self.stdin = input.as_ref().to_vec();
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Cmd {
        self.env.retain(|(key, _)| key != k);
        self.env.push((k.into(), v.into()));
        self
    }

    /// The hook keeps its time budget and watchdog, as in a session: for the tests of those
    /// bounds (each with a budget whose outcome does not depend on the machine's speed).
    pub fn bounded(mut self) -> Cmd {
        self.env
            .retain(|(key, _)| key != "COMPACT_GUARDIAN_TEST_UNBOUNDED");
        self
    }

    /// Uses `out` as the child's stdout instead of a captured pipe.
    pub fn stdout(mut self, out: Stdio) -> Cmd {
        self.stdout = Some(out);
        self
    }

    /// Runs the command; fails the test if it runs longer than [`HANG`].
    pub fn run(self) -> Run {
        let mut c = Command::new(bin());
        c.args(&self.args)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped());
        c.stdout(self.stdout.unwrap_or_else(Stdio::piped));
        isolate(&mut c);
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        let start = Instant::now();
        let mut child = spawn(&mut c);
        let mut stdin = child.stdin.take().unwrap();
        let input = self.stdin;
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input); // the child may stop reading early: that is allowed
        });
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let out_reader = std::thread::spawn(move || read_all(stdout));
        let err_reader = std::thread::spawn(move || read_all(stderr));
        let deadline = start + HANG;
        // Looked at often at first, then less and less: two hundred runs waited on at once must
        // not take the one processor they share from the processes they wait for.
        let mut pause = Duration::from_millis(1);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{:?} hung for {} s", self.args, HANG.as_secs());
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        };
        let elapsed = start.elapsed();
        let _ = writer.join();
        Run {
            code: status.code(),
            stdout: out_reader.join().unwrap(),
            stderr: err_reader.join().unwrap(),
            elapsed,
            user_line: None,
        }
    }
}

/// Removes from `c`'s environment what of the machine's would decide where files go: the
/// binary's own settings, Claude Code's config folder, OpenCode's mark and config folder and
/// the XDG folders (a test run from inside OpenCode has OPENCODE=1).
pub fn isolate(c: &mut Command) {
    for (k, _) in std::env::vars() {
        if k.starts_with("COMPACT_GUARDIAN_")
            || k == "CLAUDE_CONFIG_DIR"
            || k.starts_with("OPENCODE")
            || k.starts_with("XDG_")
        {
            c.env_remove(k);
        }
    }
}

/// Starts `c`. Under Wine, process creation fails now and then with ERROR_INTERNAL_ERROR (1359)
/// when many tests start processes at once (seen in CI: one start in several hundred); that is
/// the emulator's, not the binary's (which starts no processes), so a start that fails that way
/// is tried again, a few times. Any other failure, and every failure elsewhere, fails the test.
pub fn spawn(c: &mut Command) -> std::process::Child {
    const WINE_INTERNAL_ERROR: i32 = 1359;
    let mut tries = 0;
    loop {
        match c.spawn() {
            Ok(child) => return child,
            Err(e)
                if cfg!(windows) && e.raw_os_error() == Some(WINE_INTERNAL_ERROR) && tries < 5 =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(200 * tries));
            }
            Err(e) => panic!("cannot start {c:?}: {e}"),
        }
    }
}

fn read_all(r: Option<impl std::io::Read>) -> String {
    let mut buf = Vec::new();
    if let Some(mut r) = r {
        let _ = r.read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Sets `path`'s modification time to `t` (a file another process left, a clock far off).
pub fn set_mtime(path: &Path, t: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Ages `path` by `secs` seconds: its modification time set that long ago.
pub fn set_old(path: &Path, secs: u64) {
    set_mtime(
        path,
        std::time::SystemTime::now() - Duration::from_secs(secs),
    );
}

/// A lock on `path` held by this process (as another process would hold it) until the file is
/// dropped, its time `secs` seconds ago: how long it has been held, as far as a hook can tell.
pub fn held_lock(path: &Path, secs: u64) -> std::fs::File {
    let lock = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .unwrap();
    lock.lock().unwrap();
    lock.set_modified(std::time::SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
    lock
}

#[cfg(unix)]
/// Makes a FIFO at `path` (and its folder): a file whose open waits for a writer.
pub fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

#[cfg(unix)]
/// Writes `bytes` to `path` as an executable (0755) from a child process, never from this one.
/// The test binary runs its tests on many threads, each starting processes: a process another
/// thread starts while this one holds a file open for writing keeps a copy of that descriptor
/// until it has started its own program, and running the file in that moment fails with "Text
/// file busy" (ETXTBSY). Under load that moment lasts, and a hook exec'ing a just-written binary
/// exited 2 (issue #55). A file written by a child is closed before the child is waited for.
pub fn write_executable(path: &Path, bytes: &[u8]) {
    let mut child = Command::new("sh")
        .args(["-c", "cat >\"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    assert!(child.wait().unwrap().success(), "{}", path.display());
}

#[cfg(unix)]
/// Copies the executable `from` to `to` (0755) as [`write_executable`] writes one.
pub fn copy_executable(from: &Path, to: &Path) {
    let ok = Command::new("sh")
        .args(["-c", "cp \"$1\" \"$2\" && chmod 755 \"$2\"", "sh"])
        .args([from, to])
        .status()
        .unwrap()
        .success();
    assert!(ok, "{} -> {}", from.display(), to.display());
}

#[cfg(unix)]
/// Fills `dir` with links to the system's tools, leaving out any Rust toolchain a distribution
/// may have put there: a PATH for "a user without cargo".
pub fn tools_without_rust(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for bin in ["/usr/bin", "/bin"] {
        for e in std::fs::read_dir(bin).into_iter().flatten().flatten() {
            let name = e.file_name();
            let n = name.to_string_lossy();
            if n.starts_with("cargo") || n.starts_with("rust") || dir.join(&name).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), dir.join(&name));
        }
    }
}

#[cfg(unix)]
/// A marketplace as the repository serves it (D076): its manifest in `.claude-plugin/`, the plugin
/// in `plugin/` (only what runs), and the crate's files beside them (what a build from source
/// reads). The launcher's memory in a developer's checkout (`.found`) is not copied.
pub fn marketplace_copy(dir: &Path) {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![PathBuf::from("plugin")];
    while let Some(rel) = stack.pop() {
        std::fs::create_dir_all(dir.join(&rel)).unwrap();
        for e in std::fs::read_dir(repo.join(&rel)).unwrap().flatten() {
            let (name, kind) = (e.file_name(), e.file_type().unwrap());
            if kind.is_dir() {
                stack.push(rel.join(&name));
            } else if name != ".found" {
                std::fs::copy(e.path(), dir.join(&rel).join(&name)).unwrap();
            }
        }
    }
    std::fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    for f in [
        ".claude-plugin/marketplace.json",
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "LICENSE",
    ] {
        std::fs::copy(repo.join(f), dir.join(f)).unwrap();
    }
}

#[cfg(unix)]
/// Every file, folder and link under `dir` with its bytes and mode: compared before and after,
/// it proves a folder byte-identical (issue #39: nothing is written inside an installed plugin).
pub fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let bytes = if meta.is_dir() {
                stack.push(e.path());
                Vec::new()
            } else if meta.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                std::fs::read_link(e.path())
                    .map(|l| l.into_os_string().into_encoded_bytes())
                    .unwrap_or_default()
            };
            out.insert(e.path(), (bytes, meta.permissions().mode()));
        }
    }
    out
}

#[cfg(unix)]
/// What differs between two [`tree`]s of one folder: each file changed, added or gone.
pub fn tree_changes<'a>(
    before: &'a std::collections::BTreeMap<PathBuf, (Vec<u8>, u32)>,
    after: &'a std::collections::BTreeMap<PathBuf, (Vec<u8>, u32)>,
) -> Vec<&'a PathBuf> {
    after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v))
        .map(|(p, _)| p)
        .chain(before.keys().filter(|p| !after.contains_key(*p)))
        .collect()
}

/// `scripts/dist` packaging the test build, as the release workflow packages its builds.
pub fn dist(out: &Path) -> PathBuf {
    let mut c = Command::new("sh");
    c.arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/dist"))
        .args(["--binary", env!("CARGO_BIN_EXE_compact-guardian"), "--out"])
        .arg(out);
    let o = succeeded(&mut c, "scripts/dist");
    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
}

/// Runs `c` to its end, its output captured; it must succeed (else the test fails, naming it
/// `what`, with its stderr).
pub fn succeeded(c: &mut Command, what: &str) -> std::process::Output {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A static file server on 127.0.0.1 for `dir`, answering GET with 200 or 404. Stops when dropped.
pub struct Server {
    pub url: String,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn new(dir: PathBuf) -> Server {
        Server::on(dir, TcpListener::bind("127.0.0.1:0").unwrap())
    }

    /// The same, on a listener the caller bound (a URL that was down and comes back).
    pub fn on(dir: PathBuf, listener: TcpListener) -> Server {
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(120);
            while !flag.load(Ordering::Relaxed) && Instant::now() < deadline {
                let Ok((mut s, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                s.set_nonblocking(false).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut req = Vec::new();
                let mut buf = [0u8; 4096];
                while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => req.extend_from_slice(&buf[..n]),
                    }
                }
                let line = String::from_utf8_lossy(&req)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                let path = line
                    .split(' ')
                    .nth(1)
                    .unwrap_or("/")
                    .trim_start_matches('/');
                let file = dir.join(path);
                let resp = match (path.contains(".."), std::fs::read(&file)) {
                    (false, Ok(body)) => {
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend(body);
                        r
                    }
                    _ => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = s.write_all(&resp);
            }
        });
        Server { url, stop }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The shared corpus of real transcripts: the folder `COMPACT_GUARDIAN_CORPUS` names, else
/// `../shared/transcripts` beside this checkout; the one rule for every test that reads it, and
/// the one `build.rs` follows. A test that needs it is compiled ignored, with that reason in
/// cargo's own summary, when the build found no corpus (`cg_no_corpus`); it never passes without
/// its check: when it runs and the corpus is gone (moved since the build), it fails and says
/// so. Read when the test runs, beside the manifest this test was compiled from: a build
/// script's output can be another copy's (`cargo publish --dry-run` builds the packaged copy
/// under `target/package/` in the same target folder, and its run was reused for the tests).
pub fn corpus() -> PathBuf {
    let dir = std::env::var_os("COMPACT_GUARDIAN_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/transcripts"),
        PathBuf::from,
    );
    assert!(
        dir.is_dir(),
        "the shared corpus {} is absent, and this test was built to run (the build found a \
         corpus, or COMPACT_GUARDIAN_REQUIRE_CORPUS is set): point COMPACT_GUARDIAN_CORPUS at \
         it, or `touch build.rs` so that the tests that need it show as ignored",
        dir.display()
    );
    dir
}

/// Fails unless `text` holds every one of `parts`, naming the first one missing, with `text`.
#[track_caller]
pub fn assert_has_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part}:\n{text}");
    }
}

/// Fails if `text` holds any of `parts`, naming the first one found, with `text`.
#[track_caller]
pub fn assert_lacks_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(!text.contains(part), "{part}:\n{text}");
    }
}

/// The transcripts (`.jsonl`) in `dir`, in the order of their names.
pub fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// What a hook's output tells the user: its `systemMessage` (JSON output), or the plain text it
/// printed (Claude Code's PostCompact line), trimmed.
pub fn user_line(out: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(out.trim()) {
        Ok(v) => v["systemMessage"].as_str().unwrap_or_default().to_owned(),
        Err(_) => out.trim().to_owned(),
    }
}
