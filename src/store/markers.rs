//! A session's markers beside its snapshot: "its client restores later" (deferred, Codex: the
//! snapshot and corrections then keep for [`DEFERRED_TTL`](super::DEFERRED_TTL), or until the
//! transcript the marker names is gone, D063) and "its snapshot was just restored" (the
//! duplicate-hook guard).

use super::{Snapshots, promise_expired, read_ours, remove_ours, transcript_gone};
use crate::platform;
use anyhow::Result;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Marker prefix: "this session's snapshot was just restored" (see
/// [`Snapshots::recently_restored`]).
pub(super) const RESTORED_PREFIX: &str = ".compact-snapshot-restored-";

/// Marker prefix: "this session's compaction happened and its client restores later" (Codex):
/// its snapshot then keeps for [`DEFERRED_TTL`](super::DEFERRED_TTL) instead of the TTL.
pub(super) const DEFERRED_PREFIX: &str = ".compact-snapshot-deferred-";

/// The longest transcript path a deferred marker records (longer ones are not recorded: the
/// marker then keeps for [`DEFERRED_TTL`](super::DEFERRED_TTL), as before it recorded any).
pub(super) const MAX_MARKED: usize = 16 * 1024;

impl Snapshots {
    /// Says that this session's compaction happened and its client restores later (Codex runs
    /// PostCompact first and SessionStart at the next turn): its snapshot and corrections then
    /// keep for [`DEFERRED_TTL`](super::DEFERRED_TTL), or until `transcript` (the session's,
    /// which the marker records) is gone: the snapshot quotes the user, and nothing can continue
    /// the session (D063).
    pub(crate) fn defer(&self, transcript: Option<&str>) -> Result<()> {
        let named = transcript.filter(|t| Path::new(t).is_absolute() && t.len() <= MAX_MARKED);
        self.store
            .write_atomically(&self.deferred_marker(), named.unwrap_or("").as_bytes())
    }

    pub(super) fn deferred_marker(&self) -> PathBuf {
        self.store
            .dir
            .join(format!("{DEFERRED_PREFIX}{}", self.name))
    }

    /// When the session's restore was deferred, if it was within
    /// [`DEFERRED_TTL`](super::DEFERRED_TTL) (a marker of ours).
    pub(super) fn deferred(&self) -> Option<SystemTime> {
        let marker = self.deferred_marker();
        let meta = fs::symlink_metadata(&marker).ok()?;
        platform::refuse(&meta).is_none().then_some(())?;
        let at = meta.modified().ok()?;
        (!promise_expired(Some(at), SystemTime::now()) && !marker_outlived(&marker)).then_some(at)
    }

    /// Whether this session has a snapshot whose restore its client deferred: what a Codex
    /// `resume` start may restore.
    pub(crate) fn has_deferred_snapshot(&self) -> bool {
        self.deferred().is_some() && fs::symlink_metadata(self.path()).is_ok()
    }

    /// Whether a file of this session modified at `modified` is past its freshness: the TTL, or,
    /// for a file no newer than a deferred marker, [`DEFERRED_TTL`](super::DEFERRED_TTL).
    pub(super) fn expired(&self, modified: Option<SystemTime>) -> bool {
        if !self.store.is_stale(modified, SystemTime::now()) {
            return false;
        }
        let covered = match (self.deferred(), modified) {
            // Saved before the compaction was confirmed (a second of clock slack).
            (Some(marker), Some(m)) => m <= marker + Duration::from_secs(1),
            _ => false,
        };
        !covered
    }

    /// Whether a snapshot of this session was claimed by a restore within `within`.
    pub(crate) fn recently_restored(&self, within: Duration) -> bool {
        self.restored_ago().is_some_and(|a| a <= within)
    }

    /// How long ago a restore last claimed a snapshot of this session (its marker, when it is
    /// ours).
    pub(crate) fn restored_ago(&self) -> Option<Duration> {
        let meta = fs::symlink_metadata(self.restored_marker()).ok()?;
        platform::refuse(&meta).is_none().then_some(())?;
        SystemTime::now().duration_since(meta.modified().ok()?).ok()
    }

    pub(super) fn restored_marker(&self) -> PathBuf {
        self.store
            .dir
            .join(format!("{RESTORED_PREFIX}{}", self.name))
    }

    pub(super) fn remove_marker(&self) {
        let _ = remove_ours(&self.restored_marker());
    }
}

/// Whether the deferred marker at `marker` names a transcript that is gone ([`Snapshots::defer`]).
pub(super) fn marker_outlived(marker: &Path) -> bool {
    read_ours(marker, MAX_MARKED as u64)
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|t| !t.is_empty() && transcript_gone(Path::new(&t)))
}
