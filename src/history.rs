//! The last compactions, for `compact-guardian status` (issue #19): a small JSON file in the
//! snapshot folder, `compact-guardian-history.json`, private (0600, written by rename), never
//! more than [`MAX_ENTRIES`] entries, and no prompt text or file name in it: times, the session
//! id, the trigger, what was saved and restored, sizes, durations and the audit's counts. A
//! corrupt or foreign file is replaced, never fatal. Each hook updates its compaction's entry:
//! `save` adds it, `restore` and the PostCompact audit complete it. Two sessions compacting in
//! the same instant may lose one update (the last writer wins): it is a log, not a ledger.

use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// The history file's name in the snapshot folder.
pub const FILE: &str = "compact-guardian-history.json";
/// How many compactions are kept.
pub const MAX_ENTRIES: usize = 50;
/// The largest history file read (50 entries take a few KB).
const MAX_BYTES: u64 = 256 * 1024;
/// How long after a save its restore and audit still belong to it.
const SAME_COMPACTION_SECS: u64 = 15 * 60;

/// One compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Entry {
    /// When `save` ran (or the first hook that saw this compaction), seconds since the epoch.
    pub time: u64,
    /// The session id (as the hook gave it, at most 128 characters).
    pub session: String,
    /// `manual` or `auto`.
    pub trigger: Option<String>,
    /// Whether `save` ran.
    pub save_ran: bool,
    /// Whether `save` wrote a snapshot.
    pub saved: bool,
    /// The snapshot's size in UTF-16 units.
    pub snapshot_units: usize,
    /// How long `save` took.
    pub save_ms: u64,
    /// How much of the transcript `save` read.
    pub scanned_bytes: u64,
    /// `snapshot`, `rebuilt`, `nothing` (restore ran, handed nothing over), or absent.
    pub restored: Option<String>,
    /// How long `restore` took.
    pub restore_ms: Option<u64>,
    /// Whether the PostCompact audit ran.
    pub audited: bool,
    /// Open items protected.
    pub open_items: usize,
    /// Open items the summary called done.
    pub called_done: usize,
    /// Open items the summary did not mention.
    pub not_mentioned: usize,
    /// Whether the summary kept the latest instruction.
    pub latest_kept: Option<bool>,
    /// Whether the summary kept the approved plan.
    pub plan_kept: Option<bool>,
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The entries, oldest first; an unreadable file reads as none.
pub fn read(store: &Store) -> Vec<Entry> {
    store
        .read_file(FILE, MAX_BYTES)
        .and_then(|b| serde_json::from_slice::<Vec<Entry>>(&b).ok())
        .unwrap_or_default()
}

/// Whether a hook run starts a compaction's entry or completes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `save` (PreCompact): a new entry, unless the session's recent entry is still waiting for
    /// its restore and audit (the same compaction's PreCompact, run again).
    Save,
    /// `restore` and `audit`: complete the session's recent entry (a new one when there is none).
    Complete,
}

/// Updates the entry of `session`'s latest compaction with `update` (see [`Step`]), keeps the
/// last [`MAX_ENTRIES`], writes the file back, and returns the entry as it was before the update
/// (`None` for a new entry): what the earlier hooks of this compaction recorded.
pub fn record(
    store: &Store,
    session: &str,
    step: Step,
    update: impl FnOnce(&mut Entry),
) -> anyhow::Result<Option<Entry>> {
    let mut entries = read(store);
    let session: String = session.chars().take(128).collect();
    let now = now();
    let recent = entries
        .iter()
        .rposition(|e| e.session == session && now.saturating_sub(e.time) <= SAME_COMPACTION_SECS);
    let open = |e: &Entry| e.save_ran && e.restored.is_none() && !e.audited;
    let (index, before) = match recent {
        Some(i) if step == Step::Complete || open(&entries[i]) => (i, Some(entries[i].clone())),
        _ => {
            entries.push(Entry {
                time: now,
                session,
                ..Entry::default()
            });
            (entries.len() - 1, None)
        }
    };
    update(&mut entries[index]);
    let keep_from = entries.len().saturating_sub(MAX_ENTRIES);
    let bytes = serde_json::to_vec_pretty(&entries[keep_from..])?;
    store.write_file(FILE, &bytes)?;
    Ok(before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("snaps"), Duration::from_secs(600));
        (dir, store)
    }

    #[test]
    fn hooks_complete_one_entry_per_compaction() {
        let (_d, s) = store();
        record(&s, "s1", Step::Save, |e| {
            e.save_ran = true;
            e.saved = true
        })
        .unwrap();
        let before = record(&s, "s1", Step::Complete, |e| {
            e.restored = Some("snapshot".into())
        })
        .unwrap();
        assert!(before.is_some_and(|e| e.saved), "what save recorded");
        record(&s, "s2", Step::Complete, |e| {
            e.restored = Some("rebuilt".into())
        })
        .unwrap();
        let all = read(&s);
        assert_eq!(all.len(), 2);
        assert!(all[0].saved && all[0].restored.as_deref() == Some("snapshot"));
        assert!(!all[1].save_ran && all[1].restored.as_deref() == Some("rebuilt"));
    }

    #[test]
    fn a_repeated_precompact_is_one_compaction_a_later_one_is_another() {
        let (_d, s) = store();
        let save = |e: &mut Entry| e.save_ran = true;
        record(&s, "s1", Step::Save, save).unwrap();
        record(&s, "s1", Step::Save, save).unwrap(); // the same PreCompact, run twice
        assert_eq!(read(&s).len(), 1);
        record(&s, "s1", Step::Complete, |e| e.audited = true).unwrap();
        record(&s, "s1", Step::Save, save).unwrap(); // the next compaction
        assert_eq!(read(&s).len(), 2);
    }

    #[test]
    fn never_more_than_fifty_entries() {
        let (_d, s) = store();
        for i in 0..80 {
            record(&s, &format!("s{i}"), Step::Save, |_| {}).unwrap();
        }
        let all = read(&s);
        assert_eq!(all.len(), MAX_ENTRIES);
        assert_eq!(all.last().unwrap().session, "s79");
    }

    #[test]
    fn a_corrupt_history_is_replaced() {
        let (_d, s) = store();
        s.write_file(FILE, b"{not json").unwrap();
        assert!(read(&s).is_empty());
        record(&s, "s1", Step::Save, |e| e.saved = true).unwrap();
        assert_eq!(read(&s).len(), 1);
    }
}
