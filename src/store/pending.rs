//! What a session's later hooks take from the store besides its snapshot: the digest the audit
//! compares the summary with, the corrections waiting for the model (handed over once, by a
//! claim, D025, D040) and, for OpenCode, the context its model is given until the next compaction
//! (D052).

use super::{HIDDEN_PREFIX, Snapshots, Store, claim_name, promise_expired, read_ours, remove_ours};
use crate::platform;
use anyhow::{Context, Result};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Corrections waiting for the model (hidden: stale ones are removed like any other leftover).
pub(super) const CORRECTIONS_PREFIX: &str = ".compact-snapshot-corrections-";
/// The largest corrections file read: the section is at most [`crate::corrections::MAX_UNITS`]
/// UTF-16 units (up to 3 bytes each, escaped in JSON), with the user's line beside it.
pub(super) const MAX_CORRECTIONS_BYTES: u64 = 8 * crate::corrections::MAX_UNITS as u64;

/// What an OpenCode session's model is given after its newest compaction, bound to that
/// compaction: read again by every request until the next one, by any OpenCode process (D052).
pub(super) const CONTEXT_PREFIX: &str = ".compact-snapshot-context-";
/// How long such a context is kept: a session may be resumed days after its last compaction,
/// and the file is at most a snapshot and its corrections.
pub const CONTEXT_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Corrections waiting for the model, and the line that tells the user, if the user has not
/// been told yet (an automatic compaction in Claude Code shows no PostCompact output).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pending {
    /// The section the model reads ([`crate::corrections::section`]).
    pub section: String,
    /// The user's line, shown when the corrections are handed over.
    pub line: Option<String>,
    /// The session's transcript: once it is gone, nothing can continue the session, and the
    /// corrections (which quote the user) are removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
}

impl Store {
    /// Whether `session_id`'s corrections wait: one look at the folder, so the hook that runs
    /// after every tool call costs almost nothing when none do. Another session's corrections
    /// are passed over; any past [`DEFERRED_TTL`] are removed on the way (they quote the user,
    /// and nothing will take them).
    pub(crate) fn corrections_waiting(&self, session_id: &str) -> bool {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return false;
        };
        let own = self.session(session_id).corrections_name();
        let now = SystemTime::now();
        let mut waiting = false;
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str().filter(|n| n.starts_with(CORRECTIONS_PREFIX)) else {
                continue;
            };
            let Ok(meta) = e.metadata() else { continue }; // does not follow symlinks
            if platform::refuse(&meta).is_some() {
                continue;
            }
            if promise_expired(meta.modified().ok(), now) {
                let _ = remove_ours(&e.path());
            } else if name == own {
                waiting = true;
            }
        }
        waiting
    }
}

impl Snapshots {
    /// The name of this session's digest for the PostCompact audit (hidden, so stale ones are
    /// removed like any other leftover).
    pub(super) fn digest_name(&self) -> String {
        format!("{HIDDEN_PREFIX}digest-{}.json", self.id())
    }

    /// Reads this session's file `name` if it is ours, at most `max` bytes and `fresh` by its
    /// modification time, then deletes it either way: a file handed over once.
    pub(super) fn take_once(
        &self,
        name: &str,
        max: u64,
        fresh: impl FnOnce(Option<SystemTime>) -> bool,
    ) -> Option<Vec<u8>> {
        let path = self.store.dir.join(name);
        let meta = fs::symlink_metadata(&path).ok()?;
        let fresh = platform::refuse(&meta).is_none() && fresh(meta.modified().ok());
        let bytes = if fresh { read_ours(&path, max) } else { None };
        let _ = remove_ours(&path);
        bytes
    }

    /// The name of this session's pending corrections (see [`crate::corrections`]).
    pub(super) fn corrections_name(&self) -> String {
        format!("{CORRECTIONS_PREFIX}{}.json", self.id())
    }

    /// Keeps `pending` as this session's corrections, for the next hook that can hand them to
    /// the model (restore in Codex, `correct` in Claude Code).
    pub(crate) fn save_corrections(&self, pending: &Pending) -> Result<PathBuf> {
        let bytes = serde_json::to_vec(pending)?;
        self.store.write_file(&self.corrections_name(), &bytes)
    }

    /// Takes this session's corrections (claimed, read, deleted) if they are fresh, ours and
    /// shaped as [`crate::corrections::section`] writes them: for a restore that prints them
    /// inside the snapshot, and keeps them again ([`Snapshots::save_corrections`]) if it prints
    /// nothing.
    pub(crate) fn take_corrections(&self) -> Option<Pending> {
        self.hand_over_corrections(|_| Ok(())).ok().flatten()
    }

    /// Hands this session's corrections to `print`, once: the file is claimed by renaming it
    /// to a private name, so of any number of hooks racing for it exactly one gets it; read
    /// (fresh, ours, shaped as [`crate::corrections::section`] writes them, else deleted
    /// unprinted); and deleted only once `print` succeeded. When `print` fails, it is put back
    /// (unless a newer one took its place) and the error returned: nothing is lost into a closed
    /// stdout. `Ok(None)`: nothing to hand over.
    pub(crate) fn hand_over_corrections(
        &self,
        print: impl FnOnce(&Pending) -> io::Result<()>,
    ) -> Result<Option<Pending>> {
        let path = self.store.dir.join(self.corrections_name());
        let claimed = self.store.dir.join(claim_name("corrections-"));
        match fs::symlink_metadata(&path) {
            Ok(m) if platform::refuse(&m).is_none() => {}
            _ => return Ok(None), // none, or not ours to take (left alone)
        }
        match fs::rename(&path, &claimed) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None), // another hook has it
            Err(e) => return Err(e).with_context(|| format!("could not claim {}", path.display())),
        }
        let pending = self.read_claimed_corrections(&claimed);
        let result = match &pending {
            Some(p) => print(p),
            None => Ok(()),
        };
        if result.is_err() {
            // Back for the next hook, unless a newer audit's corrections took the place.
            let _ = fs::hard_link(&claimed, &path);
        }
        let _ = remove_ours(&claimed);
        result.context("could not print the corrections: they are kept for the next hook")?;
        Ok(pending)
    }

    /// The corrections in the claimed file, if they may be handed over.
    pub(super) fn read_claimed_corrections(&self, claimed: &Path) -> Option<Pending> {
        let meta = fs::symlink_metadata(claimed).ok()?;
        if platform::refuse(&meta).is_some()
            || promise_expired(meta.modified().ok(), SystemTime::now())
        {
            return None;
        }
        let bytes = read_ours(claimed, MAX_CORRECTIONS_BYTES)?;
        let mut pending: Pending = serde_json::from_slice(&bytes).ok()?;
        if !crate::corrections::is_section(&pending.section) {
            return None; // damaged or planted: nothing of it reaches the model
        }
        pending.line = pending
            .line
            .map(|l| crate::text::folded_line(&l, crate::render::audit::MAX_MESSAGE));
        Some(pending)
    }

    /// Drops this session's corrections unread and its deferred marker (a new compaction makes
    /// them about an old summary).
    pub(crate) fn drop_corrections(&self) {
        let _ = remove_ours(&self.store.dir.join(self.corrections_name()));
        let _ = remove_ours(&self.deferred_marker());
    }

    /// Removes this session's digest, if it is ours.
    pub(crate) fn drop_digest(&self) {
        let _ = remove_ours(&self.store.dir.join(self.digest_name()));
    }

    /// Removes everything an earlier compaction of this session left for its restore and audit
    /// (snapshot, digest, corrections, deferral): a save that could not write its own must leave
    /// nothing older to be taken for it. Deleting needs no room on a full disk.
    pub(crate) fn discard(&self) {
        let _ = self.remove();
        self.drop_digest();
        self.drop_corrections();
    }

    /// The name of the context this (OpenCode) session's model is given until its next
    /// compaction.
    pub(super) fn context_name(&self) -> String {
        format!("{CONTEXT_PREFIX}{}.json", self.id())
    }

    /// Keeps `bytes` as the context this session's model is given until its next compaction
    /// (OpenCode, D052): replaced whole, atomically.
    pub(crate) fn save_context(&self, bytes: &[u8]) -> Result<PathBuf> {
        self.store.write_file(&self.context_name(), bytes)
    }

    /// The context kept by [`Snapshots::save_context`], if it is ours and at most `max` bytes.
    pub(crate) fn read_context(&self, max: u64) -> Option<Vec<u8>> {
        read_ours(&self.store.dir.join(self.context_name()), max)
    }

    /// Whether something sits at the session's snapshot path (fresh or not, ours or not: taking
    /// it decides).
    pub(crate) fn snapshot_present(&self) -> bool {
        fs::symlink_metadata(self.path()).is_ok()
    }

    /// Keeps `bytes` as this session's digest (see [`crate::render::audit`]).
    pub(crate) fn save_digest(&self, bytes: &[u8]) -> Result<PathBuf> {
        self.store.write_file(&self.digest_name(), bytes)
    }

    /// Reads this session's digest without taking it (restore names what it hands over; the
    /// audit takes it after).
    pub(crate) fn peek_digest(&self, max: u64) -> Option<Vec<u8>> {
        read_ours(&self.store.dir.join(self.digest_name()), max)
    }

    /// Takes this session's digest if it is fresh and ours: read, then deleted (used once).
    pub(crate) fn take_digest(&self, max: u64) -> Option<Vec<u8>> {
        self.take_once(&self.digest_name(), max, |m| {
            !self.store.is_stale(m, SystemTime::now())
        })
    }
}
