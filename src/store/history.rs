//! The last compactions, for `compact-guardian status` (issue #19): a small JSON file in the
//! snapshot folder, `compact-guardian-history.json`, private (0600, written by rename), never
//! more than [`MAX_ENTRIES`] entries, and no prompt text or file name in it: times, the session
//! id, the trigger, what was saved and restored, sizes, durations and the audit's counts. A
//! corrupt or foreign file is replaced, never fatal. Each hook updates its compaction's entry:
//! `save` adds it, `restore` and the PostCompact audit complete it. Each read-modify-write holds
//! [`LOCK_FILE`] (an OS file lock, released however the holder ends), so hooks of parallel
//! compactions never lose each other's updates. The history is a convenience (D041): a hook
//! waits for the lock while other hooks hand it on, at most its store's wait ([`LOCK_WAIT`] at
//! the default budget) and never so long that the watchdog could end it before its output; a
//! lock held by something that does not let go is not waited for. Without the lock it writes
//! anyway rather than hold up the session.

/// Seconds since the epoch (the clock lives in `platform`; every command reads it here).
pub(crate) use crate::platform::now;
use crate::store::{DEFERRED_TTL, Store};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The history file's name in the snapshot folder.
pub const FILE: &str = "compact-guardian-history.json";
/// The lock file that orders updates of [`FILE`].
pub const LOCK_FILE: &str = "compact-guardian-history.lock";
/// How long a hook waits for the history lock at the default budget (a hook's store waits its
/// budget plus 2 s: [`crate::input::config::Config::lock_wait`]), and never past its deadline: a write
/// takes about a millisecond, so this is reached only when hundreds of hooks queue at once, or
/// when something holds the lock and does not let go.
pub const LOCK_WAIT: Duration = Duration::from_millis(4_000);
/// How many compactions are kept.
pub const MAX_ENTRIES: usize = 50;
/// The most entries kept while compactions are still in flight (their restore or audit to come).
pub const MAX_IN_FLIGHT: usize = 4 * MAX_ENTRIES;
/// The largest history file read (200 entries take under 100 KB).
const MAX_BYTES: u64 = 256 * 1024;
/// How long after a save its restore and audit still belong to it.
const SAME_COMPACTION_SECS: u64 = 15 * 60;

/// What a restore handed the model, as the history keeps it (`"snapshot"`, `"rebuilt"`,
/// `"nothing"` in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The saved snapshot.
    Snapshot,
    /// A context rebuilt from the transcript.
    Rebuilt,
    /// Nothing (restore ran and had nothing to hand over).
    Nothing,
    /// A value this version does not know (a newer version's, or a damaged file's).
    #[serde(other)]
    Unknown,
}

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
    /// What restore handed the model, or absent (it did not run).
    pub restored: Option<Outcome>,
    /// When `restore` last ran for this compaction.
    pub restore_time: Option<u64>,
    /// How long `restore` took.
    pub restore_ms: Option<u64>,
    /// Why restore had no saved snapshot to print (when it did not).
    pub rebuilt_because: Option<crate::render::WhyRebuilt>,
    /// Whether the PostCompact audit ran.
    pub audited: bool,
    /// When the audit last ran for this compaction.
    pub audit_time: Option<u64>,
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
    /// Corrections of the summary found for the model (see [`crate::corrections`]).
    pub corrections: usize,
    /// When the corrections reached the model (with the snapshot, or by the `correct` hook).
    pub corrected_time: Option<u64>,
    /// The client restores later (Codex, at its next turn): a restore up to [`DEFERRED_TTL`]
    /// after the compaction is still this compaction's.
    pub deferred: bool,
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
    /// `restore` and `audit`: complete the session's recent entry, or the one whose restore its
    /// client deferred (a new one when there is none).
    Complete,
    /// `correct`: the session's entry whose corrections wait for the model, however long ago it
    /// was made (none: nothing is written, never a new entry).
    Deliver,
}

/// Updates the entry of `session`'s latest compaction with `update` (see [`Step`]), keeps the
/// last [`MAX_ENTRIES`], writes the file back, and returns the entry as it was before the update
/// (`None` for a new entry): what the earlier hooks of this compaction recorded. `deadline` is
/// the hook's budget: the lock is waited for until a second before the watchdog's limit after it.
pub fn record(
    store: &Store,
    session: &str,
    step: Step,
    deadline: Instant,
    update: impl FnOnce(&mut Entry),
) -> anyhow::Result<Option<Entry>> {
    // The watchdog ends a hook `HARD_LIMIT_MARGIN` after its budget: the wait ends a second
    // before that, so what the hook prints after it (the audit's line) always comes out.
    let limit =
        deadline + crate::input::config::HARD_LIMIT_MARGIN.saturating_sub(Duration::from_secs(1));
    let wait = limit
        .saturating_duration_since(Instant::now())
        .min(store.lock_wait());
    let _held = store.lock(LOCK_FILE, wait);
    let mut entries = read(store);
    let session: String = session.chars().take(128).collect();
    let now = now();
    let (index, before) = match (find(&entries, &session, step, now), step) {
        (Some(i), _) => (i, Some(entries[i].clone())),
        (None, Step::Deliver) => return Ok(None),
        (None, _) => {
            entries.push(Entry {
                time: now,
                session,
                ..Entry::default()
            });
            (entries.len() - 1, None)
        }
    };
    update(&mut entries[index]);
    trim(&mut entries, now);
    let bytes = serde_json::to_vec(&entries)?;
    store.write_file(FILE, &bytes)?;
    Ok(before)
}

/// The entry a hook run of `session` at `now` belongs to, if it has one (see [`Step`]).
fn find(entries: &[Entry], session: &str, step: Step, now: u64) -> Option<usize> {
    let age = |e: &Entry| now.saturating_sub(e.time);
    let newest =
        |f: &dyn Fn(&Entry) -> bool| entries.iter().rposition(|e| e.session == session && f(e));
    let recent = newest(&|e| age(e) <= SAME_COMPACTION_SECS);
    let open = |e: &Entry| e.save_ran && e.restored.is_none() && !e.audited;
    match step {
        Step::Save => recent.filter(|&i| open(&entries[i])),
        Step::Complete => recent.or_else(|| {
            newest(&|e| e.deferred && e.restored.is_none() && age(e) <= DEFERRED_TTL.as_secs())
        }),
        Step::Deliver => newest(&|e| {
            e.corrections > 0 && e.corrected_time.is_none() && age(e) <= DEFERRED_TTL.as_secs()
        }),
    }
}

/// Keeps the last [`MAX_ENTRIES`]: the oldest finished entries go first, so a compaction whose
/// restore or audit is still to come keeps its entry however many others start meanwhile (up
/// to [`MAX_IN_FLIGHT`] entries in all).
fn trim(entries: &mut Vec<Entry>, now: u64) {
    let in_flight = |e: &Entry| {
        now.saturating_sub(e.time) <= SAME_COMPACTION_SECS && !(e.restored.is_some() && e.audited)
    };
    while entries.len() > MAX_ENTRIES {
        match entries.iter().position(|e| !in_flight(e)) {
            Some(i) => {
                entries.remove(i);
            }
            None if entries.len() > MAX_IN_FLIGHT => {
                entries.remove(0);
            }
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("snaps"), Duration::from_secs(600));
        (dir, store)
    }

    #[test]
    fn hooks_complete_one_entry_per_compaction() {
        let (_d, s) = store();
        record(&s, "s1", Step::Save, later(), |e| {
            e.save_ran = true;
            e.saved = true
        })
        .unwrap();
        let before = record(&s, "s1", Step::Complete, later(), |e| {
            e.restored = Some(Outcome::Snapshot)
        })
        .unwrap();
        assert!(before.is_some_and(|e| e.saved), "what save recorded");
        record(&s, "s2", Step::Complete, later(), |e| {
            e.restored = Some(Outcome::Rebuilt)
        })
        .unwrap();
        let all = read(&s);
        assert_eq!(all.len(), 2);
        assert!(all[0].saved && all[0].restored == Some(Outcome::Snapshot));
        assert!(!all[1].save_ran && all[1].restored == Some(Outcome::Rebuilt));
    }

    #[test]
    fn a_repeated_precompact_is_one_compaction_a_later_one_is_another() {
        let (_d, s) = store();
        let save = |e: &mut Entry| e.save_ran = true;
        record(&s, "s1", Step::Save, later(), save).unwrap();
        record(&s, "s1", Step::Save, later(), save).unwrap(); // the same PreCompact, run twice
        assert_eq!(read(&s).len(), 1);
        record(&s, "s1", Step::Complete, later(), |e| e.audited = true).unwrap();
        record(&s, "s1", Step::Save, later(), save).unwrap(); // the next compaction
        assert_eq!(read(&s).len(), 2);
    }

    #[test]
    fn fifty_finished_entries_and_no_compaction_in_flight_dropped() {
        let (_d, s) = store();
        let save = |e: &mut Entry| e.save_ran = true;
        for i in 0..80 {
            record(&s, &format!("s{i}"), Step::Save, later(), save).unwrap();
        }
        // 80 compactions in flight: none loses its entry before its restore and audit.
        assert_eq!(read(&s).len(), 80);
        for i in 0..80 {
            record(&s, &format!("s{i}"), Step::Complete, later(), |e| {
                e.restored = Some(Outcome::Snapshot);
                e.audited = true;
            })
            .unwrap();
        }
        let all = read(&s);
        assert_eq!(all.len(), MAX_ENTRIES);
        assert!(all.iter().all(|e| e.save_ran && e.audited));
        assert_eq!(all.last().unwrap().session, "s79");
        // However many start at once, the file stays bounded.
        for i in 0..300 {
            record(&s, &format!("t{i}"), Step::Save, later(), save).unwrap();
        }
        assert_eq!(read(&s).len(), MAX_IN_FLIGHT);
    }

    #[test]
    fn a_corrupt_history_is_replaced() {
        let (_d, s) = store();
        s.write_file(FILE, b"{not json").unwrap();
        assert!(read(&s).is_empty());
        record(&s, "s1", Step::Save, later(), |e| e.saved = true).unwrap();
        assert_eq!(read(&s).len(), 1);
    }

    #[test]
    fn a_restore_outcome_this_version_does_not_know_keeps_the_history_readable() {
        let entries: Vec<Entry> = serde_json::from_str(
            r#"[{"time":1,"session":"a","restored":"teleported"},{"time":2,"session":"b","restored":"snapshot"}]"#,
        )
        .unwrap();
        assert_eq!(entries[0].restored, Some(Outcome::Unknown));
        assert_eq!(entries[1].restored, Some(Outcome::Snapshot));
        assert_eq!(
            serde_json::to_value(&entries[1]).unwrap()["restored"],
            "snapshot",
            "the file keeps its words"
        );
    }

    #[test]
    fn a_deferred_restore_completes_its_compaction_however_late_it_comes() {
        // Issue #41 item 5: Codex restores at its next turn; an hour later the restore made a
        // phantom entry and left the real one "restore did not run".
        let (_d, s) = store();
        record(&s, "c1", Step::Save, later(), |e| e.save_ran = true).unwrap();
        record(&s, "c1", Step::Complete, later(), |e| {
            e.audited = true;
            e.deferred = true;
        })
        .unwrap();
        let mut entries = read(&s);
        entries[0].time -= 6 * 3600;
        s.write_file(FILE, &serde_json::to_vec(&entries).unwrap())
            .unwrap();
        let before = record(&s, "c1", Step::Complete, later(), |e| {
            e.restored = Some(Outcome::Snapshot)
        })
        .unwrap();
        assert!(before.is_some_and(|e| e.save_ran && e.audited));
        assert_eq!(read(&s).len(), 1);
        // A Claude Code compaction an hour old is another compaction's.
        record(&s, "s1", Step::Save, later(), |e| e.save_ran = true).unwrap();
        let mut entries = read(&s);
        entries[1].time -= 3600;
        s.write_file(FILE, &serde_json::to_vec(&entries).unwrap())
            .unwrap();
        record(&s, "s1", Step::Complete, later(), |e| {
            e.restored = Some(Outcome::Rebuilt)
        })
        .unwrap();
        assert_eq!(read(&s).len(), 3);
    }

    #[test]
    fn a_hand_over_completes_the_entry_it_belongs_to_and_never_starts_one() {
        let (_d, s) = store();
        assert_eq!(
            record(&s, "s1", Step::Deliver, later(), |_| panic!("no entry")).unwrap(),
            None
        );
        assert!(read(&s).is_empty());
        record(&s, "s1", Step::Save, later(), |e| e.save_ran = true).unwrap();
        record(&s, "s1", Step::Complete, later(), |e| e.corrections = 2).unwrap();
        let mut entries = read(&s);
        entries[0].time -= 2 * 24 * 3600; // the user came back two days later
        s.write_file(FILE, &serde_json::to_vec(&entries).unwrap())
            .unwrap();
        record(&s, "s1", Step::Deliver, later(), |e| {
            e.corrected_time = Some(1)
        })
        .unwrap();
        let all = read(&s);
        assert_eq!((all.len(), all[0].corrected_time), (1, Some(1)));
    }

    #[test]
    fn a_lock_that_is_never_let_go_is_not_waited_for() {
        // Issue #41 item 7: a held lock cost every hook 4 s whatever its budget.
        let (_d, s) = store();
        let held = s.lock(LOCK_FILE, Duration::ZERO).expect("the lock");
        // Taken long ago, as a hung process or another program would hold it.
        held.set_modified(SystemTime::now() - Duration::from_secs(10))
            .unwrap();
        record(&s, "s1", Step::Save, later(), |e| e.save_ran = true).unwrap();
        assert_eq!(read(&s).len(), 1, "written without the lock");
        drop(held);
    }
}
