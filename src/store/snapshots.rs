//! The session's snapshot file: written whole ([`Snapshots::save`]), and taken once
//! ([`Snapshots::take_fresh`]): claimed by a rename so that of racing restores exactly one prints
//! it, printed only when it is a snapshot this tool wrote, deleted once printed and put back when
//! printing failed; printed where it lies when it cannot be claimed (Windows, D019).

use super::{HELD_RETRIES, HELD_WAIT, Snapshots, Store, claim_name, read_ours, remove_ours};
use crate::platform;
use crate::snapshot::{HARD_LIMIT_BYTES, is_snapshot};
use anyhow::{Context, Result};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// A file at a snapshot path larger than this is not a snapshot of this tool (whose output is at
/// most 10,000 UTF-16 code units).
pub(super) const MAX_SNAPSHOT_BYTES: u64 = HARD_LIMIT_BYTES as u64;

/// The restored marker's content once a snapshot was printed where it lay (D019); a claim in
/// progress leaves it empty.
pub(super) const GIVEN_IN_PLACE: &[u8] = b"printed in place";

/// The outcome of [`Snapshots::take_fresh`].
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// A fresh snapshot was printed and deleted.
    Printed,
    /// There was no snapshot for this session.
    Missing,
    /// A snapshot was there, but a racing restore claimed it first (and prints it).
    TakenByOther,
    /// The snapshot was older than the TTL (or dated in the future); it was deleted unprinted.
    Stale,
    /// Something this tool must not print sits at the snapshot path: not a regular file, owned by
    /// another user, or not a snapshot this tool wrote. It is left alone.
    Refused(&'static str),
}

impl Taken {
    /// What happened, in words (for `COMPACT_GUARDIAN_DEBUG`).
    pub fn said(&self) -> String {
        match self {
            Taken::Printed => "the saved snapshot was printed".to_owned(),
            Taken::Missing => "no snapshot was saved for this session".to_owned(),
            Taken::TakenByOther => {
                "another restore of this compaction took the snapshot".to_owned()
            }
            Taken::Stale => {
                "the snapshot was past its freshness limit: deleted unprinted".to_owned()
            }
            Taken::Refused(why) => {
                format!("the file at the snapshot's place was left alone: {why}")
            }
        }
    }
}

impl Snapshots {
    /// The snapshot file's path.
    pub fn path(&self) -> PathBuf {
        self.store.dir.join(&self.name)
    }

    /// The store this snapshot lives in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Writes `text` as the session's snapshot, atomically and privately.
    pub fn save(&self, text: &str) -> Result<PathBuf> {
        let dest = self.path();
        self.store.write_atomically(&dest, text.as_bytes())?;
        Ok(dest)
    }

    /// Deletes the session's snapshot, if it is one of ours (a transcript with nothing to save must
    /// not leave an older snapshot to be restored).
    pub fn remove(&self) -> Result<()> {
        let path = self.path();
        remove_ours(&path).with_context(|| format!("could not remove {}", path.display()))
    }

    /// Claims the session's snapshot and, if fresh and a snapshot of this tool, hands its text to
    /// `print`. The snapshot is deleted once `print` succeeds and put back (unless a newer one was
    /// saved meanwhile) if it fails, so a closed stdout never loses it.
    pub fn take_fresh(&self, print: impl FnOnce(&str) -> io::Result<()>) -> Result<Taken> {
        let dest = self.path();
        let meta = match fs::symlink_metadata(&dest) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Taken::Missing),
            Err(e) => return Err(e).with_context(|| format!("could not stat {}", dest.display())),
        };
        if let Some(why) = platform::refuse(&meta) {
            return Ok(Taken::Refused(why));
        }
        let fresh = !self.expired(meta.modified().ok());
        if fresh && self.already_given(&meta) {
            // Printed by an earlier restore that could not delete it (held open by another
            // program on Windows): given once is enough. Delete it now if we can.
            let _ = remove_ours(&dest);
            return Ok(Taken::TakenByOther);
        }
        if fresh {
            // Look before claiming: a file this tool did not write is left where it is, and must
            // not set the marker that would stop the rebuild.
            match read_snapshot(&dest) {
                Ok(Found::Snapshot(_)) => {}
                Ok(Found::NotPrintable(why)) => return Ok(Taken::Refused(why)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Taken::TakenByOther),
                Err(_) => return Ok(Taken::Refused("not a regular file")),
            }
            // Mark before claiming: a restore racing this one that finds the file already gone
            // must also find the marker, or it would print a rebuilt copy beside this snapshot.
            // Without the marker (a full disk) only the duplicate guard is lost.
            let _ = self.store.write_atomically(&self.restored_marker(), b"");
        }
        let claimed = self.store.dir.join(claim_name(""));
        match fs::rename(&dest, &claimed) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Taken::TakenByOther),
            // Held open by another program (Windows: "sharing violation") or otherwise not
            // claimable: print it where it is rather than nothing, never fall silent (D019).
            Err(_) if fresh => return self.print_in_place(&dest, print),
            Err(e) => return Err(e).with_context(|| format!("could not claim {}", dest.display())),
        }
        let result = self.print_claimed(&claimed, print);
        if matches!(result, Ok(Taken::Printed | Taken::Stale)) {
            let _ = remove_ours(&self.deferred_marker()); // restored: nothing waits any more
        }
        if !matches!(result, Ok(Taken::Printed | Taken::Stale)) {
            // Give it back for a later restore, unless a newer snapshot took its place; and let a
            // later restore rebuild instead of taking this run for a duplicate.
            let _ = fs::hard_link(&claimed, &dest);
            self.remove_marker();
        }
        let _ = fs::remove_file(&claimed);
        result
    }

    /// Prints the fresh snapshot at `dest` without claiming it, then deletes it when it can
    /// (retrying briefly). The restored marker stays, so a duplicate hook prints nothing; on any
    /// failure the marker goes, so the restore rebuilds instead of falling silent.
    pub(super) fn print_in_place(
        &self,
        dest: &Path,
        print: impl FnOnce(&str) -> io::Result<()>,
    ) -> Result<Taken> {
        let text = match read_snapshot(dest) {
            Ok(Found::Snapshot(text)) => text,
            Ok(Found::NotPrintable(why)) => {
                self.remove_marker();
                return Ok(Taken::Refused(why));
            }
            Err(e) => {
                self.remove_marker();
                return Err(e).with_context(|| format!("could not read {}", dest.display()));
            }
        };
        if let Err(e) = print(&text) {
            self.remove_marker();
            return Err(e).context("could not print the snapshot");
        }
        // Says "printed, only not deleted": a restore that finds this snapshot again gives it no
        // second time (`already_given`). The claim marker alone cannot say it (see there).
        let _ = self
            .store
            .write_atomically(&self.restored_marker(), GIVEN_IN_PLACE);
        for attempt in 0..=HELD_RETRIES {
            if remove_ours(dest).is_ok() {
                break;
            }
            if attempt < HELD_RETRIES {
                std::thread::sleep(HELD_WAIT);
            }
        }
        Ok(Taken::Printed)
    }

    /// Whether the snapshot with `meta` was already printed in place: the restored marker says
    /// so and is newer (a snapshot saved in the same clock tick as the marker counts as new). A
    /// marker newer than the snapshot is not enough: a racing restore writes one just before it
    /// renames the snapshot, and taking that for "given" deleted the snapshot under it, so that
    /// neither printed it.
    pub(super) fn already_given(&self, meta: &fs::Metadata) -> bool {
        let path = self.restored_marker();
        let Ok(marker) = fs::symlink_metadata(&path) else {
            return false;
        };
        platform::refuse(&marker).is_none()
            && matches!((marker.modified(), meta.modified()), (Ok(m), Ok(s)) if m > s)
            && read_ours(&path, 64).as_deref() == Some(GIVEN_IN_PLACE)
    }

    pub(super) fn print_claimed(
        &self,
        claimed: &Path,
        print: impl FnOnce(&str) -> io::Result<()>,
    ) -> Result<Taken> {
        let meta = match fs::symlink_metadata(claimed) {
            Ok(m) => m,
            Err(_) => return Ok(Taken::Refused("not a regular file")),
        };
        if let Some(why) = platform::refuse(&meta) {
            return Ok(Taken::Refused(why));
        }
        if self.expired(meta.modified().ok()) {
            return Ok(Taken::Stale);
        }
        let text = match read_snapshot(claimed) {
            Ok(Found::Snapshot(text)) => text,
            Ok(Found::NotPrintable(why)) => return Ok(Taken::Refused(why)),
            Err(_) => return Ok(Taken::Refused("not a regular file")),
        };
        print(&text).context("could not print the snapshot")?;
        Ok(Taken::Printed)
    }
}

/// What is at a snapshot's place, once read.
pub(super) enum Found {
    /// A snapshot this tool wrote, whole: its text.
    Snapshot(String),
    /// Something this tool must not print, and why.
    NotPrintable(&'static str),
}

/// Reads the file at `path` (no links followed) if it is a snapshot this tool may print: a
/// regular file of ours, at most [`MAX_SNAPSHOT_BYTES`], valid UTF-8, that [`is_snapshot`].
/// An error is an I/O failure; [`Found::NotPrintable`] says why the file is not printable.
pub(super) fn read_snapshot(path: &Path) -> io::Result<Found> {
    let file = platform::open_no_follow(path)?;
    let meta = file.metadata()?;
    if let Some(why) = platform::refuse(&meta) {
        return Ok(Found::NotPrintable(why));
    }
    if meta.len() > MAX_SNAPSHOT_BYTES {
        return Ok(Found::NotPrintable(
            "too large to be a snapshot of compact-guardian",
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_SNAPSHOT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Ok(Found::NotPrintable(
            "too large to be a snapshot of compact-guardian",
        ));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) if is_snapshot(&text) => Found::Snapshot(text),
        _ => Found::NotPrintable("not a snapshot written by compact-guardian"),
    })
}
