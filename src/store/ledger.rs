//! A session's ledger of tool-call outcomes as its hooks were told them ([`ReportedCall`], issue #46,
//! D083): `correct` adds one line after each command or edit, and `save`, `restore` and the
//! audit read the last ones, so the last result is known even before the transcript holds it.
//!
//! One hidden file per session (so the TTL sweep removes it once the session is quiet), private,
//! opened for appending without following links: each outcome is one `write` of one line, so
//! parallel tool calls' hooks never interleave their lines. It is the one file of the folder
//! written in place, so it is never written through a second hard link either (a hard-link
//! backup would have its copy changed, a planted link would take commands and their output
//! elsewhere): such a ledger is moved aside, never written, and a new one begun (issue #55).
//! Past [`MAX_LEDGER`] bytes the file is moved aside (the one before is dropped), so the ledger
//! never holds more than about twice that. Appending and moving aside happen under one lock
//! ([`LEDGER_LOCK`]): of two hooks that find it full only one moves it aside, and none moves a
//! younger file over the one just moved, which dropped up to [`MAX_LEDGER`] bytes of outcomes
//! before (D090).

use super::{HIDDEN_PREFIX, Snapshots, read_ours};
use crate::platform;
use crate::read::reported::ReportedCall;
use anyhow::{Context, Result};
use std::io::Write;
use std::time::Duration;

/// The size past which the ledger is moved aside: a few dozen outcomes of long output.
const MAX_LEDGER: u64 = 64 * 1024;
/// How many of the newest outcomes are read back: more than any window of calls the transcript
/// writer leaves unwritten.
pub const MAX_OUTCOMES: usize = 32;
/// The lock the ledgers are appended and moved aside under: one for the folder, held for one
/// write of a line.
pub const LEDGER_LOCK: &str = "compact-guardian-ledger.lock";
/// The longest a hook waits for [`LEDGER_LOCK`]. Held for a write, it is only held this long
/// by a holder that is stuck; without it the line is still added (an append is one write) but
/// nothing is moved aside, which the next hook that has the lock does.
const LEDGER_LOCK_WAIT: Duration = Duration::from_secs(1);

impl Snapshots {
    /// The ledger's file name, and that of the one moved aside.
    fn ledger_names(&self) -> [String; 2] {
        let id = self.id();
        [
            format!("{HIDDEN_PREFIX}calls-{id}.old.jsonl"),
            format!("{HIDDEN_PREFIX}calls-{id}.jsonl"),
        ]
    }

    /// Adds `outcome` to this session's ledger.
    pub(crate) fn record_call(&self, outcome: &ReportedCall) -> Result<()> {
        self.store.ensure_dir()?;
        let [old, current] = self.ledger_names().map(|n| self.store.dir.join(n));
        let mut line = serde_json::to_vec(outcome)?;
        line.push(b'\n');
        let wait = self.store.lock_wait().min(LEDGER_LOCK_WAIT);
        let held = self.store.lock(LEDGER_LOCK, wait);
        let move_aside = || {
            std::fs::rename(&current, &old)
                .with_context(|| format!("could not move {} aside", current.display()))
        };
        let open = || {
            platform::append_no_follow(&current)
                .with_context(|| format!("could not open {}", current.display()))
        };
        let mut file = match open() {
            // Another hard link: moved aside unwritten (its other names keep what they had,
            // and it is still read back), then a new ledger. Only under the lock, like any
            // move aside.
            Err(_) if held.is_some() && platform::has_other_links(&current) => {
                move_aside()?;
                open()?
            }
            opened => opened?,
        };
        file.write_all(&line)
            .with_context(|| format!("could not write {}", current.display()))?;
        if held.is_some() && file.metadata().is_ok_and(|m| m.len() > MAX_LEDGER) {
            move_aside()?;
        }
        Ok(())
    }

    /// The newest [`MAX_OUTCOMES`] outcomes of this session, oldest first. Lines that do not
    /// read (cut by a full disk, written by another version) are skipped.
    pub(crate) fn reported_calls(&self) -> Vec<ReportedCall> {
        let mut outcomes: Vec<ReportedCall> = self
            .ledger_names()
            .iter()
            .filter_map(|n| read_ours(&self.store.dir.join(n), 4 * MAX_LEDGER))
            .flat_map(|bytes| {
                bytes
                    .split(|&b| b == b'\n')
                    .filter_map(|l| serde_json::from_slice::<ReportedCall>(l).ok())
                    .collect::<Vec<_>>()
            })
            .collect();
        let extra = outcomes.len().saturating_sub(MAX_OUTCOMES);
        outcomes.drain(..extra);
        outcomes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use std::collections::BTreeMap;
    use std::time::Duration;

    fn outcome(i: usize, output_len: usize) -> ReportedCall {
        ReportedCall {
            at: i as u64,
            id: format!("toolu_{i}"),
            tool: "Bash".into(),
            input: BTreeMap::from([("command".into(), format!("make {i}"))]),
            failed: i % 2 == 1,
            output: "x".repeat(output_len),
            running: false,
            unstated: false,
        }
    }

    #[test]
    fn outcomes_come_back_oldest_first_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let snaps = Store::new(dir.path(), Duration::from_secs(600)).session("s1");
        assert!(snaps.reported_calls().is_empty());
        for i in 0..100 {
            snaps.record_call(&outcome(i, 1500)).unwrap();
        }
        let back = snaps.reported_calls();
        assert_eq!(back.len(), MAX_OUTCOMES);
        assert_eq!(back.last(), Some(&outcome(99, 1500)));
        assert!(back.windows(2).all(|w| w[0].at < w[1].at));
        let on_disk: u64 = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(on_disk <= 2 * MAX_LEDGER + 4096, "{on_disk}");
        // Another session's ledger is its own.
        let other = Store::new(dir.path(), Duration::from_secs(600)).session("s2");
        assert!(other.reported_calls().is_empty());
    }

    #[test]
    fn a_damaged_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let snaps = Store::new(dir.path(), Duration::from_secs(600)).session("s");
        snaps.record_call(&outcome(1, 10)).unwrap();
        let [_, current] = snaps.ledger_names().map(|n| dir.path().join(n));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&current)
            .unwrap();
        f.write_all(b"{\"at\":2,\"id\":\"cut sho\n").unwrap();
        snaps.record_call(&outcome(3, 10)).unwrap();
        assert_eq!(snaps.reported_calls(), [outcome(1, 10), outcome(3, 10)]);
    }

    /// Issue #55: a hard link to the ledger (a `cp -al` backup, or one planted to a file
    /// elsewhere) is never written through: the ledger is moved aside and a new one begun.
    #[cfg(unix)]
    #[test]
    fn a_ledger_with_another_hard_link_is_moved_aside_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let snaps = Store::new(dir.path(), Duration::from_secs(600)).session("s");
        snaps.record_call(&outcome(1, 10)).unwrap();
        let [old, current] = snaps.ledger_names().map(|n| dir.path().join(n));
        let backup = dir.path().join("backup.jsonl");
        std::fs::hard_link(&current, &backup).unwrap();
        let before = std::fs::read(&backup).unwrap();
        snaps.record_call(&outcome(2, 10)).unwrap();
        snaps.record_call(&outcome(3, 10)).unwrap();
        assert_eq!(
            std::fs::read(&backup).unwrap(),
            before,
            "the backup changed"
        );
        assert!(old.exists() && !platform::has_other_links(&current));
        assert_eq!(
            snaps.reported_calls(),
            [outcome(1, 10), outcome(2, 10), outcome(3, 10)]
        );
    }

    /// Issue #55: a full ledger is moved aside only under [`LEDGER_LOCK`]: of two hooks that
    /// find it full, the second would move a younger ledger over the one the first moved.
    #[test]
    fn a_full_ledger_is_moved_aside_only_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path(), Duration::from_secs(600)).with_lock_wait(Duration::ZERO);
        let snaps = store.session("s");
        let [old, current] = snaps.ledger_names().map(|n| dir.path().join(n));
        let held = store.lock(LEDGER_LOCK, Duration::ZERO).expect("the lock");
        for i in 0..60 {
            snaps.record_call(&outcome(i, 1500)).unwrap();
        }
        assert!(!old.exists(), "moved aside without the lock");
        assert_eq!(snaps.reported_calls().len(), MAX_OUTCOMES);
        drop(held);
        snaps.record_call(&outcome(60, 1500)).unwrap();
        assert!(old.exists() && !current.exists(), "moved aside once had");
        assert_eq!(snaps.reported_calls().last(), Some(&outcome(60, 1500)));
    }

    /// Issue #55: appenders at once lose no outcome but the oldest: what is read back of each
    /// writer is the newest of its own, without a gap (a race of two moves aside dropped a
    /// whole ledger from the middle).
    #[test]
    fn appenders_at_once_lose_only_the_oldest_outcomes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path(), Duration::from_secs(600));
        let (writers, each) = (6, 150);
        std::thread::scope(|scope| {
            for w in 0..writers {
                let snaps = store.session("s");
                scope.spawn(move || {
                    for i in 0..each {
                        snaps.record_call(&outcome(w * 1000 + i, 1500)).unwrap();
                    }
                });
            }
        });
        let [old, current] = store
            .session("s")
            .ledger_names()
            .map(|n| dir.path().join(n));
        let mut seen: Vec<Vec<u64>> = vec![Vec::new(); writers];
        for file in [old, current] {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for line in text.lines() {
                let call: ReportedCall = serde_json::from_str(line).unwrap();
                seen[(call.at / 1000) as usize].push(call.at % 1000);
            }
        }
        for (w, ids) in seen.iter_mut().enumerate() {
            ids.sort_unstable();
            let first = ids.first().copied().unwrap_or(each as u64);
            let want: Vec<u64> = (first..each as u64).collect();
            assert_eq!(*ids, want, "writer {w} lost outcomes from the middle");
        }
        let total: usize = seen.iter().map(Vec::len).sum();
        assert!(
            total >= 40,
            "{total}: the ledger keeps more than a full one"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_ledger_is_private_and_never_written_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let snaps = Store::new(dir.path(), Duration::from_secs(600)).session("s");
        snaps.record_call(&outcome(1, 10)).unwrap();
        let [_, current] = snaps.ledger_names().map(|n| dir.path().join(n));
        let mode = std::fs::metadata(&current).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "mine").unwrap();
        std::fs::remove_file(&current).unwrap();
        std::os::unix::fs::symlink(&target, &current).unwrap();
        assert!(snaps.record_call(&outcome(2, 10)).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    }
}
