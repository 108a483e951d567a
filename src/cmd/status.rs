//! `status`: is it working? The binary in use, the snapshot folder, when each hook last ran, and
//! the last compactions with what was protected and what the summary dropped (issue #19).

use crate::config::Config;
use crate::history::{self, Entry, Outcome};
use crate::store::Store;
use crate::text::{folded_line, format_utc};
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

/// How many compactions the text form lists.
const SHOWN: usize = 10;

/// Prints the status as text, or as JSON with `json`. `Ok(false)` when compactions are not
/// protected (the snapshot folder cannot be used, or the newest compaction found no binary): the
/// command then exits 1, as a health check.
pub fn status(cfg: &Config, json: bool, out: &mut impl Write) -> Result<bool> {
    let binary = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let version = env!("CARGO_PKG_VERSION");
    let store = cfg.dir.as_ref().map(|d| Store::new(d.clone(), cfg.ttl));
    let folder = cfg.dir.clone();
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
    let healthy = problem.is_none() && !last_unprotected;
    // When each hook last ran: its own time where the entry has it (older entries have only
    // the compaction's).
    let last = |at: fn(&Entry) -> Option<u64>| entries.iter().filter_map(at).max();
    let (save, restore, audit) = (
        last(|e| e.save_ran.then_some(e.time)),
        last(|e| {
            e.restored
                .as_ref()
                .map(|_| e.restore_time.unwrap_or(e.time))
        }),
        last(|e| e.audited.then(|| e.audit_time.unwrap_or(e.time))),
    );
    if json {
        let v = json!({
            "version": version,
            "binary": binary,
            "snapshot_folder": {"path": folder, "usable": problem.is_none(), "problem": problem},
            "last_run": {"save": save, "restore": restore, "audit": audit},
            "ignored_settings": cfg.ignored,
            "compactions": entries.iter().rev().collect::<Vec<_>>(),
            "unprotected": unprotected.iter().rev().map(|(t, why)| json!({"time": t, "why": why})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(healthy);
    }
    writeln!(out, "compact-guardian {version} ({})", shown(&binary))?;
    match (&folder, &problem) {
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
    for i in &cfg.ignored {
        writeln!(out, "Ignored setting: {}", shown(i))?;
    }
    let when = |t: Option<u64>| t.map_or("never".to_owned(), time_of);
    writeln!(
        out,
        "Hooks last ran: save {}; restore {}; audit {}",
        when(save),
        when(restore),
        when(audit)
    )?;
    if !unprotected.is_empty() {
        writeln!(
            out,
            "Compactions NOT protected because no binary ran (newest first):"
        )?;
        for (t, why) in unprotected.iter().rev().take(SHOWN) {
            writeln!(out, "- {}: {}", time_of(*t), shown(why))?;
        }
    }
    if entries.is_empty() {
        writeln!(out, "No compaction recorded yet.")?;
        codex_folder(cfg, out)?;
        return Ok(healthy);
    }
    writeln!(out, "Last compactions (newest first):")?;
    for e in entries.iter().rev().take(SHOWN) {
        writeln!(out, "- {}", line(e))?;
    }
    codex_folder(cfg, out)?;
    Ok(healthy)
}

/// Codex sessions keep their folder under Codex's home: when that is not the folder shown and
/// holds a history, one line says where it is and how to see it.
fn codex_folder(cfg: &Config, out: &mut impl Write) -> Result<()> {
    let Some(codex) = cfg
        .codex_dir
        .as_ref()
        .filter(|d| Some(*d) != cfg.dir.as_ref())
    else {
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
