//! The snapshot store: one file per session in one folder, written atomically, used once.
//!
//! Promises:
//! - Any session id maps to exactly one file name inside the folder; ids that are not plain
//!   `[A-Za-z0-9_-]` are hashed, never used as path text, so no id can reach outside the folder.
//! - Files are created 0600 (the folder 0700 when this tool creates it) through a temporary file in
//!   the same folder and a rename, which replaces whatever is at the destination, including a
//!   planted symlink, instead of writing through it. Readers see the old file or the new one whole.
//! - [`Store::take_fresh`] claims a snapshot by renaming it to a private name before reading it, so
//!   of any number of racing restores exactly one gets it; it is deleted only once printing
//!   succeeded, and put back otherwise. Only regular files owned by this user are ever printed.

use anyhow::{Context, Result, bail};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// File-name prefix of snapshots (the original plugin's naming).
pub const PREFIX: &str = "compact-snapshot-";
/// File-name suffix of snapshots.
pub const SUFFIX: &str = ".md";
/// Prefix of this tool's temporary and claimed files.
const HIDDEN_PREFIX: &str = ".compact-snapshot-";
/// Snapshots larger than this are not ours (ours are under 40 KB even in UTF-8).
const MAX_SNAPSHOT_BYTES: u64 = 256 * 1024;
/// A modification time this far in the future is not trusted: the file is treated as stale.
const FUTURE_SLACK: Duration = Duration::from_secs(60);
/// Marker prefix: "this session's snapshot was just restored" (see [`Store::recently_restored`]).
const RESTORED_PREFIX: &str = ".compact-snapshot-restored-";

/// The outcome of [`Store::take_fresh`].
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
    /// Something that is not a regular file owned by this user sits at the snapshot path.
    Refused(&'static str),
}

/// A folder of snapshots with a freshness limit.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    ttl: Duration,
}

impl Store {
    /// A store in `dir`; snapshots older than `ttl` are stale.
    pub fn new(dir: impl Into<PathBuf>, ttl: Duration) -> Store {
        Store {
            dir: dir.into(),
            ttl,
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The snapshot path for a session id.
    pub fn path_for(&self, session_id: &str) -> PathBuf {
        self.dir.join(file_name(session_id))
    }

    /// Writes `text` as the session's snapshot, atomically and privately.
    pub fn save(&self, session_id: &str, text: &str) -> Result<PathBuf> {
        self.ensure_dir()?;
        let dest = self.path_for(session_id);
        let mut tmp = tempfile::Builder::new()
            .prefix(HIDDEN_PREFIX)
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .with_context(|| {
                format!(
                    "could not create a temporary file in {}",
                    self.dir.display()
                )
            })?;
        tmp.write_all(text.as_bytes())
            .context("could not write the snapshot")?;
        // rename(2) replaces a symlink at `dest` itself; it never follows it.
        tmp.persist(&dest)
            .map_err(|e| e.error)
            .with_context(|| format!("could not write snapshot {}", dest.display()))?;
        Ok(dest)
    }

    /// Deletes the session's snapshot, if any (a transcript with nothing to save must not leave an
    /// older snapshot to be restored).
    pub fn remove(&self, session_id: &str) -> Result<()> {
        let path = self.path_for(session_id);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_file() => fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display())),
            _ => Ok(()),
        }
    }

    /// Deletes this tool's stale files (snapshots, leftovers of interrupted writes and restores).
    /// Returns how many were removed.
    pub fn remove_stale(&self) -> Result<usize> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => {
                return Err(e).with_context(|| format!("could not list {}", self.dir.display()));
            }
        };
        let now = SystemTime::now();
        let uid = rustix::process::geteuid().as_raw();
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let ours = (name.starts_with(PREFIX) && name.ends_with(SUFFIX))
                || name.starts_with(HIDDEN_PREFIX);
            if !ours {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue }; // does not follow symlinks
            if !meta.file_type().is_file() || meta.uid() != uid {
                continue;
            }
            if self.is_stale(meta.modified().ok(), now) && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Claims the session's snapshot and, if fresh, hands its text to `print`. The snapshot is
    /// deleted once `print` succeeds and put back (unless a newer one was saved meanwhile) if it
    /// fails, so a closed stdout never loses it.
    pub fn take_fresh(
        &self,
        session_id: &str,
        print: impl FnOnce(&str) -> io::Result<()>,
    ) -> Result<Taken> {
        let dest = self.path_for(session_id);
        let meta = match fs::symlink_metadata(&dest) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Taken::Missing),
            Err(e) => return Err(e).with_context(|| format!("could not stat {}", dest.display())),
        };
        if let Some(why) = refuse(&meta) {
            return Ok(Taken::Refused(why));
        }
        // Mark before claiming: a restore racing this one that finds the file already gone must
        // also find the marker, or it would print a rebuilt copy beside this snapshot.
        if !self.is_stale(meta.modified().ok(), SystemTime::now()) {
            let _ = fs::write(self.restored_marker(session_id), b"");
        }
        let claimed = self.dir.join(format!(
            "{HIDDEN_PREFIX}claimed-{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        match fs::rename(&dest, &claimed) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Taken::TakenByOther),
            Err(e) => return Err(e).with_context(|| format!("could not claim {}", dest.display())),
        }
        let result = self.print_claimed(&claimed, print);
        if !matches!(result, Ok(Taken::Printed | Taken::Stale)) {
            // Give it back for a later restore, unless a newer snapshot took its place.
            let _ = fs::hard_link(&claimed, &dest);
        }
        let _ = fs::remove_file(&claimed);
        result
    }

    /// Whether a snapshot of this session was claimed by a restore within `within`.
    pub fn recently_restored(&self, session_id: &str, within: Duration) -> bool {
        let Ok(meta) = fs::symlink_metadata(self.restored_marker(session_id)) else {
            return false;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok());
        meta.file_type().is_file() && age.is_some_and(|a| a <= within)
    }

    fn restored_marker(&self, session_id: &str) -> PathBuf {
        self.dir
            .join(format!("{RESTORED_PREFIX}{}", file_name(session_id)))
    }

    fn print_claimed(
        &self,
        claimed: &Path,
        print: impl FnOnce(&str) -> io::Result<()>,
    ) -> Result<Taken> {
        let file = match open_no_follow(claimed) {
            Ok(f) => f,
            Err(_) => return Ok(Taken::Refused("not a regular file")),
        };
        let meta = file.metadata()?;
        if let Some(why) = refuse(&meta) {
            return Ok(Taken::Refused(why));
        }
        if self.is_stale(meta.modified().ok(), SystemTime::now()) {
            return Ok(Taken::Stale);
        }
        if meta.len() > MAX_SNAPSHOT_BYTES {
            return Ok(Taken::Refused("too large to be a snapshot"));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_SNAPSHOT_BYTES).read_to_end(&mut bytes)?;
        let text = String::from_utf8_lossy(&bytes);
        print(&text).context("could not print the snapshot")?;
        Ok(Taken::Printed)
    }

    fn is_stale(&self, modified: Option<SystemTime>, now: SystemTime) -> bool {
        let Some(modified) = modified else {
            return true;
        };
        match now.duration_since(modified) {
            Ok(age) => age > self.ttl,
            Err(future) => future.duration() > FUTURE_SLACK,
        }
    }

    fn ensure_dir(&self) -> Result<()> {
        match fs::metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => bail!("snapshot folder {} is not a folder", self.dir.display()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
                .with_context(|| {
                    format!("could not create snapshot folder {}", self.dir.display())
                }),
            Err(e) => Err(e)
                .with_context(|| format!("could not stat snapshot folder {}", self.dir.display())),
        }
    }
}

/// Why a file must not be printed, if it must not.
fn refuse(meta: &fs::Metadata) -> Option<&'static str> {
    if !meta.file_type().is_file() {
        return Some("not a regular file");
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Some("owned by another user");
    }
    None
}

fn open_no_follow(path: &Path) -> io::Result<File> {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
}

/// The file name for a session id: the id itself when it is plain `[A-Za-z0-9_-]{1,128}` (as the
/// original plugin named files), otherwise `=` and a 128-bit hash of it. `=` cannot occur in a
/// plain id, so the two forms never collide.
pub fn file_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        format!("{PREFIX}{session_id}{SUFFIX}")
    } else {
        format!("{PREFIX}={:032x}{SUFFIX}", fnv1a_128(session_id.as_bytes()))
    }
}

fn fnv1a_128(bytes: &[u8]) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn store() -> (tempfile::TempDir, Store) {
        let d = tempfile::tempdir().unwrap();
        let s = Store::new(d.path().join("cfg"), Duration::from_secs(600));
        (d, s)
    }

    #[test]
    fn hostile_ids_stay_inside_the_folder() {
        for id in [
            "x/../../escaped",
            "/etc/passwd",
            "..",
            "a\\b",
            "a\0b",
            "",
            &"é".repeat(10_000),
        ] {
            let name = file_name(id);
            assert!(
                !name.contains('/') && !name.contains('\\') && !name.contains('\0'),
                "{name}"
            );
            assert!(name.len() < 200);
            assert!(name.starts_with(PREFIX) && name.ends_with(SUFFIX));
        }
        assert_eq!(file_name("abc-123_X"), "compact-snapshot-abc-123_X.md");
        assert_ne!(file_name("a/b"), file_name("a/c"));
    }

    #[test]
    fn save_then_take_once() {
        let (_d, s) = store();
        s.save("s1", "hello").unwrap();
        let mode = fs::metadata(s.path_for("s1")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = fs::metadata(s.dir()).unwrap().permissions().mode() & 0o777;
        assert_eq!(dmode, 0o700);
        let mut got = String::new();
        assert_eq!(
            s.take_fresh("s1", |t| {
                got = t.to_owned();
                Ok(())
            })
            .unwrap(),
            Taken::Printed
        );
        assert_eq!(got, "hello");
        assert_eq!(s.take_fresh("s1", |_| Ok(())).unwrap(), Taken::Missing);
    }

    #[test]
    fn failed_print_keeps_the_snapshot() {
        let (_d, s) = store();
        s.save("s1", "hello").unwrap();
        let r = s.take_fresh("s1", |_| {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        });
        assert!(r.is_err());
        assert_eq!(fs::read_to_string(s.path_for("s1")).unwrap(), "hello");
    }

    #[test]
    fn planted_symlink_is_replaced_not_followed() {
        let (d, s) = store();
        fs::create_dir_all(s.dir()).unwrap();
        let target = d.path().join("victim");
        fs::write(&target, "precious").unwrap();
        std::os::unix::fs::symlink(&target, s.path_for("s1")).unwrap();
        assert_eq!(
            s.take_fresh("s1", |_| panic!("printed a symlink")).unwrap(),
            Taken::Refused("not a regular file")
        );
        s.save("s1", "new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
        assert!(
            fs::symlink_metadata(s.path_for("s1"))
                .unwrap()
                .file_type()
                .is_file()
        );
    }

    #[test]
    fn stale_and_future_snapshots_are_not_printed() {
        let (_d, s) = store();
        for (id, offset) in [("old", -700i64), ("future", 3600)] {
            s.save(id, "x").unwrap();
            let t = SystemTime::now()
                .checked_add(Duration::from_secs(offset.unsigned_abs()))
                .unwrap();
            let t = if offset < 0 {
                SystemTime::now() - Duration::from_secs(offset.unsigned_abs())
            } else {
                t
            };
            File::options()
                .write(true)
                .open(s.path_for(id))
                .unwrap()
                .set_modified(t)
                .unwrap();
            assert_eq!(
                s.take_fresh(id, |_| panic!("printed stale")).unwrap(),
                Taken::Stale
            );
            assert!(!s.path_for(id).exists());
        }
    }

    #[test]
    fn remove_stale_spares_fresh_and_foreign_files() {
        let (_d, s) = store();
        s.save("fresh", "x").unwrap();
        s.save("old", "x").unwrap();
        File::options()
            .write(true)
            .open(s.path_for("old"))
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(900))
            .unwrap();
        let foreign = s.dir().join("settings.json");
        fs::write(&foreign, "{}").unwrap();
        File::options()
            .write(true)
            .open(&foreign)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(900))
            .unwrap();
        assert_eq!(s.remove_stale().unwrap(), 1);
        assert!(s.path_for("fresh").exists() && foreign.exists());
    }

    #[test]
    fn folder_that_is_a_file_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("file");
        fs::write(&f, "").unwrap();
        assert!(
            Store::new(&f, Duration::from_secs(1))
                .save("s", "x")
                .is_err()
        );
    }
}
