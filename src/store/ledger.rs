//! A session's ledger of tool-call outcomes as its hooks were told them ([`ReportedCall`], issue #46,
//! D083): `correct` adds one line after each command or edit, and `save`, `restore` and the
//! audit read the last ones, so the last result is known even before the transcript holds it.
//!
//! One hidden file per session (so the TTL sweep removes it once the session is quiet), private,
//! opened for appending without following links: each outcome is one `write` of one line, so
//! parallel tool calls' hooks never interleave their lines. Past [`MAX_LEDGER`] bytes the file
//! is moved aside (the one before is dropped), so the ledger never holds more than twice that.

use super::{HIDDEN_PREFIX, Snapshots, read_ours};
use crate::platform;
use crate::read::reported::ReportedCall;
use anyhow::{Context, Result};
use std::io::Write;

/// The size past which the ledger is moved aside: a few dozen outcomes of long output.
const MAX_LEDGER: u64 = 64 * 1024;
/// How many of the newest outcomes are read back: more than any window of calls the transcript
/// writer leaves unwritten.
pub const MAX_OUTCOMES: usize = 32;

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
        let mut file = platform::append_no_follow(&current)
            .with_context(|| format!("could not open {}", current.display()))?;
        file.write_all(&line)
            .with_context(|| format!("could not write {}", current.display()))?;
        if file.metadata().is_ok_and(|m| m.len() > MAX_LEDGER) {
            // Two hooks may both move it: the second moves a younger file over the first's,
            // and at most a few lines are lost from a ledger that only fills a gap.
            std::fs::rename(&current, &old)
                .with_context(|| format!("could not move {} aside", current.display()))?;
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
