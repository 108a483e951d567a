//! The plugin as a marketplace installs it, and its sh scripts run as the client runs them: the
//! launcher the hooks call and the startup hook that provisions the binary (`tests/launcher.rs`,
//! and the hostile suites that replay findings against the launcher).

use super::{Run, copy_executable, run_child, small_session, tools_without_rust};
use std::fs;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The crate's version as its Cargo.toml says it (what the launcher reads).
pub fn version() -> String {
    let toml = fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    toml.lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .unwrap()
        .trim_end_matches('"')
        .to_owned()
}

/// A loopback URL nothing listens on (bound, then closed again): connection refused.
pub fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

/// A plugin as a marketplace installs it: the repository's plugin folder (`plugin/`, D076), no
/// `target/`, in a folder that holds the crate's Cargo.toml as a checkout around it does (where
/// the startup hook's build from source finds the crate).
pub struct Plugin {
    tmp: tempfile::TempDir,
}

impl Plugin {
    pub fn new() -> Plugin {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("plugin");
        for dir in ["bin", "lib", "hooks", ".claude-plugin"] {
            fs::create_dir_all(root.join(dir)).unwrap();
            for e in fs::read_dir(repo().join("plugin").join(dir)).unwrap() {
                let e = e.unwrap();
                if e.file_name() == ".found" {
                    continue; // the launcher's memory in a developer's checkout: not the plugin's
                }
                fs::copy(e.path(), root.join(dir).join(e.file_name())).unwrap();
            }
        }
        fs::copy(repo().join("Cargo.toml"), tmp.path().join("Cargo.toml")).unwrap();
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        tools_without_rust(&tmp.path().join("tools"));
        Plugin { tmp }
    }

    /// The folder around the plugin (its checkout, as the startup hook sees it).
    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    pub fn root(&self) -> PathBuf {
        self.tmp.path().join("plugin")
    }

    pub fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    pub fn path(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }

    /// The small session ([`small_session`]) written beside the plugin: a transcript for its
    /// hooks, and its path.
    pub fn transcript(&self) -> PathBuf {
        let t = self.path("t.jsonl");
        fs::write(&t, small_session().join("\n") + "\n").unwrap();
        t
    }

    /// Where this version's binary is installed in the data folder.
    pub fn installed(&self) -> PathBuf {
        self.data()
            .join("bin")
            .join(version())
            .join("compact-guardian")
    }

    /// Gives `c` the environment Claude Code gives a plugin script: no terminal, a clean
    /// environment whose PATH has the system tools but no cargo (it lives in ~/.cargo/bin, and
    /// HOME is a fresh folder), the plugin's root and data folder, and a release URL nothing
    /// answers at (tests never reach the internet). Variables set on `c` afterwards win.
    pub fn as_client<'c>(&self, c: &'c mut Command) -> &'c mut Command {
        c.env_clear()
            .env("PATH", self.path("tools"))
            .env("HOME", self.path("home"))
            .env("CLAUDE_PLUGIN_ROOT", self.root())
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .env("COMPACT_GUARDIAN_DIR", self.path("store"))
            .env("COMPACT_GUARDIAN_RELEASE_URL", dead_url())
    }

    /// Runs a plugin script as Claude Code would ([`Plugin::as_client`]), with `env` added.
    pub fn run(&self, script: &str, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
        let mut c = Command::new("sh");
        c.arg(self.root().join("bin").join(script)).args(args);
        self.as_client(&mut c).envs(env.iter().copied());
        output_with(c, stdin)
    }

    /// The launcher run as the client runs the hook `sub`, with `input`.
    pub fn hook(&self, sub: &str, input: &str) -> Output {
        self.run("compact-guardian", &[sub], &[], input)
    }

    /// Runs the launcher with `args` as the client does, after `prefix` (a resource limit, a
    /// umask) set by sh before it starts, with `env` added; a hang fails the test.
    pub fn launch(&self, prefix: &str, args: &str, env: &[(&str, &str)], input: &str) -> Run {
        let mut c = Command::new("sh");
        c.args([
            "-c",
            &format!("{prefix}; exec sh \"$0\" {args}"),
            self.root().join("bin/compact-guardian").to_str().unwrap(),
        ]);
        self.as_client(&mut c).envs(env.iter().copied());
        run_child(c, &[], input)
    }

    /// Waits until the background provisioning job has let go of its lock.
    pub fn wait_for_provisioning(&self) {
        let lock = self.data().join("provision.lock");
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(50));
        while lock.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "provisioning still running; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        fs::read_to_string(self.data().join("provision.log")).unwrap_or_default()
    }
}

/// Runs `c` with `stdin` written to it, its output captured.
pub fn output_with(mut c: Command, stdin: &str) -> Output {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    // A script that exits without reading its input (fail-open) closes the pipe first.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Installs the test build as this version's binary in the plugin's data folder.
pub fn install_test_binary(p: &Plugin) -> PathBuf {
    let installed = p.installed();
    fs::create_dir_all(installed.parent().unwrap()).unwrap();
    copy_executable(
        Path::new(env!("CARGO_BIN_EXE_compact-guardian")),
        &installed,
    );
    installed
}

/// Where the launcher remembers its binary for the fast path: the data folder, never the plugin
/// folder (issue #39: Codex trusts hooks by a hash of the plugin's contents).
pub fn remembered(p: &Plugin) -> PathBuf {
    p.data().join("launcher-found")
}
