//! Every setting, resolved once from the environment into a plain [`Config`].
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `COMPACT_GUARDIAN_DIR` | snapshot folder | `compact-guardian/` under Codex's home (`$CODEX_HOME`, else `~/.codex`) when Codex runs the plugin, under OpenCode's data folder (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`) when OpenCode does (`OPENCODE=1`), else under `$CLAUDE_CONFIG_DIR`, else under `~/.claude` |
//! | `COMPACT_GUARDIAN_TTL_SECS` | how long a snapshot stays fresh (at least 60) | 600 |
//! | `COMPACT_GUARDIAN_SCAN_BYTES` | most bytes read from a transcript's end | no limit (the time budget bounds it) |
//! | `COMPACT_GUARDIAN_BUDGET_MS` | time after which a hook stops reading and uses what it has | 2000 (at most 5000) |
//! | `COMPACT_GUARDIAN_STEER` | `0` stops `save` printing its directive for the summarizer | on |
//! | `COMPACT_GUARDIAN_DEBUG` | `1` adds detail on stderr | off |
//!
//! For the test suite and the instruction-count guard only (D036): `COMPACT_GUARDIAN_TEST_UNBOUNDED`
//! gives a hook an hour instead of its budget (no reading deadline, no watchdog within it), so
//! that what a test checks at scale, and what the guard counts, never depends on the machine's
//! speed. `COMPACT_GUARDIAN_TEST_PANIC` and `COMPACT_GUARDIAN_TEST_NO_WATCHDOG` (`failopen`)
//! prove the fail-open paths.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The most a hook's budget may be set to. The watchdog ends a hook a few seconds after its budget
/// ([`HARD_LIMIT_MARGIN`]), and that must come before the client's own timeout (10 s in
/// `hooks/hooks.json`) kills the hook, which a client may count as a failure and run again.
pub const MAX_BUDGET: Duration = Duration::from_secs(5);

/// How much longer than the soft budget a hook may run before the watchdog ends it.
pub(crate) const HARD_LIMIT_MARGIN: Duration = Duration::from_secs(3);

/// The budget under `COMPACT_GUARDIAN_TEST_UNBOUNDED` (tests and the instruction-count guard):
/// far beyond any run, so neither the deadline nor the watchdog ever decides what a test sees.
const TEST_UNBOUNDED: Duration = Duration::from_secs(3600);
/// The shortest freshness a snapshot may be given: a compaction (the summarizer's request between
/// PreCompact and SessionStart) takes seconds to a few minutes.
pub const MIN_TTL: Duration = Duration::from_secs(60);

/// The snapshot folder's name under the config root.
pub const FOLDER: &str = "compact-guardian";

/// Resolved settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Snapshot folder; `None` when no home folder can be found and nothing is set.
    pub dir: Option<PathBuf>,
    /// Codex's folder (`compact-guardian/` under its home): where Codex sessions keep theirs
    /// when nothing else is set, for `status` to point at.
    pub codex_dir: Option<PathBuf>,
    /// Claude Code's config root (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) and Codex's home
    /// (`$CODEX_HOME`, else `~/.codex`): where `status` looks for what each keeps of the plugin.
    pub claude_root: Option<PathBuf>,
    /// See `claude_root`.
    pub codex_home: Option<PathBuf>,
    /// OpenCode's folder (`compact-guardian/` under OpenCode's data folder), likewise.
    pub opencode_dir: Option<PathBuf>,
    /// OpenCode runs this process (its plugin, or its shell: `OPENCODE=1`, which OpenCode sets
    /// for itself and what it starts), and no Claude Code or Codex plugin hook does.
    pub run_by_opencode: bool,
    /// OpenCode's global plugins folder (`plugins` in the first of [`Config::opencode_configs`]):
    /// where `install-opencode` puts the plugin and `status` looks for it first.
    pub opencode_plugins: Option<PathBuf>,
    /// OpenCode's global config folders, which both of its lines load plugin files from (D096):
    /// `$OPENCODE_CONFIG_DIR` when set (OpenCode 2 then reads only it, OpenCode 1 reads it
    /// too), then `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
    pub opencode_configs: Vec<PathBuf>,
    /// Freshness limit of a snapshot.
    pub ttl: Duration,
    /// Most bytes scanned from a transcript's end (`None`: no limit but the time budget).
    pub scan_bytes: Option<u64>,
    /// Soft time budget of one hook run.
    pub budget: Duration,
    /// Whether `save` prints the summarizer directive.
    pub steer: bool,
    /// Extra diagnostics on stderr.
    pub debug: bool,
    /// Settings that were set but not used as given, each with what was used instead (`status`
    /// shows them: a typo must not be silent).
    pub ignored: Vec<String>,
}

impl Config {
    /// How long a hook waits for a lock another hook holds (the history's): its budget plus 2 s,
    /// so the wait ends before the watchdog (the budget plus 3 s) and, at the default budget,
    /// is [`crate::store::history::LOCK_WAIT`].
    pub fn lock_wait(&self) -> Duration {
        self.budget + Duration::from_secs(2)
    }

    /// Settings from the process environment.
    pub fn from_env() -> Config {
        Config::from_vars(|k| std::env::var_os(k), std::env::home_dir())
    }

    /// Settings from a variable lookup and a home folder (a seam for tests). Paths stay OS strings
    /// end to end: a folder name that is not UTF-8 is used exactly as given.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>, home: Option<PathBuf>) -> Config {
        let mut vars = Vars {
            var,
            ignored: Vec::new(),
        };
        let folders = Folders::of(&vars, home.as_ref());
        // In this order, so that `ignored` lists them so.
        let budget = vars.budget();
        let ttl = vars.ttl();
        let scan_bytes = Some(vars.number("COMPACT_GUARDIAN_SCAN_BYTES", 0)).filter(|&n| n > 0);
        Config {
            dir: folders.dir,
            codex_dir: folders.codex_dir,
            claude_root: folders.claude_root,
            codex_home: folders.codex_home,
            opencode_dir: folders.opencode_dir,
            run_by_opencode: folders.run_by_opencode,
            opencode_plugins: folders.opencode_plugins,
            opencode_configs: folders.opencode_configs,
            ttl,
            scan_bytes,
            budget,
            steer: vars.flag("COMPACT_GUARDIAN_STEER").unwrap_or(true),
            debug: vars.flag("COMPACT_GUARDIAN_DEBUG").unwrap_or(false),
            ignored: vars.ignored,
        }
    }
}

/// The environment as [`Config::from_vars`] reads it: a blank value is no value, and a setting
/// not used as given is noted in `ignored`.
struct Vars<F> {
    var: F,
    ignored: Vec<String>,
}

impl<F: Fn(&str) -> Option<OsString>> Vars<F> {
    /// `k`'s value, unless unset or blank.
    fn os(&self, k: &str) -> Option<OsString> {
        let blank = |v: &OsString| v.to_str().is_some_and(|s| s.trim().is_empty());
        (self.var)(k).filter(|v| !blank(v))
    }

    /// `k`'s value as a path.
    fn path(&self, k: &str) -> Option<PathBuf> {
        self.os(k).map(PathBuf::from)
    }

    /// `k`'s value, if it is UTF-8.
    fn text(&self, k: &str) -> Option<String> {
        self.os(k).and_then(|v| v.into_string().ok())
    }

    /// `k`'s value as a whole number; `default` when unset, or, noted, when not a number.
    fn number(&mut self, k: &str, default: u64) -> u64 {
        match self.text(k) {
            None => default,
            Some(v) => v.trim().parse::<u64>().unwrap_or_else(|_| {
                self.ignored.push(format!(
                    "{k}={} is not a whole number; {default} is used",
                    crate::text::folded_line(&v, 40)
                ));
                default
            }),
        }
    }

    /// `k`'s value as on or off: off is `0`, `false`, `no` or `off`, anything else is on.
    fn flag(&self, k: &str) -> Option<bool> {
        self.text(k).map(|v| {
            !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
    }

    /// The soft time budget of a hook: at most [`MAX_BUDGET`], an hour for the tests
    /// (`COMPACT_GUARDIAN_TEST_UNBOUNDED`, D036).
    fn budget(&mut self) -> Duration {
        let budget = Duration::from_millis(self.number("COMPACT_GUARDIAN_BUDGET_MS", 2000));
        if budget > MAX_BUDGET {
            self.ignored.push(format!(
                "COMPACT_GUARDIAN_BUDGET_MS={} is over the most a hook may take; {} is used",
                budget.as_millis(),
                MAX_BUDGET.as_millis()
            ));
        }
        if self.text("COMPACT_GUARDIAN_TEST_UNBOUNDED").is_some() {
            TEST_UNBOUNDED
        } else {
            budget.min(MAX_BUDGET)
        }
    }

    /// How long a snapshot stays fresh: at least [`MIN_TTL`].
    fn ttl(&mut self) -> Duration {
        let ttl = Duration::from_secs(self.number("COMPACT_GUARDIAN_TTL_SECS", 600));
        if ttl < MIN_TTL {
            // Shorter than a compaction takes: the snapshot would expire before its restore, and
            // the save's own cleanup would delete it (0 did, silently: issue #41).
            self.ignored.push(format!(
                "COMPACT_GUARDIAN_TTL_SECS={} is shorter than a compaction takes; {} is used",
                ttl.as_secs(),
                MIN_TTL.as_secs()
            ));
        }
        ttl.max(MIN_TTL)
    }
}

/// Each client's folders, and the snapshot folder for the client that runs this process.
struct Folders {
    dir: Option<PathBuf>,
    codex_dir: Option<PathBuf>,
    claude_root: Option<PathBuf>,
    codex_home: Option<PathBuf>,
    opencode_dir: Option<PathBuf>,
    run_by_opencode: bool,
    opencode_plugins: Option<PathBuf>,
    opencode_configs: Vec<PathBuf>,
}

impl Folders {
    /// The folders `vars` and `home` give.
    fn of<F: Fn(&str) -> Option<OsString>>(vars: &Vars<F>, home: Option<&PathBuf>) -> Folders {
        // A folder of its own under the config root: nothing of the user's lies loose in
        // ~/.claude, and one command removes everything (README: Uninstall). Codex runs the
        // plugin from under its own home: a Codex user gets a folder there, not in ~/.claude.
        let codex_home = vars
            .path("CODEX_HOME")
            .or_else(|| home.map(|h| h.join(".codex")));
        let codex_dir = codex_home.as_ref().map(|root| root.join(FOLDER));
        let claude_root = vars
            .path("CLAUDE_CONFIG_DIR")
            .or_else(|| home.map(|h| h.join(".claude")));
        let run_by_codex = vars
            .path("CLAUDE_PLUGIN_ROOT")
            .zip(codex_dir.as_ref().and_then(|d| d.parent()))
            .is_some_and(|(plugin, codex_home)| plugin.starts_with(codex_home));
        // OpenCode keeps its sessions under its data folder (xdg-basedir's, on every platform):
        // an OpenCode user's snapshots live beside them (D053).
        let opencode_dir = vars
            .path("XDG_DATA_HOME")
            .or_else(|| home.map(|h| h.join(".local").join("share")))
            .map(|data| data.join("opencode").join(FOLDER));
        let opencode_configs: Vec<PathBuf> = vars
            .path("OPENCODE_CONFIG_DIR")
            .into_iter()
            .chain(
                vars.path("XDG_CONFIG_HOME")
                    .or_else(|| home.map(|h| h.join(".config")))
                    .map(|config| config.join("opencode")),
            )
            .collect();
        let opencode_plugins = opencode_configs.first().map(|c| c.join("plugins"));
        let run_by_opencode = vars.text("OPENCODE").is_some_and(|v| v.trim() == "1")
            && vars.os("CLAUDE_PLUGIN_ROOT").is_none();
        let dir = vars
            .path("COMPACT_GUARDIAN_DIR")
            .or_else(|| codex_dir.clone().filter(|_| run_by_codex))
            .or_else(|| opencode_dir.clone().filter(|_| run_by_opencode))
            .or_else(|| claude_root.as_ref().map(|root| root.join(FOLDER)));
        Folders {
            dir,
            codex_dir,
            claude_root,
            codex_home,
            opencode_dir,
            run_by_opencode,
            opencode_plugins,
            opencode_configs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Config {
        let m: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        Config::from_vars(|k| m.get(k).cloned(), Some(PathBuf::from("/home/u")))
    }

    #[test]
    fn folder_precedence() {
        assert_eq!(
            cfg(&[]).dir,
            Some(PathBuf::from("/home/u/.claude/compact-guardian"))
        );
        assert_eq!(
            cfg(&[("CLAUDE_CONFIG_DIR", "/c")]).dir,
            Some(PathBuf::from("/c/compact-guardian"))
        );
        assert_eq!(
            cfg(&[("CLAUDE_CONFIG_DIR", "/c"), ("COMPACT_GUARDIAN_DIR", "/g")]).dir,
            Some(PathBuf::from("/g"))
        );
        assert_eq!(
            cfg(&[("COMPACT_GUARDIAN_DIR", " ")]).dir,
            Some(PathBuf::from("/home/u/.claude/compact-guardian"))
        );
    }

    #[test]
    fn a_plugin_codex_runs_keeps_its_folder_in_codex_home() {
        // Issue #30 point 9: Codex-only users got a ~/.claude folder.
        let root = (
            "CLAUDE_PLUGIN_ROOT",
            "/home/u/.codex/plugins/cache/m/compact-guardian/1",
        );
        assert_eq!(
            cfg(&[root]).dir,
            Some(PathBuf::from("/home/u/.codex/compact-guardian"))
        );
        assert_eq!(
            cfg(&[
                ("CODEX_HOME", "/cx"),
                ("CLAUDE_PLUGIN_ROOT", "/cx/plugins/cache/p")
            ])
            .dir,
            Some(PathBuf::from("/cx/compact-guardian"))
        );
        assert_eq!(
            cfg(&[root, ("COMPACT_GUARDIAN_DIR", "/g")]).dir,
            Some(PathBuf::from("/g"))
        );
        let claude = (
            "CLAUDE_PLUGIN_ROOT",
            "/home/u/.claude/plugins/cache/m/compact-guardian/1",
        );
        assert_eq!(
            cfg(&[claude]).dir,
            Some(PathBuf::from("/home/u/.claude/compact-guardian"))
        );
    }

    #[test]
    fn opencode_keeps_its_folder_beside_its_sessions() {
        let oc = ("OPENCODE", "1");
        let c = cfg(&[oc]);
        assert!(c.run_by_opencode);
        assert_eq!(
            c.dir,
            Some(PathBuf::from(
                "/home/u/.local/share/opencode/compact-guardian"
            ))
        );
        assert_eq!(
            cfg(&[oc, ("XDG_DATA_HOME", "/d")]).dir,
            Some(PathBuf::from("/d/opencode/compact-guardian"))
        );
        assert_eq!(
            cfg(&[oc, ("COMPACT_GUARDIAN_DIR", "/g")]).dir,
            Some(PathBuf::from("/g"))
        );
        // A Claude Code (or Codex) hook started from inside OpenCode's shell is that client's.
        let claude = (
            "CLAUDE_PLUGIN_ROOT",
            "/home/u/.claude/plugins/cache/m/compact-guardian/1",
        );
        let c = cfg(&[oc, claude]);
        assert!(!c.run_by_opencode);
        assert_eq!(
            c.dir,
            Some(PathBuf::from("/home/u/.claude/compact-guardian"))
        );
        assert!(!cfg(&[("OPENCODE", "0")]).run_by_opencode);
        assert_eq!(
            cfg(&[]).opencode_dir,
            Some(PathBuf::from(
                "/home/u/.local/share/opencode/compact-guardian"
            ))
        );
        assert_eq!(
            cfg(&[]).opencode_plugins,
            Some(PathBuf::from("/home/u/.config/opencode/plugins"))
        );
        assert_eq!(
            cfg(&[("XDG_CONFIG_HOME", "/x")]).opencode_plugins,
            Some(PathBuf::from("/x/opencode/plugins"))
        );
    }

    #[test]
    fn opencode_config_dir_comes_first_and_the_usual_folder_stays() {
        // OpenCode 2 reads only $OPENCODE_CONFIG_DIR when it is set; OpenCode 1 reads both.
        let c = cfg(&[("OPENCODE_CONFIG_DIR", "/oc")]);
        assert_eq!(c.opencode_plugins, Some(PathBuf::from("/oc/plugins")));
        assert_eq!(
            c.opencode_configs,
            [
                PathBuf::from("/oc"),
                PathBuf::from("/home/u/.config/opencode")
            ]
        );
        assert_eq!(
            cfg(&[]).opencode_configs,
            [PathBuf::from("/home/u/.config/opencode")]
        );
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_folder_is_kept_byte_for_byte() {
        use std::os::unix::ffi::OsStringExt;
        let raw = OsString::from_vec(b"/tmp/caf\xe9-store".to_vec());
        let c = Config::from_vars(|k| (k == "COMPACT_GUARDIAN_DIR").then(|| raw.clone()), None);
        assert_eq!(c.dir, Some(PathBuf::from(raw)));
    }

    #[test]
    fn numbers_and_flags() {
        let c = cfg(&[
            ("COMPACT_GUARDIAN_TTL_SECS", "5"),
            ("COMPACT_GUARDIAN_STEER", "0"),
            ("COMPACT_GUARDIAN_DEBUG", "1"),
        ]);
        assert_eq!(c.ttl, MIN_TTL, "shorter than a compaction takes");
        assert_eq!(
            c.ignored,
            ["COMPACT_GUARDIAN_TTL_SECS=5 is shorter than a compaction takes; 60 is used"]
        );
        assert!(!c.steer && c.debug);
        let c = cfg(&[("COMPACT_GUARDIAN_TTL_SECS", "0")]);
        assert_eq!(
            (c.ttl, c.ignored.len()),
            (MIN_TTL, 1),
            "0 never disables snapshots"
        );
        assert_eq!(cfg(&[("COMPACT_GUARDIAN_TTL_SECS", "60")]).ignored.len(), 0);
        let c = cfg(&[("COMPACT_GUARDIAN_BUDGET_MS", "7000")]);
        assert_eq!(
            c.budget, MAX_BUDGET,
            "a budget past the hook timeout is clamped"
        );
        let c = cfg(&[("COMPACT_GUARDIAN_BUDGET_MS", "18446744073709551615")]);
        assert_eq!(c.budget, MAX_BUDGET);
        assert_eq!(cfg(&[]).lock_wait(), crate::store::history::LOCK_WAIT);
        let c = cfg(&[("COMPACT_GUARDIAN_TEST_UNBOUNDED", "1")]);
        assert_eq!(
            c.budget, TEST_UNBOUNDED,
            "tests and the guard only: never the deadline"
        );
        let c = cfg(&[("COMPACT_GUARDIAN_TTL_SECS", "soon")]);
        assert_eq!(c.ttl, Duration::from_secs(600));
        assert_eq!(
            c.ignored,
            ["COMPACT_GUARDIAN_TTL_SECS=soon is not a whole number; 600 is used"]
        );
        assert!(c.steer && !c.debug);
    }
}
