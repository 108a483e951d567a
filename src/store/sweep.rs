//! The sweep: this tool's stale files (snapshots, markers, claims, leftovers of interrupted
//! writes and restores) deleted after a save or a restore, each by its own clock: a claim by
//! when it was claimed (D060), a context by [`CONTEXT_TTL`], corrections by
//! [`super::DEFERRED_TTL`] or once their session's transcript is gone, anything else by the
//! store's TTL unless a deferred restore waits for it.

use super::markers::{DEFERRED_PREFIX, marker_outlived};
use super::pending::{
    CONTEXT_PREFIX, CONTEXT_TTL, CORRECTIONS_PREFIX, MAX_CORRECTIONS_BYTES, Pending,
};
use super::{
    CLAIMED_PREFIX, HIDDEN_PREFIX, PREFIX, SUFFIX, Snapshots, Store, older_than, promise_expired,
    read_ours, transcript_gone,
};
use crate::platform;
use anyhow::{Context, Result};
use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How long a claimed file is left to its claimer: far longer than any hook lives (its budget and
/// watchdog, seconds); past it, the file is the leftover of a claimer that was killed.
pub(super) const CLAIM_LIFETIME: Duration = Duration::from_secs(10 * 60);

impl Store {
    /// Deletes this tool's stale files (snapshots, markers, leftovers of interrupted writes and
    /// restores), stopping at `deadline`. Returns how many were removed.
    pub(crate) fn remove_stale(&self, deadline: Option<Instant>) -> Result<usize> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => {
                return Err(e).with_context(|| format!("could not list {}", self.dir.display()));
            }
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let ours = (name.starts_with(PREFIX) && name.ends_with(SUFFIX))
                || name.starts_with(HIDDEN_PREFIX);
            if !ours {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue }; // does not follow symlinks
            if platform::refuse(&meta).is_some() {
                continue;
            }
            let stale = if let Some(at) = claimed_at(name) {
                // A claimed file keeps the time it was written: judged by that, another
                // session's sweep deleted what a hook had just claimed, before it read it (issue
                // #48, D060). A claim lives as long as its hook.
                older_than(Some(at), CLAIM_LIFETIME, now)
            } else if name.starts_with(CONTEXT_PREFIX) {
                older_than(meta.modified().ok(), CONTEXT_TTL, now)
            } else if name.starts_with(CORRECTIONS_PREFIX) {
                promise_expired(meta.modified().ok(), now) || self.session_ended(&entry.path())
            } else {
                self.is_stale(meta.modified().ok(), now)
                    && !self.kept_for_deferred_restore(name, meta.modified().ok(), now)
            };
            if stale && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Whether the file `name` waits for a deferred restore: a deferred marker younger than
    /// [`DEFERRED_TTL`], or a session's snapshot that such a marker covers.
    pub(super) fn kept_for_deferred_restore(
        &self,
        name: &str,
        modified: Option<SystemTime>,
        now: SystemTime,
    ) -> bool {
        if name.starts_with(DEFERRED_PREFIX) {
            return !promise_expired(modified, now) && !marker_outlived(&self.dir.join(name));
        }
        name.starts_with(PREFIX) && self.session_named(name.to_owned()).deferred().is_some()
    }

    /// Whether the corrections at `path` are for a session that can no longer go on: the
    /// transcript they name (an absolute path, as the clients give it) is gone.
    pub(super) fn session_ended(&self, path: &Path) -> bool {
        let Some(bytes) = read_ours(path, MAX_CORRECTIONS_BYTES) else {
            return false;
        };
        serde_json::from_slice::<Pending>(&bytes)
            .ok()
            .and_then(|p| p.transcript)
            .is_some_and(|t| transcript_gone(Path::new(&t)))
    }

    pub(super) fn session_named(&self, name: String) -> Snapshots {
        Snapshots {
            store: self.clone(),
            name,
        }
    }
}

/// When the file named `name` was claimed ([`claim_name`]), if it is a claimed file. A claim
/// without a readable time is dated at the epoch: a leftover, swept at once.
pub(super) fn claimed_at(name: &str) -> Option<SystemTime> {
    let rest = name.strip_prefix(CLAIMED_PREFIX)?;
    let nanos = rest
        .rsplit('-')
        .next()
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    Some(SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos))
}
