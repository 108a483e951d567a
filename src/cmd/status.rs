//! `status`: is it working? The binary in use, the snapshot folder, when each hook last ran, the
//! last compactions with what was protected and what the summary dropped (issue #19), and, client
//! by client, whether the plugin is installed, whether Codex trusts its hooks, and everything of
//! it left on disk (issue #39). Run from OpenCode it speaks of OpenCode: its plugin first, its
//! plugin's steps (issue #43).

use super::codex_trust::{self, Trust};
use super::opencode_install::Seen;
use crate::input::config::Config;
use crate::store::Store;
use crate::store::history::{self, Entry, Outcome};
use crate::store::installs::{self, Install};
use crate::text::{folded_line, format_utc};
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

/// How many compactions the text form lists.
const SHOWN: usize = 10;

/// Prints the status as text, or as JSON with `json`. `Ok(false)` when compactions are not
/// protected (the snapshot folder cannot be used, the newest compaction found no binary, or Codex
/// has the plugin and does not run its hooks): the command then exits 1, as a health check.
pub fn status(cfg: &Config, json: bool, out: &mut impl Write) -> Result<bool> {
    let report = Report::gather(cfg);
    if json {
        report.print_json(cfg, out)?;
    } else {
        report.print_text(cfg, out)?;
    }
    Ok(report.healthy)
}

/// What `status` reports, gathered once from the folder, the history and the clients' files.
struct Report {
    binary: String,
    clients: Vec<Install>,
    folder: Option<PathBuf>,
    /// Why the snapshot folder cannot be used.
    problem: Option<String>,
    entries: Vec<Entry>,
    /// Compactions no binary ran for: their time and why.
    unprotected: Vec<(u64, String)>,
    healthy: bool,
    /// When save, restore and audit last ran.
    last_run: (Option<u64>, Option<u64>, Option<u64>),
    /// What Codex itself says of the plugin's hooks, when Codex has it installed (D077).
    codex_trust: Option<Trust>,
    /// The newest compaction in Codex's rollouts that none of our hooks recorded.
    codex_unhooked: Option<Unhooked>,
}

/// A compaction Codex recorded for which none of the plugin's hooks ran (issue #47).
struct Unhooked {
    time: u64,
    session: String,
    /// Its cause is gone: Codex trusts the hooks now, or a later compaction (of any session) was
    /// protected (issue #55: a health check turns green once the cause is gone).
    since_protected: bool,
}

impl Report {
    fn gather(cfg: &Config) -> Report {
        let binary = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "unknown".into());
        let clients: Vec<Install> = [
            cfg.claude_root.as_deref().map(installs::claude),
            cfg.codex_home.as_deref().map(installs::codex),
            cfg.opencode_dir
                .as_deref()
                .map(|data| installs::opencode(&cfg.opencode_configs, data)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let folder = shown_folder(cfg, &clients);
        let store = folder.as_ref().map(|d| Store::new(d.clone(), cfg.ttl));
        let problem = match &store {
            Some(store) => store.write_problem(),
            None => Some("no folder: set COMPACT_GUARDIAN_DIR or HOME".to_owned()),
        };
        let entries: Vec<Entry> = store.as_ref().map(history::read).unwrap_or_default();
        let unprotected = store.as_ref().map(unprotected).unwrap_or_default();
        // The newest compaction went unprotected (no binary ran for it): not healthy.
        let last_unprotected = unprotected
            .last()
            .is_some_and(|(t, _)| entries.iter().filter(|e| e.save_ran).all(|e| e.time < *t));
        let codex_trust = ask_codex(cfg, &clients);
        let answered = matches!(codex_trust, Some(Trust::Trusted(_) | Trust::Refused { .. }));
        let refused = matches!(codex_trust, Some(Trust::Refused { .. }));
        // Codex runs no hook it was not told to trust: installed so, nothing is protected there.
        // Its own answer, when it gave one, is the truth the records only hint at (D077).
        let untrusted = !answered
            && clients
                .iter()
                .any(|c| !c.installed.is_empty() && c.hooks.is_some_and(|(n, t)| t < n));
        let codex_unhooked = unhooked_codex_compaction(cfg, &clients, codex_trust.as_ref());
        let healthy = problem.is_none()
            && !last_unprotected
            && !untrusted
            && !refused
            && codex_unhooked.as_ref().is_none_or(|u| u.since_protected);
        let last_run = last_run(&entries);
        Report {
            binary,
            clients,
            folder,
            problem,
            entries,
            unprotected,
            healthy,
            last_run,
            codex_trust,
            codex_unhooked,
        }
    }

    fn print_json(&self, cfg: &Config, out: &mut impl Write) -> Result<()> {
        let Report {
            binary,
            clients,
            folder,
            problem,
            entries,
            unprotected,
            ..
        } = self;
        let (save, restore, audit) = self.last_run;
        // Inside OpenCode: its plugin, and the line of OpenCode that loads it (D096).
        let seen = cfg.run_by_opencode.then(|| Seen::gather(cfg).json());
        let v = json!({
            "version": VERSION,
            "binary": binary,
            "opencode": {
                "run_by_opencode": cfg.run_by_opencode,
                "plugin": seen.as_ref().map(|s| s["plugin"].clone()),
                "plugin_version": seen.as_ref().map(|s| s["plugin_version"].clone()),
                "line": seen.as_ref().map(|s| s["line"].clone()),
                "plugin_copies": seen.as_ref().map(|s| s["copies"].clone()),
                "folder": cfg.opencode_dir.as_ref().map(|f| f.to_string_lossy()),
            },
            // A folder whose path is not UTF-8 is shown as the text form shows it (lossily).
            "snapshot_folder": {"path": folder.as_ref().map(|f| f.to_string_lossy()), "usable": problem.is_none(), "problem": problem},
            "last_run": {"save": save, "restore": restore, "audit": audit},
            "ignored_settings": cfg.ignored,
            "compactions": entries.iter().rev().collect::<Vec<_>>(),
            "unprotected": unprotected.iter().rev().map(|(t, why)| json!({"time": t, "why": why})).collect::<Vec<_>>(),
            "clients": clients.iter().map(client_json).collect::<Vec<_>>(),
            "codex_trust": self.codex_trust.as_ref().map(codex_trust_json),
            "codex_compaction_without_hooks": self.codex_unhooked.as_ref().map(|u| json!({"time": u.time, "session": u.session, "protected_since": u.since_protected})),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        Ok(())
    }

    fn print_text(&self, cfg: &Config, out: &mut impl Write) -> Result<()> {
        writeln!(out, "compact-guardian {VERSION} ({})", shown(&self.binary))?;
        if cfg.run_by_opencode {
            Seen::gather(cfg).text(cfg, shown, out)?;
        }
        self.folder_text(out)?;
        for i in &cfg.ignored {
            writeln!(out, "Ignored setting: {}", shown(i))?;
        }
        last_ran_line(cfg, self.last_run, out)?;
        self.history_text(out)?;
        codex_folder(cfg, self.folder.as_ref(), out)?;
        opencode_folder(cfg, self.folder.as_ref(), out)?;
        self.clients_text(out)
    }

    /// The snapshot folder, and whether it can be used.
    fn folder_text(&self, out: &mut impl Write) -> Result<()> {
        match (&self.folder, &self.problem) {
            (Some(f), None) if !f.exists() => writeln!(
                out,
                "Snapshot folder: {} (usable; it is created at the first compaction)",
                shown(&f.display())
            )?,
            (Some(f), None) => writeln!(out, "Snapshot folder: {} (usable)", shown(&f.display()))?,
            (Some(f), Some(p)) => writeln!(
                out,
                "Snapshot folder: {} (NOT usable: {})",
                shown(&f.display()),
                shown(p)
            )?,
            (None, Some(p)) => writeln!(out, "Snapshot folder: NOT usable: {}", shown(p))?,
            (None, None) => {}
        }
        Ok(())
    }

    /// The compactions no binary ran for, then the last compactions, newest first.
    fn history_text(&self, out: &mut impl Write) -> Result<()> {
        if !self.unprotected.is_empty() {
            writeln!(
                out,
                "Compactions NOT protected because no binary ran (newest first):"
            )?;
            for (t, why) in self.unprotected.iter().rev().take(SHOWN) {
                writeln!(out, "- {}: {}", time_of(*t), shown(why))?;
            }
        }
        if self.entries.is_empty() {
            writeln!(out, "No compaction recorded yet.")?;
        } else {
            writeln!(out, "Last compactions (newest first):")?;
            for e in self.entries.iter().rev().take(SHOWN) {
                writeln!(out, "- {}", line(e))?;
            }
        }
        Ok(())
    }

    /// Each client's install, and for Codex whether it trusts the hooks and a compaction it made
    /// without them.
    fn clients_text(&self, out: &mut impl Write) -> Result<()> {
        for c in &self.clients {
            let codex = c.name == "Codex";
            // Codex's own answer replaces the trust records' count, which cannot tell a record
            // Codex still accepts from one it refuses (issue #55: "6 of 6" beside "NOT protected").
            let answered = codex
                && matches!(
                    self.codex_trust,
                    Some(Trust::Trusted(_) | Trust::Refused { .. })
                );
            client_text(c, !answered, out)?;
            if codex {
                codex_trust_text(self.codex_trust.as_ref(), out)?;
                if let Some(u) = &self.codex_unhooked {
                    unhooked_text(u, out)?;
                }
            }
        }
        Ok(())
    }
}

/// The compaction Codex made without the plugin's hooks, and whether anything is still to do.
fn unhooked_text(u: &Unhooked, out: &mut impl Write) -> Result<()> {
    let now = if u.since_protected {
        "; the hooks run again since (Codex trusts them, or a later compaction was protected): nothing to do"
    } else {
        " (Codex refuses the hooks until you approve them again: start `codex` and choose \"Trust all and continue\")"
    };
    writeln!(
        out,
        "- Codex compacted session {} at {} and none of the plugin's hooks ran: that compaction was NOT protected{now}",
        shown(&u.session),
        time_of(u.time)
    )?;
    Ok(())
}

/// When each hook last ran. OpenCode has no hooks of its own name: its plugin runs save before
/// the summary and restore, which audits, after it.
fn last_ran_line(
    cfg: &Config,
    (save, restore, audit): (Option<u64>, Option<u64>, Option<u64>),
    out: &mut impl Write,
) -> Result<()> {
    let when = |t: Option<u64>| t.map_or("never".to_owned(), time_of);
    if cfg.run_by_opencode {
        writeln!(
            out,
            "Plugin last ran: save (before a summary) {}; restore and audit (after it) {}",
            when(save),
            when(restore.max(audit))
        )?;
    } else {
        writeln!(
            out,
            "Hooks last ran: save {}; restore {}; audit {}",
            when(save),
            when(restore),
            when(audit)
        )?;
    }
    Ok(())
}

/// The binary's version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// When save, restore and audit last ran: each hook's own time where the entry has it (older
/// entries have only the compaction's).
fn last_run(entries: &[Entry]) -> (Option<u64>, Option<u64>, Option<u64>) {
    let last = |at: fn(&Entry) -> Option<u64>| entries.iter().filter_map(at).max();
    (
        last(|e| e.save_ran.then_some(e.time)),
        last(|e| {
            e.restored
                .as_ref()
                .map(|_| e.restore_time.unwrap_or(e.time))
        }),
        last(|e| e.audited.then(|| e.audit_time.unwrap_or(e.time))),
    )
}

/// The snapshot folder `status` reports on: the configured one, except that a user who has the
/// plugin in Codex only, and set no folder, is shown Codex's (issue #39: a Codex user was shown
/// Claude Code's folders).
fn shown_folder(cfg: &Config, clients: &[Install]) -> Option<PathBuf> {
    let claude_default = cfg
        .claude_root
        .as_ref()
        .map(|r| r.join(crate::input::config::FOLDER));
    let client = |name: &str| clients.iter().find(|c| c.name == name);
    let installed = |name: &str| client(name).is_some_and(Install::in_use);
    let anything = |name: &str| client(name).is_some_and(Install::anything);
    // Codex's: where the plugin is installed in Codex only, or (uninstalled) only Codex keeps
    // anything of it.
    let codex_only = !installed("Claude Code")
        && (installed("Codex") || (anything("Codex") && !anything("Claude Code")));
    if cfg.dir.is_some() && cfg.dir == claude_default && codex_only {
        return cfg.codex_dir.clone();
    }
    cfg.dir.clone()
}

/// What one client keeps of the plugin, in the text form: installed or not (or loaded from a
/// folder, `--plugin-dir`), the trust records of Codex's hooks when Codex's own answer is not
/// known (`records`), and every file and config entry left (README: Uninstall removes them).
fn client_text(c: &Install, records: bool, out: &mut impl Write) -> Result<()> {
    if !c.anything() {
        return Ok(());
    }
    let state = match (&c.loaded_from, c.installed.is_empty()) {
        (_, false) => format!("installed ({})", shown(&c.installed.join(", "))),
        (Some(root), true) => format!(
            "loaded with --plugin-dir from {} (not installed: each session started with it runs the plugin)",
            shown(&root.display())
        ),
        (None, true) => "not installed; left behind (README: Uninstall removes it)".to_owned(),
    };
    writeln!(out, "{}: {state}", c.name)?;
    if records
        && !c.installed.is_empty()
        && let Some((hooks, trusted)) = c.hooks
    {
        if trusted < hooks {
            writeln!(
                out,
                "- hooks with a trust record: {trusted} of {hooks}: NOT trusted, Codex runs none of them and no compaction is protected; start codex and choose \"Trust all and continue\" (or /hooks, then t)"
            )?;
        } else {
            writeln!(
                out,
                "- hooks with a trust record: {trusted} of {hooks} (Codex asks again after every plugin update: if `codex exec` prints \"hook: PreCompact Failed\", trust them again)"
            )?;
        }
    }
    for (what, path, bytes) in &c.files {
        writeln!(
            out,
            "- {what}: {} ({})",
            shown(&path.display()),
            megabytes(*bytes)
        )?;
    }
    for entry in &c.config_entries {
        writeln!(out, "- {}", shown(entry))?;
    }
    Ok(())
}

/// Codex's own verdict on the plugin's hooks, asked only when Codex has the plugin installed:
/// its trust records alone cannot tell a hook Codex runs from one it refuses (D077).
fn ask_codex(cfg: &Config, clients: &[Install]) -> Option<Trust> {
    let home = cfg.codex_home.as_deref()?;
    clients
        .iter()
        .any(|c| c.name == "Codex" && !c.installed.is_empty())
        .then(|| {
            let cwd = std::env::current_dir().unwrap_or_else(|_| home.to_path_buf());
            codex_trust::ask(home, &cwd)
        })
}

/// The newest compaction Codex wrote into a rollout since it installed the plugin for which no
/// hook of ours ran (issue #47), judged against the history of Codex's snapshot folder
/// (`COMPACT_GUARDIAN_DIR` when set, else `compact-guardian/` in Codex's home); and whether its
/// cause is gone: Codex's own hook list (`trust`) trusts every hook now, or a compaction after
/// it, of any session, was protected (issue #55).
fn unhooked_codex_compaction(
    cfg: &Config,
    clients: &[Install],
    trust: Option<&Trust>,
) -> Option<Unhooked> {
    let home = cfg.codex_home.as_deref()?;
    let codex = clients
        .iter()
        .find(|c| c.name == "Codex" && !c.installed.is_empty())?;
    let claude_default = cfg
        .claude_root
        .as_ref()
        .map(|r| r.join(crate::input::config::FOLDER));
    let folder = if cfg.dir == claude_default {
        cfg.codex_dir.clone()
    } else {
        cfg.dir.clone()
    }?;
    let entries = history::read(&Store::new(folder, cfg.ttl));
    let since = codex_trust::install_time(home, &codex.installed);
    let (time, session) = codex_trust::unhooked_compaction(home, &entries, since)?;
    let later = entries.iter().any(|e| e.save_ran && e.time > time);
    Some(Unhooked {
        time,
        session,
        since_protected: later || matches!(trust, Some(Trust::Trusted(_))),
    })
}

/// The line under Codex's entry that says whether Codex runs the hooks (issue #47).
fn codex_trust_text(trust: Option<&Trust>, out: &mut impl Write) -> Result<()> {
    match trust {
        None => {}
        Some(Trust::Trusted(n)) => writeln!(
            out,
            "- Codex's own hook list: all {n} trusted (Codex runs them; it asks again after every update of the plugin)"
        )?,
        Some(Trust::Refused {
            listed,
            modified: 0,
            untrusted,
        }) => writeln!(
            out,
            "- Codex's own hook list: {untrusted} of {listed} never trusted: NOT protected: Codex runs none of the plugin's hooks until you trust them. Fix: start `codex` and choose \"Trust all and continue\" (or /hooks, then t)"
        )?,
        Some(Trust::Refused {
            listed,
            modified,
            untrusted,
        }) => writeln!(
            out,
            "- Codex's own hook list: {modified} changed since trusted and {untrusted} never trusted, of {listed}: NOT protected: Codex refuses the hooks until you approve them again. Fix: start `codex` and choose \"Trust all and continue\" (or /hooks, then t); a start that installed a new version shows this review only at the next start"
        )?,
        Some(Trust::Unknown(why)) => writeln!(
            out,
            "- Codex's own hook list: not known ({}); a trust record above may be one Codex no longer accepts",
            shown(why)
        )?,
    }
    Ok(())
}

fn codex_trust_json(trust: &Trust) -> serde_json::Value {
    match trust {
        Trust::Trusted(n) => json!({"protected": true, "listed": n, "trusted": n}),
        Trust::Refused {
            listed,
            modified,
            untrusted,
        } => {
            json!({"protected": false, "listed": listed, "modified": modified, "untrusted": untrusted})
        }
        Trust::Unknown(why) => json!({"protected": null, "unknown": why}),
    }
}

/// One client in `status --json` (paths as text, whatever their bytes).
fn client_json(c: &Install) -> serde_json::Value {
    json!({
        "client": c.name,
        "root": c.root.display().to_string(),
        "installed": c.installed,
        "loaded_from": c.loaded_from.as_ref().map(|p| p.display().to_string()),
        "hooks": c.hooks.map(|(hooks, trusted)| json!({"listed": hooks, "trusted": trusted})),
        "files": c.files.iter().map(|(what, p, bytes)| json!({"what": what, "path": p.display().to_string(), "bytes": bytes})).collect::<Vec<_>>(),
        "config_entries": c.config_entries,
    })
}

/// A size for people: "12 KB", "90.2 MB".
fn megabytes(bytes: u64) -> String {
    if bytes < 1_000_000 {
        format!("{} KB", bytes.div_ceil(1_000))
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// OpenCode sessions keep their folder under OpenCode's data folder: outside OpenCode, when that
/// is not the folder shown and holds a history, one line says where it is and how to see it.
fn opencode_folder(cfg: &Config, shown_dir: Option<&PathBuf>, out: &mut impl Write) -> Result<()> {
    let Some(dir) = cfg
        .opencode_dir
        .as_ref()
        .filter(|d| !cfg.run_by_opencode && Some(*d) != shown_dir)
    else {
        return Ok(());
    };
    let n = history::read(&Store::new(dir.clone(), cfg.ttl)).len();
    if n > 0 {
        writeln!(
            out,
            "OpenCode sessions: {n} compactions recorded in {} (OPENCODE=1 compact-guardian status shows them)",
            shown(&dir.display())
        )?;
    }
    Ok(())
}

/// Codex sessions keep their folder under Codex's home: when that is not the folder shown and
/// holds a history, one line says where it is and how to see it.
fn codex_folder(cfg: &Config, shown_dir: Option<&PathBuf>, out: &mut impl Write) -> Result<()> {
    let Some(codex) = cfg.codex_dir.as_ref().filter(|d| Some(*d) != shown_dir) else {
        return Ok(());
    };
    let n = history::read(&Store::new(codex.clone(), cfg.ttl)).len();
    if n > 0 {
        writeln!(
            out,
            "Codex sessions: {n} compactions recorded in {} (COMPACT_GUARDIAN_DIR={} compact-guardian status shows them)",
            shown(&codex.display()),
            shown(&codex.display())
        )?;
    }
    Ok(())
}

/// The compactions the launcher found no binary for (`compact-guardian-unprotected.log`, one
/// `<epoch> <why>` line each, oldest first), as far as the file can be read.
fn unprotected(store: &Store) -> Vec<(u64, String)> {
    let Some(bytes) = store.read_file(UNPROTECTED_LOG, 16 * 1024) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| {
            let (t, why) = l.split_once(' ')?;
            Some((t.parse().ok()?, why.to_owned()))
        })
        .collect()
}

/// The file the launcher notes unprotected compactions in (`bin/compact-guardian`).
pub const UNPROTECTED_LOG: &str = "compact-guardian-unprotected.log";

/// A time from the history (any number: the file may be damaged or planted), never a panic.
fn time_of(secs: u64) -> String {
    UNIX_EPOCH
        .checked_add(Duration::from_secs(secs))
        .filter(|t| {
            t.duration_since(UNIX_EPOCH)
                .is_ok_and(|d| d.as_secs() < 253_402_300_800)
        })
        .map_or_else(|| format!("an impossible time ({secs})"), format_utc)
}

/// Text from the history file, the hook input or the environment as a terminal may show it:
/// control characters (escape sequences) dropped, invisible ones shown, one bounded line.
fn shown(s: &(impl std::fmt::Display + ?Sized)) -> String {
    folded_line(&s.to_string(), 300)
}

/// One compaction in a line.
fn line(e: &Entry) -> String {
    let mut parts = vec![format!(
        "{}{}",
        time_of(e.time),
        e.trigger
            .as_deref()
            .map(|t| format!(" ({})", folded_line(t, 20)))
            .unwrap_or_default()
    )];
    parts.push(format!("session {}", folded_line(&e.session, 8)));
    parts.push(match (e.save_ran, e.saved) {
        (true, true) => format!(
            "saved a {}-character snapshot in {} ms ({:.1} MB read)",
            e.snapshot_units,
            e.save_ms,
            e.scanned_bytes as f64 / 1e6
        ),
        (true, false) => "nothing to save".into(),
        (false, _) => "NOT saved (PreCompact did not run)".into(),
    });
    parts.push(match e.restored {
        Some(Outcome::Snapshot) => "snapshot restored".into(),
        Some(Outcome::Rebuilt) => "rebuilt and restored".into(),
        Some(Outcome::Nothing | Outcome::Unknown) => "NOT restored".into(),
        None => "restore did not run".into(),
    });
    if e.audited {
        parts.push(format!(
            "summary: {} of {} open items called done, {} not mentioned{}",
            e.called_done,
            e.open_items,
            e.not_mentioned,
            match e.latest_kept {
                Some(false) => ", latest instruction left out",
                _ => "",
            }
        ));
    }
    if e.corrections > 0 {
        parts.push(format!(
            "{} correction{} for the model, {}",
            e.corrections,
            if e.corrections == 1 { "" } else { "s" },
            if e.corrected_time.is_some() {
                "handed over"
            } else {
                "not handed over yet"
            }
        ));
    }
    parts.join("; ")
}
