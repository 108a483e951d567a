//! The POSIX sh launcher the hooks call, and the marketplace self-build hook: search order,
//! fail-open when nothing is built, never running itself.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

fn launch(env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = Command::new("sh");
    c.arg(repo().join("bin/compact-guardian"))
        .arg("save")
        .stdin(Stdio::null());
    c.env_clear().env("PATH", "/usr/bin:/bin");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn launcher_search_order() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let data = t.path().join("data");
    let on_path = t.path().join("path-bin");
    let explicit = fake(&t.path().join("explicit"), "echo");
    fake(&root.join("target/release"), "dirname");
    fake(&data.join("bin"), "false");
    fake(&on_path, "true");
    let path = format!("{}:/usr/bin:/bin", on_path.display());
    let all = [
        ("COMPACT_GUARDIAN_BIN", explicit.to_str().unwrap()),
        ("CLAUDE_PLUGIN_ROOT", root.to_str().unwrap()),
        ("CLAUDE_PLUGIN_DATA", data.to_str().unwrap()),
        ("PATH", path.as_str()),
    ];
    let (code, out, _) = launch(&all);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "save\n"),
        "1: COMPACT_GUARDIAN_BIN"
    );
    fs::remove_file(&explicit).unwrap();
    let (code, out, _) = launch(&all);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), ".\n"),
        "2: the plugin's target/release"
    );
    fs::remove_file(root.join("target/release/compact-guardian")).unwrap();
    let (code, out, _) = launch(&all);
    assert_eq!(
        (code, out.as_str()),
        (Some(1), ""),
        "3: $CLAUDE_PLUGIN_DATA/bin"
    );
    fs::remove_file(data.join("bin/compact-guardian")).unwrap();
    let (code, out, err) = launch(&all);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), "", ""),
        "4: PATH"
    );
    fs::remove_file(on_path.join("compact-guardian")).unwrap();
    let (code, out, err) = launch(&all);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), ""),
        "fail-open with nothing built"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cargo build --release"));
}

#[test]
fn launcher_skips_a_non_executable_candidate() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    fs::create_dir_all(data.join("bin")).unwrap();
    fs::write(data.join("bin/compact-guardian"), "not a program").unwrap();
    let (code, out, err) = launch(&[("CLAUDE_PLUGIN_DATA", data.to_str().unwrap())]);
    assert_eq!((code, out.as_str()), (Some(0), ""));
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn launcher_never_runs_itself_from_path() {
    let t = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", repo().join("bin").display());
    let mut c = Command::new("sh");
    c.arg(repo().join("bin/compact-guardian"))
        .arg("restore")
        .stdin(Stdio::null())
        .env_clear()
        .env("PATH", &path)
        .env("HOME", t.path());
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn build_hook_without_cargo_says_so_and_exits_zero() {
    if Path::new("/usr/bin/cargo").exists() || Path::new("/bin/cargo").exists() {
        eprintln!("skipping: a system-wide cargo is installed");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("plugin");
    fs::create_dir_all(&root).unwrap();
    fs::copy(repo().join("Cargo.toml"), root.join("Cargo.toml")).unwrap();
    let out = Command::new("/bin/sh")
        .arg(repo().join("bin/compact-guardian-build"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", t.path())
        .env("CLAUDE_PLUGIN_ROOT", &root)
        .env("CLAUDE_PLUGIN_DATA", t.path().join("data"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout: it would reach the model"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cargo not found"));
}

#[test]
fn build_hook_does_nothing_when_this_version_is_built() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    fs::create_dir_all(data.join("bin")).unwrap();
    fs::copy(
        env!("CARGO_BIN_EXE_compact-guardian"),
        data.join("bin/compact-guardian"),
    )
    .unwrap();
    let root = t.path().join("plugin");
    fs::create_dir_all(&root).unwrap();
    fs::copy(repo().join("Cargo.toml"), root.join("Cargo.toml")).unwrap();
    let out = Command::new("sh")
        .arg(repo().join("bin/compact-guardian-build"))
        .env("CLAUDE_PLUGIN_ROOT", &root)
        .env("CLAUDE_PLUGIN_DATA", &data)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!data.join("build.log").exists());
}
