//! `install-opencode` (D054, D096): the OpenCode plugin written into a folder OpenCode loads, and
//! taken out again with `--remove`; and what `status` says of it, run inside OpenCode.
//!
//! One file serves both of OpenCode's lines (`opencode/compact-guardian.js`: OpenCode 1 runs its
//! default export's `server`, OpenCode 2 its `setup`), and both lines load plugin files from the
//! `plugin/` and `plugins/` folders of their global config folder. What differs is which global
//! config folders a line reads: OpenCode 2 only `$OPENCODE_CONFIG_DIR` when it is set, OpenCode 1
//! that one beside `~/.config/opencode` (so a second copy is a second plugin to it); and the key
//! that names a plugin with options in `opencode.json` (`plugin` in 1, `plugins` in 2). The line
//! installed is what `opencode --version` says, else what the global config folder shows.

use crate::input::config::Config;
use crate::store::installs::{self, json_key, read_text};
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The plugin, as `opencode/compact-guardian.js` in the repository.
pub(crate) const PLUGIN: &str = include_str!("../../opencode/compact-guardian.js");
/// The plugin's file name.
pub(crate) const PLUGIN_FILE: &str = "compact-guardian.js";
/// The plugin's line that names the binary which installed it.
const INSTALLED_LINE: &str = "const INSTALLED_BINARY = null\n";
/// How every version of the plugin starts: a file so named that does not is someone else's.
const OURS: &str = "// compact-guardian for OpenCode";
/// The longest `opencode --version` may take (a Bun binary's start; more on a loaded machine).
const VERSION_WAIT: Duration = Duration::from_secs(5);

/// The line of OpenCode installed, and what showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1 or 2 (a later major is read as 2: the plugin API it speaks).
    pub major: u32,
    /// What `opencode --version` printed, when it was asked.
    pub version: Option<String>,
    /// What showed the line, for the user.
    pub from: String,
}

impl Line {
    /// "OpenCode 1.18.33", or "OpenCode 2" when only the config showed it.
    fn name(&self) -> String {
        match &self.version {
            Some(v) => format!("OpenCode {v}"),
            None => format!("OpenCode {}", self.major),
        }
    }

    /// The global config folders whose plugin folders this line loads.
    fn reads<'a>(&self, cfg: &'a Config) -> &'a [PathBuf] {
        let all = &cfg.opencode_configs[..];
        if self.major >= 2 {
            &all[..all.len().min(1)]
        } else {
            all
        }
    }

    /// The export of the plugin file this line runs.
    fn export(&self) -> &'static str {
        if self.major >= 2 { "setup" } else { "server" }
    }
}

/// The line of OpenCode installed: `opencode --version` (on PATH), else the global config.
pub fn detect(cfg: &Config) -> Option<Line> {
    asked_version().or_else(|| configured_line(&cfg.opencode_configs))
}

fn asked_version() -> Option<Line> {
    let mut cmd = Command::new("opencode");
    cmd.arg("--version");
    let (major, version) = parse_version(&output_within(cmd, VERSION_WAIT)?)?;
    Some(Line {
        major: major.min(2),
        version: Some(version),
        from: "`opencode --version`".into(),
    })
}

/// The first dotted number in `text` and its major: "1.18.33", "opencode v2.0.24".
pub(crate) fn parse_version(text: &str) -> Option<(u32, String)> {
    text.split_whitespace()
        .map(|w| w.trim_start_matches('v'))
        .find_map(|w| {
            let (major, _) = w.split_once('.')?;
            Some((major.parse().ok()?, w.to_owned()))
        })
}

/// `cmd`'s stdout, if it ends within `wait` (it is killed and reaped otherwise).
fn output_within(mut cmd: Command, wait: Duration) -> Option<String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    // A thread of its own: a read cannot be given a deadline. It ends when the child does.
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.by_ref().take(64 * 1024).read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let text = rx.recv_timeout(wait).ok();
    let _ = child.kill();
    let _ = child.wait();
    text
}

/// The line the global config shows: an `opencode.json(c)` naming plugins under OpenCode 2's
/// key or OpenCode 1's, else OpenCode 2's terminal settings (`cli.json`) or OpenCode 1's
/// (`tui.json`).
fn configured_line(configs: &[PathBuf]) -> Option<Line> {
    let line = |major, from: String| {
        Some(Line {
            major,
            version: None,
            from,
        })
    };
    for dir in configs {
        for file in ["opencode.json", "opencode.jsonc"].map(|n| dir.join(n)) {
            let Some(text) = read_text(&file) else {
                continue;
            };
            if json_key(&text, "plugins") {
                return line(2, format!("the \"plugins\" key in {}", file.display()));
            }
            if json_key(&text, "plugin") {
                return line(1, format!("the \"plugin\" key in {}", file.display()));
            }
        }
        for (major, name) in [(2, "cli.json"), (1, "tui.json")] {
            if dir.join(name).is_file() {
                return line(major, dir.join(name).display().to_string());
            }
        }
    }
    None
}

/// The plugin as `install-opencode` writes it: naming `binary`, the one that installed it.
fn plugin_for(binary: &Path) -> Result<String> {
    let path = binary
        .to_str()
        .context("this binary's path is not valid UTF-8: copy opencode/compact-guardian.js by hand and set COMPACT_GUARDIAN_BIN")?;
    anyhow::ensure!(
        PLUGIN.contains(INSTALLED_LINE),
        "the bundled plugin lacks its binary line"
    );
    Ok(PLUGIN.replacen(
        INSTALLED_LINE,
        &format!(
            "const INSTALLED_BINARY = {}\n",
            serde_json::to_string(path)?
        ),
        1,
    ))
}

/// Writes the plugin into `dir` (default: OpenCode's global plugins folder) and says where, for
/// which line; a copy of ours elsewhere in the global folders is removed (OpenCode 1 would run
/// both).
pub fn install(dir: Option<PathBuf>, cfg: &Config, out: &mut impl Write) -> Result<()> {
    let target = dir
        .clone()
        .or_else(|| cfg.opencode_plugins.clone())
        .context("no home folder: name the plugins folder with --dir")?;
    let binary = std::env::current_exe().context("could not find this binary's path")?;
    let text = plugin_for(&binary)?;
    std::fs::create_dir_all(&target)
        .with_context(|| format!("could not create {}", target.display()))?;
    let dest = target.join(PLUGIN_FILE);
    let mut tmp = tempfile::Builder::new()
        .prefix(".compact-guardian-")
        .tempfile_in(&target)
        .with_context(|| format!("could not write in {}", target.display()))?;
    tmp.write_all(text.as_bytes())
        .with_context(|| format!("could not write {}", dest.display()))?;
    tmp.persist(&dest)
        .map_err(|e| e.error)
        .with_context(|| format!("could not write {}", dest.display()))?;
    writeln!(
        out,
        "Installed the OpenCode plugin: {}\nIt runs {}.",
        dest.display(),
        binary.display()
    )?;
    if dir.is_none() {
        for other in remove_ours(cfg, &dest) {
            writeln!(out, "Removed an older copy: {}", other.display())?;
        }
    }
    match detect(cfg) {
        Some(line) => writeln!(
            out,
            "{} found ({}): it runs the plugin's `{}`.",
            line.name(),
            line.from,
            line.export()
        )?,
        None => writeln!(
            out,
            "No OpenCode found (no `opencode` on PATH, no OpenCode config): OpenCode 1 and 2 both load plugins from that folder."
        )?,
    }
    writeln!(
        out,
        "Start OpenCode again to load it; after a compaction, `compact-guardian status` run inside OpenCode (or with OPENCODE=1) shows what was protected."
    )?;
    Ok(())
}

/// `install-opencode --remove`: the plugin taken out of every global folder either line loads
/// (and `dir`), and what is left for the user to remove.
pub fn remove(dir: Option<PathBuf>, cfg: &Config, out: &mut impl Write) -> Result<()> {
    let mut removed = remove_ours(cfg, Path::new(""));
    if let Some(file) = dir.map(|d| d.join(PLUGIN_FILE)).filter(|f| is_ours(f)) {
        std::fs::remove_file(&file)
            .with_context(|| format!("could not remove {}", file.display()))?;
        removed.push(file);
    }
    for file in &removed {
        writeln!(out, "Removed the OpenCode plugin: {}", file.display())?;
    }
    if removed.is_empty() {
        writeln!(out, "No OpenCode plugin of compact-guardian found.")?;
    }
    for entry in installs::opencode_config_entries(&cfg.opencode_configs) {
        writeln!(
            out,
            "Still named in {entry}: remove that entry by hand (OpenCode fails to load a plugin file that is gone)."
        )?;
    }
    if let Some(data) = cfg.opencode_dir.as_ref().filter(|d| d.exists()) {
        writeln!(
            out,
            "The snapshot folder stays: rm -rf {} removes it.",
            data.display()
        )?;
    }
    Ok(())
}

/// Removes every copy of the plugin in the global folders but `keep`; the paths removed. A file
/// of that name that is not ours is left.
fn remove_ours(cfg: &Config, keep: &Path) -> Vec<PathBuf> {
    installs::opencode_plugin_files(&cfg.opencode_configs)
        .into_iter()
        .filter(|f| f != keep && is_ours(f) && std::fs::remove_file(f).is_ok())
        .collect()
}

fn is_ours(file: &Path) -> bool {
    read_text(file).is_some_and(|t| t.starts_with(OURS))
}

/// What `status` shows of OpenCode, inside OpenCode.
pub struct Seen {
    /// The line installed, if known.
    line: Option<Line>,
    /// Each copy of the plugin in the global folders, with the version it was written for and
    /// whether the line (when known) loads it.
    copies: Vec<(PathBuf, Option<String>, bool)>,
}

impl Seen {
    pub fn gather(cfg: &Config) -> Seen {
        let line = detect(cfg);
        let loads = |f: &Path| {
            line.as_ref()
                .is_none_or(|l| l.reads(cfg).iter().any(|c| f.starts_with(c)))
        };
        let copies = installs::opencode_plugin_files(&cfg.opencode_configs)
            .into_iter()
            .map(|f| {
                let version = read_text(&f).and_then(|t| {
                    t.lines().find_map(|l| {
                        l.strip_prefix("const VERSION = \"")
                            .and_then(|v| v.strip_suffix('"'))
                            .map(str::to_owned)
                    })
                });
                let loaded = loads(&f);
                (f, version, loaded)
            })
            .collect();
        Seen { line, copies }
    }

    /// `status --json`'s `opencode` fields.
    pub fn json(&self) -> Value {
        let first = self.copies.iter().find(|c| c.2);
        json!({
            "plugin": first.map(|c| c.0.display().to_string()),
            "plugin_version": first.and_then(|c| c.1.clone()),
            "line": self.line.as_ref().map(|l| json!({"major": l.major, "version": l.version, "from": l.from})),
            "copies": self.copies.iter().map(|(f, v, loaded)| json!({"path": f.display().to_string(), "version": v, "loaded": loaded})).collect::<Vec<_>>(),
        })
    }

    /// `status`'s lines: the plugin OpenCode loads (or NOT found), the line and which export it
    /// runs, and any other copy.
    pub fn text(
        &self,
        cfg: &Config,
        shown: impl Fn(&str) -> String,
        out: &mut impl Write,
    ) -> Result<()> {
        let version = env!("CARGO_PKG_VERSION");
        let first = self.copies.iter().find(|c| c.2);
        match first {
            Some((path, Some(v), _)) if v == version => writeln!(
                out,
                "OpenCode plugin: {}",
                shown(&path.display().to_string())
            )?,
            Some((path, v, _)) => writeln!(
                out,
                "OpenCode plugin: {} (written for {}; run 'compact-guardian install-opencode' to match this binary)",
                shown(&path.display().to_string()),
                v.as_deref().map_or("an unknown version".to_owned(), &shown)
            )?,
            None => writeln!(
                out,
                "OpenCode plugin: NOT found in {}: OpenCode's compactions are not protected unless another config loads it (run 'compact-guardian install-opencode')",
                cfg.opencode_plugins
                    .as_ref()
                    .map_or("OpenCode's plugins folder".to_owned(), |d| shown(
                        &d.display().to_string()
                    ))
            )?,
        }
        match &self.line {
            Some(l) if first.is_some() => writeln!(
                out,
                "OpenCode found: {} ({}), which runs the plugin's `{}`",
                l.name(),
                shown(&l.from),
                l.export()
            )?,
            Some(l) => writeln!(out, "OpenCode found: {} ({})", l.name(), shown(&l.from))?,
            None => writeln!(
                out,
                "OpenCode found: none (no `opencode` on PATH, no OpenCode config); OpenCode 1 and 2 both load the plugin from that folder"
            )?,
        }
        for (path, _, loaded) in &self.copies {
            if Some(path) == first.map(|c| &c.0) {
                continue;
            }
            let why = if *loaded {
                "a second copy OpenCode 1 also runs"
            } else {
                "a folder this OpenCode does not read"
            };
            writeln!(
                out,
                "OpenCode plugin: also {} ({why}; 'compact-guardian install-opencode' keeps one)",
                shown(&path.display().to_string())
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_installed_plugin_names_its_binary_as_a_javascript_string() {
        let text = plugin_for(Path::new("/home/u/.cargo/bin/compact-guardian")).unwrap();
        assert!(
            text.contains("const INSTALLED_BINARY = \"/home/u/.cargo/bin/compact-guardian\"\n")
        );
        // A quote or a backslash in the path stays inside the string.
        let text = plugin_for(Path::new(r#"C:\Users\o"k\cg.exe"#)).unwrap();
        assert!(
            text.contains(r#"const INSTALLED_BINARY = "C:\\Users\\o\"k\\cg.exe""#),
            "{}",
            &text[..0]
        );
    }

    #[test]
    fn the_plugin_says_the_crate_version() {
        let line = format!("const VERSION = \"{}\"\n", env!("CARGO_PKG_VERSION"));
        assert!(
            PLUGIN.contains(&line),
            "opencode/compact-guardian.js must say {line}"
        );
        assert!(PLUGIN.starts_with(OURS));
    }

    #[test]
    fn opencode_versions_are_read_from_either_lines_answer() {
        assert_eq!(parse_version("1.18.33\n"), Some((1, "1.18.33".into())));
        assert_eq!(
            parse_version("opencode v2.0.24\n"),
            Some((2, "2.0.24".into()))
        );
        assert_eq!(
            parse_version("2.3.1-beta.2"),
            Some((2, "2.3.1-beta.2".into()))
        );
        assert_eq!(parse_version("error: unknown flag"), None);
    }

    #[test]
    fn the_config_shows_the_line_by_its_plugin_key_or_its_terminal_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        assert_eq!(configured_line(std::slice::from_ref(&dir)), None);
        std::fs::write(dir.join("tui.json"), "{}").unwrap();
        assert_eq!(
            configured_line(std::slice::from_ref(&dir)).unwrap().major,
            1
        );
        std::fs::write(dir.join("cli.json"), "{}").unwrap();
        assert_eq!(
            configured_line(std::slice::from_ref(&dir)).unwrap().major,
            2
        );
        std::fs::write(dir.join("opencode.jsonc"), "{\n // old\n \"plugin\": []\n}").unwrap();
        assert_eq!(
            configured_line(std::slice::from_ref(&dir)).unwrap().major,
            1
        );
        std::fs::write(dir.join("opencode.json"), r#"{"plugins": []}"#).unwrap();
        let line = configured_line(&[dir]).unwrap();
        assert_eq!(line.major, 2);
        assert!(line.from.contains("\"plugins\""), "{}", line.from);
    }
}
