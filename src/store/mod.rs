//! The snapshot store: one file per session in one folder, written atomically, used once.
//!
//! Promises:
//! - Any session id maps to exactly one file name inside the folder, also on case-insensitive
//!   file systems: only ids of lowercase `[a-z0-9_-]` are used as names; any other id is hashed
//!   (lowercase hex), never used as path text, so no id can reach outside the folder.
//! - Every file this tool creates (snapshots and restore markers) is written to a fresh temporary
//!   file (exclusive create, 0600) in the folder and renamed into place. A rename replaces a planted
//!   symlink instead of writing through it. Readers see the old file or the new one whole.
//! - Nothing is read, printed, renamed or deleted unless it is a regular file owned by this user,
//!   opened without following links.
//! - [`Snapshots::take_fresh`] prints only a snapshot this tool rendered (its heading, within the
//!   inline limit). It claims the file by renaming it to a private name first, so of any number of
//!   racing restores exactly one gets it; it deletes it only once printing succeeded and puts it
//!   back otherwise. Corrections are handed over the same way (`Snapshots::hand_over_corrections`):
//!   of any number of racing hooks exactly one prints them, and a failed print loses nothing.
//!   A claimed file is judged stale by when it was claimed (written into its name), not by its
//!   own age: no other session's sweep takes it from its claimer (D060).
//! - What was promised to the user waits for its client up to [`DEFERRED_TTL`] (D040): a session's
//!   corrections, until its next prompt or tool call (or Codex's restore), and a snapshot whose
//!   restore Codex defers. Both quote the user's words: they go as soon as nothing can continue
//!   their session (its transcript is gone: the corrections file and the deferred marker name
//!   it), and after [`DEFERRED_TTL`] at the latest.
//!
//! This file holds the folder (names, atomic private writes, locks, reading what is ours);
//! `snapshots.rs` the snapshot taken once, `pending.rs` the digest, corrections and context,
//! `markers.rs` the deferred and restored markers, `sweep.rs` the removal of stale files.

pub(crate) mod history;
pub(crate) mod installs;
pub(crate) mod ledger;
mod markers;
mod pending;
mod snapshots;
mod sweep;

pub use pending::{CONTEXT_TTL, Pending};
pub use snapshots::Taken;

use crate::platform;
use anyhow::{Context, Result, bail};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// File-name prefix of snapshots (the original plugin's naming).
pub(crate) const PREFIX: &str = "compact-snapshot-";
/// File-name suffix of snapshots.
pub(crate) const SUFFIX: &str = ".md";
/// Prefix of this tool's temporary, claimed and marker files.
const HIDDEN_PREFIX: &str = ".compact-snapshot-";

/// A modification time this far in the future is not trusted: the file is treated as stale.
const FUTURE_SLACK: Duration = Duration::from_secs(60);
/// How often a write or delete is retried while another program holds the file (Windows).
const HELD_RETRIES: u32 = 5;
/// The wait between those attempts.
const HELD_WAIT: Duration = Duration::from_millis(40);
/// A lock held this long is held by something that does not let go: a write under it takes
/// milliseconds, and a queue of waiters hands it on as fast.
const STUCK_HOLDER: Duration = Duration::from_secs(3);
/// How often a waiter looks at how long the lock has been held.
const STUCK_CHECK: Duration = Duration::from_millis(100);
/// Prefix of a file claimed by a hook ([`claim_name`]): swept by its claim's time, not its own.
const CLAIMED_PREFIX: &str = ".compact-snapshot-claimed-";

/// How long what was promised to the user waits for the client to take it (D026, D040): a
/// snapshot whose restore Codex defers (the next prompt, or a resume, may come days after a
/// manual `/compact`), and a session's corrections (the model is told at the session's next
/// prompt or tool call, however much later it comes). Thirty days is how long Claude Code keeps
/// a session's transcript by default (`cleanupPeriodDays`): past it, the session cannot go on.
pub const DEFERRED_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Whether something promised to the user, modified at `modified`, has waited past
/// [`DEFERRED_TTL`] (or is dated past the clock's slack in the future).
fn promise_expired(modified: Option<SystemTime>, now: SystemTime) -> bool {
    older_than(modified, DEFERRED_TTL, now)
}

/// A folder of snapshots with a freshness limit.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    ttl: Duration,
    /// How long a hook waits for a shared lock (the history's).
    lock_wait: Duration,
}

/// One session's snapshot in a [`Store`]: the session id is bound once, here.
#[derive(Debug, Clone)]
pub struct Snapshots {
    store: Store,
    name: String,
}

impl Store {
    /// A store in `dir`; snapshots older than `ttl` are stale.
    pub fn new(dir: impl Into<PathBuf>, ttl: Duration) -> Store {
        Store {
            dir: dir.into(),
            ttl,
            lock_wait: crate::store::history::LOCK_WAIT,
        }
    }

    /// The same store, its hooks waiting up to `wait` for a shared lock (see
    /// [`Config::lock_wait`](crate::input::config::Config::lock_wait)).
    pub(crate) fn with_lock_wait(mut self, wait: Duration) -> Store {
        self.lock_wait = wait;
        self
    }

    /// How long a hook waits for a shared lock.
    pub(crate) fn lock_wait(&self) -> Duration {
        self.lock_wait
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The snapshot of one session.
    pub fn session(&self, session_id: &str) -> Snapshots {
        Snapshots {
            store: self.clone(),
            name: file_name(session_id),
        }
    }

    /// Writes a small file of this tool's (the history) in the folder, atomically and privately.
    pub(crate) fn write_file(&self, name: &str, bytes: &[u8]) -> Result<PathBuf> {
        let dest = self.dir.join(name);
        self.write_atomically(&dest, bytes)?;
        Ok(dest)
    }

    /// Holds the lock file `name` in the folder for as long as the returned file lives, waiting
    /// at most `wait` for another process to let go of it. The OS releases the lock when the
    /// holder ends, however it ends, so a killed hook never leaves it held. `None` when it could
    /// not be had in time (or the lock file is refused): the caller goes on without it, as a
    /// hook must.
    ///
    /// A holder marks the file's modification time when it takes the lock. A queue of hooks
    /// each holding it for a write (milliseconds) keeps that time fresh; a lock held for longer
    /// than `STUCK_HOLDER` is held by something that does not let go (a hung process, another
    /// program): it is not waited for (issue #41: a held lock cost every hook its whole wait).
    pub fn lock(&self, name: &str, wait: Duration) -> Option<fs::File> {
        self.ensure_dir().ok()?;
        let path = self.dir.join(name);
        let file = platform::create_no_follow(&path).ok()?;
        if file.try_lock().is_ok() {
            let _ = file.set_modified(SystemTime::now());
            return Some(file);
        }
        // Not waiting at all: no thread is left queued for a lock nobody will take (it would
        // take it later for a moment and make the next hook's `try_lock` fail for nothing).
        if wait.is_zero() {
            return None;
        }
        // Wait in the kernel's queue, not by polling: two hundred hooks polling at once starve
        // the holder of the CPU. The blocking call runs on a thread so that the wait is bounded;
        // the locked file comes back through the channel (a lock taken after the timeout is let
        // go of when the thread's send fails and drops it).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .spawn(move || {
                if file.lock().is_ok() {
                    let _ = file.set_modified(SystemTime::now());
                    let _ = tx.send(file);
                }
            })
            .ok()?;
        let until = Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(STUCK_CHECK)) {
                Ok(file) => return Some(file),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {}
                Err(_) => return None,
            }
            // Still held after a while: by whom? A holder that took it long ago is stuck.
            let held_for = fs::metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok());
            if held_for.is_some_and(|d| d > STUCK_HOLDER) {
                return None;
            }
        }
    }

    /// Why nothing can be written in the folder, if nothing can: found by writing a file and
    /// removing it, in the folder or, when it does not exist yet, in the nearest folder above it
    /// (where a hook would create it). The answer is what a hook would meet (read-only, no space
    /// left, not a folder); nothing is created. For `status` and the audit's and restore's
    /// diagnoses; never on a hook's common path.
    pub(crate) fn write_problem(&self) -> Option<String> {
        let probe = |d: &Path| {
            tempfile::tempfile_in(d)
                .and_then(|mut f| f.write_all(b"probe"))
                .err()
                .map(|e| e.to_string())
        };
        match fs::metadata(&self.dir) {
            Ok(m) if m.is_dir() => probe(&self.dir).map(|e| format!("cannot be written: {e}")),
            Ok(_) => Some("not a folder".into()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let above = self.dir.ancestors().skip(1).find(|a| a.exists());
                match above.map(|a| (a, fs::metadata(a))) {
                    Some((a, Ok(m))) if m.is_dir() => probe(a).map(|e| {
                        format!(
                            "does not exist and cannot be created in {}: {e}",
                            a.display()
                        )
                    }),
                    Some((a, _)) => Some(format!(
                        "does not exist and cannot be created: {} is not a folder",
                        a.display()
                    )),
                    None => Some("does not exist and no folder above it does".into()),
                }
            }
            Err(e) => Some(e.to_string()),
        }
    }

    /// Reads a file of this tool's from the folder: a regular file we own (no links followed) of
    /// at most `max` bytes. `None` when it is missing, refused or larger.
    pub(crate) fn read_file(&self, name: &str, max: u64) -> Option<Vec<u8>> {
        read_ours(&self.dir.join(name), max)
    }

    fn is_stale(&self, modified: Option<SystemTime>, now: SystemTime) -> bool {
        older_than(modified, self.ttl, now)
    }

    fn ensure_dir(&self) -> Result<()> {
        match fs::metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => bail!("snapshot folder {} is not a folder", self.dir.display()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                platform::create_private_dir(&self.dir).with_context(|| {
                    format!("could not create snapshot folder {}", self.dir.display())
                })
            }
            Err(e) => Err(e)
                .with_context(|| format!("could not stat snapshot folder {}", self.dir.display())),
        }
    }

    /// Writes `bytes` to `dest` in this folder: a fresh 0600 temporary file (exclusive create) and
    /// a rename, which replaces whatever is at `dest`, a planted symlink included, and never
    /// writes through it.
    fn write_atomically(&self, dest: &Path, bytes: &[u8]) -> Result<()> {
        self.ensure_dir()?;
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
        tmp.write_all(bytes)
            .with_context(|| format!("could not write {}", dest.display()))?;
        // On Windows a file another program holds open without sharing delete (a virus
        // scanner, the search indexer) cannot be replaced for a moment: try again briefly.
        let mut attempt = 0;
        loop {
            match tmp.persist(dest) {
                Ok(_) => return Ok(()),
                Err(e) if attempt < HELD_RETRIES => {
                    tmp = e.file;
                    attempt += 1;
                    std::thread::sleep(HELD_WAIT);
                }
                Err(e) => {
                    return Err(e.error)
                        .with_context(|| format!("could not write {}", dest.display()));
                }
            }
        }
    }
}

impl Snapshots {
    /// The session's part of the snapshot's file name (the id, or its hash).
    fn id(&self) -> &str {
        self.name
            .trim_start_matches(PREFIX)
            .trim_end_matches(SUFFIX)
    }
}

/// The name a claim gives a file: `.compact-snapshot-claimed-[corrections-]<pid>-<nanos>`, the
/// nanoseconds since the epoch when it was claimed.
fn claim_name(what: &str) -> String {
    format!(
        "{CLAIMED_PREFIX}{what}{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    )
}

/// Whether a file modified at `modified` is older than `ttl` (or has no time, or one too far in
/// the future to trust).
fn older_than(modified: Option<SystemTime>, ttl: Duration, now: SystemTime) -> bool {
    let Some(modified) = modified else {
        return true;
    };
    match now.duration_since(modified) {
        Ok(age) => age > ttl,
        Err(future) => future.duration() > FUTURE_SLACK,
    }
}

/// Whether the transcript at `t` (an absolute path, as the clients give it) is gone.
fn transcript_gone(t: &Path) -> bool {
    t.is_absolute()
        && matches!(fs::symlink_metadata(t), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

/// Deletes `path` if it is a regular file of ours (looked at without following links); anything
/// else there, or nothing, is left as it is.
fn remove_ours(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if platform::refuse(&m).is_none() => fs::remove_file(path),
        _ => Ok(()),
    }
}

/// The bytes of the regular file of ours at `path` (no links followed), if at most `max`.
fn read_ours(path: &Path, max: u64) -> Option<Vec<u8>> {
    let file = platform::open_no_follow(path).ok()?;
    let meta = file.metadata().ok()?;
    if platform::refuse(&meta).is_some() || meta.len() > max {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max).then_some(bytes)
}

/// The file name for a session id: the id itself when it is plain lowercase `[a-z0-9_-]{1,128}`
/// (UUIDs, as the original plugin named files), otherwise `=` and a 128-bit hash of it in lowercase
/// hex. `=` cannot occur in a plain id, so the two forms never collide, and no two ids that differ
/// only in case share a name on a case-insensitive file system (macOS, Windows).
pub fn file_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
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

#[cfg(all(test, unix))]
mod tests {
    use super::snapshots::GIVEN_IN_PLACE;
    use super::*;
    use crate::snapshot::SNAPSHOT_MARKER;
    use std::fs::File;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn store() -> (tempfile::TempDir, Store) {
        let d = tempfile::tempdir().unwrap();
        let s = Store::new(d.path().join("cfg"), Duration::from_secs(600));
        (d, s)
    }

    fn snap(body: &str) -> String {
        format!(
            "# {SNAPSHOT_MARKER} test\n\n{body}\n{}",
            crate::snapshot::END_LINE
        )
    }

    fn set_mtime(path: &Path, t: SystemTime) {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
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
        assert_eq!(file_name("abc-123_x"), "compact-snapshot-abc-123_x.md");
        assert_ne!(file_name("a/b"), file_name("a/c"));
    }

    #[test]
    fn ids_differing_only_in_case_get_names_differing_beyond_case() {
        let ids = ["session", "Session", "SESSION", "sEssion"];
        let names: Vec<String> = ids.iter().map(|i| file_name(i).to_lowercase()).collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(a, b, "one file on a case-insensitive file system");
            }
        }
        let (_d, s) = store();
        s.session("Abc").save(&snap("upper")).unwrap();
        s.session("abc").save(&snap("lower")).unwrap();
        let mut got = String::new();
        s.session("Abc")
            .take_fresh(|t| {
                got = t.to_owned();
                Ok(())
            })
            .unwrap();
        assert!(got.contains("upper"));
    }

    #[test]
    fn save_then_take_once() {
        let (_d, s) = store();
        let snaps = s.session("s1");
        snaps.save(&snap("hello")).unwrap();
        let mode = fs::metadata(snaps.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = fs::metadata(s.dir()).unwrap().permissions().mode() & 0o777;
        assert_eq!(dmode, 0o700);
        let mut got = String::new();
        assert_eq!(
            snaps
                .take_fresh(|t| {
                    got = t.to_owned();
                    Ok(())
                })
                .unwrap(),
            Taken::Printed
        );
        assert!(got.contains("hello"));
        assert_eq!(snaps.take_fresh(|_| Ok(())).unwrap(), Taken::Missing);
    }

    #[test]
    fn a_claim_in_progress_is_not_taken_for_a_snapshot_already_given() {
        // Found by the 16 racing restores: restore A writes the marker, then renames the
        // snapshot; restore B, in between, took the newer marker for "already printed" and
        // deleted the snapshot, A's rename found nothing, and nobody printed it.
        let (_d, s) = store();
        let snaps = s.session("s1");
        snaps.save(&snap("hello")).unwrap();
        set_mtime(&snaps.path(), SystemTime::now() - Duration::from_secs(5));
        s.write_atomically(&snaps.restored_marker(), b"").unwrap(); // A, about to rename
        let mut got = String::new();
        let taken = snaps.take_fresh(|t| {
            got = t.to_owned();
            Ok(())
        });
        assert_eq!(
            taken.unwrap(),
            Taken::Printed,
            "B prints it (A will find it gone)"
        );
        assert!(got.contains("hello"));
        // Printed in place earlier (held open on Windows, not deleted): given once only.
        snaps.save(&snap("again")).unwrap();
        set_mtime(&snaps.path(), SystemTime::now() - Duration::from_secs(5));
        s.write_atomically(&snaps.restored_marker(), GIVEN_IN_PLACE)
            .unwrap();
        assert_eq!(snaps.take_fresh(|_| Ok(())).unwrap(), Taken::TakenByOther);
        assert!(!snaps.path().exists());
    }

    #[test]
    fn failed_print_keeps_the_snapshot_and_clears_the_marker() {
        let (_d, s) = store();
        let snaps = s.session("s1");
        snaps.save(&snap("hello")).unwrap();
        let r = snaps.take_fresh(|_| Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed")));
        assert!(r.is_err());
        assert!(fs::read_to_string(snaps.path()).unwrap().contains("hello"));
        assert!(!snaps.recently_restored(Duration::from_secs(60)));
    }

    #[test]
    fn planted_symlink_is_replaced_not_followed() {
        let (d, s) = store();
        let snaps = s.session("s1");
        fs::create_dir_all(s.dir()).unwrap();
        let target = d.path().join("victim");
        fs::write(&target, "precious").unwrap();
        std::os::unix::fs::symlink(&target, snaps.path()).unwrap();
        assert_eq!(
            snaps.take_fresh(|_| panic!("printed a symlink")).unwrap(),
            Taken::Refused("not a regular file")
        );
        snaps.save(&snap("new")).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
        assert!(
            fs::symlink_metadata(snaps.path())
                .unwrap()
                .file_type()
                .is_file()
        );
    }

    #[test]
    fn restore_marker_symlink_is_replaced_not_written_through() {
        let (d, s) = store();
        let snaps = s.session("s1");
        fs::create_dir_all(s.dir()).unwrap();
        let victim = d.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, snaps.restored_marker()).unwrap();
        let dangling = d.path().join("outside-the-folder");
        let other = s.session("s2");
        std::os::unix::fs::symlink(&dangling, other.restored_marker()).unwrap();
        for sn in [&snaps, &other] {
            sn.save(&snap("x")).unwrap();
            assert_eq!(sn.take_fresh(|_| Ok(())).unwrap(), Taken::Printed);
            let m = fs::symlink_metadata(sn.restored_marker()).unwrap();
            assert!(m.file_type().is_file(), "the link was replaced");
            assert_eq!(m.mode() & 0o777, 0o600);
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!dangling.exists(), "nothing created outside the folder");
    }

    #[test]
    fn foreign_file_at_the_snapshot_path_is_not_printed_nor_marked() {
        let (_d, s) = store();
        let snaps = s.session("s1");
        fs::create_dir_all(s.dir()).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                "# Context saved by an older plugin\n"
                    .repeat(5000)
                    .into_bytes(),
                "too large",
            ),
            (
                b"# Context saved by an older plugin\nsmall".to_vec(),
                "not a snapshot",
            ),
            (
                format!("# {SNAPSHOT_MARKER} x\n{}", "\u{10348}".repeat(5_000)).into_bytes(),
                "not a snapshot",
            ),
            (vec![b'#', b' ', 0xff, 0xfe], "not a snapshot"),
            (
                // Cut short: a snapshot without its end line is never printed (issue #26).
                format!("# {SNAPSHOT_MARKER} x\n\n## Recent act").into_bytes(),
                "not a snapshot",
            ),
            (vec![b'x'; 300 * 1024], "too large"),
        ];
        for (bytes, why) in cases {
            fs::write(snaps.path(), &bytes).unwrap();
            match snaps
                .take_fresh(|_| panic!("printed a foreign file"))
                .unwrap()
            {
                Taken::Refused(r) => assert!(r.starts_with(why), "{r}"),
                other => panic!("{other:?}"),
            }
            assert_eq!(fs::read(snaps.path()).unwrap(), bytes, "left alone");
            assert!(!snaps.recently_restored(Duration::from_secs(60)));
        }
    }

    #[test]
    fn stale_and_future_snapshots_are_not_printed() {
        let (_d, s) = store();
        for (id, t) in [
            ("old", SystemTime::now() - Duration::from_secs(700)),
            ("future", SystemTime::now() + Duration::from_secs(3600)),
        ] {
            let snaps = s.session(id);
            snaps.save(&snap("x")).unwrap();
            set_mtime(&snaps.path(), t);
            assert_eq!(
                snaps.take_fresh(|_| panic!("printed stale")).unwrap(),
                Taken::Stale
            );
            assert!(!snaps.path().exists());
        }
    }

    #[test]
    fn remove_stale_spares_fresh_and_foreign_files() {
        let (_d, s) = store();
        s.session("fresh").save(&snap("x")).unwrap();
        s.session("old").save(&snap("x")).unwrap();
        set_mtime(
            &s.session("old").path(),
            SystemTime::now() - Duration::from_secs(900),
        );
        let foreign = s.dir().join("settings.json");
        fs::write(&foreign, "{}").unwrap();
        set_mtime(&foreign, SystemTime::now() - Duration::from_secs(900));
        assert_eq!(s.remove_stale(None).unwrap(), 1);
        assert!(s.session("fresh").path().exists() && foreign.exists());
    }

    #[test]
    fn remove_stale_stops_at_its_deadline() {
        let (_d, s) = store();
        s.session("old").save(&snap("x")).unwrap();
        set_mtime(
            &s.session("old").path(),
            SystemTime::now() - Duration::from_secs(900),
        );
        assert_eq!(s.remove_stale(Some(Instant::now())).unwrap(), 0);
        assert!(s.session("old").path().exists());
    }

    #[test]
    fn remove_leaves_what_is_not_ours() {
        let (d, s) = store();
        let snaps = s.session("s1");
        fs::create_dir_all(s.dir()).unwrap();
        let victim = d.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, snaps.path()).unwrap();
        snaps.remove().unwrap();
        assert!(fs::symlink_metadata(snaps.path()).is_ok());
        assert!(victim.exists());
    }

    #[test]
    fn folder_that_is_a_file_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("file");
        fs::write(&f, "").unwrap();
        assert!(
            Store::new(&f, Duration::from_secs(1))
                .session("s")
                .save("x")
                .is_err()
        );
    }
}
