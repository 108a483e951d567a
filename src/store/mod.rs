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

pub(crate) mod history;
pub(crate) mod installs;
pub(crate) mod ledger;

use crate::platform;
use crate::snapshot::{HARD_LIMIT_BYTES, is_snapshot};
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
/// A file at a snapshot path larger than this is not a snapshot of this tool (whose output is at
/// most 10,000 UTF-16 code units).
const MAX_SNAPSHOT_BYTES: u64 = HARD_LIMIT_BYTES as u64;
/// A modification time this far in the future is not trusted: the file is treated as stale.
const FUTURE_SLACK: Duration = Duration::from_secs(60);
/// The restored marker's content once a snapshot was printed where it lay (D019); a claim in
/// progress leaves it empty.
const GIVEN_IN_PLACE: &[u8] = b"printed in place";
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
/// How long a claimed file is left to its claimer: far longer than any hook lives (its budget and
/// watchdog, seconds); past it, the file is the leftover of a claimer that was killed.
const CLAIM_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// Marker prefix: "this session's snapshot was just restored" (see
/// [`Snapshots::recently_restored`]).
const RESTORED_PREFIX: &str = ".compact-snapshot-restored-";

/// Marker prefix: "this session's compaction happened and its client restores later" (Codex):
/// its snapshot then keeps for [`DEFERRED_TTL`] instead of the TTL.
const DEFERRED_PREFIX: &str = ".compact-snapshot-deferred-";
/// How long what was promised to the user waits for the client to take it (D026, D040): a
/// snapshot whose restore Codex defers (the next prompt, or a resume, may come days after a
/// manual `/compact`), and a session's corrections (the model is told at the session's next
/// prompt or tool call, however much later it comes). Thirty days is how long Claude Code keeps
/// a session's transcript by default (`cleanupPeriodDays`): past it, the session cannot go on.
pub const DEFERRED_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The longest transcript path a deferred marker records (longer ones are not recorded: the
/// marker then keeps for [`DEFERRED_TTL`], as before it recorded any).
const MAX_MARKED: usize = 16 * 1024;

/// Corrections waiting for the model (hidden: stale ones are removed like any other leftover).
const CORRECTIONS_PREFIX: &str = ".compact-snapshot-corrections-";
/// The largest corrections file read: the section is at most [`crate::corrections::MAX_UNITS`]
/// UTF-16 units (up to 3 bytes each, escaped in JSON), with the user's line beside it.
const MAX_CORRECTIONS_BYTES: u64 = 8 * crate::corrections::MAX_UNITS as u64;

/// Whether something promised to the user, modified at `modified`, has waited past
/// [`DEFERRED_TTL`] (or is dated past the clock's slack in the future).
fn promise_expired(modified: Option<SystemTime>, now: SystemTime) -> bool {
    older_than(modified, DEFERRED_TTL, now)
}

/// What an OpenCode session's model is given after its newest compaction, bound to that
/// compaction: read again by every request until the next one, by any OpenCode process (D052).
const CONTEXT_PREFIX: &str = ".compact-snapshot-context-";
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

    /// Whether the file `name` waits for a deferred restore: a deferred marker younger than
    /// [`DEFERRED_TTL`], or a session's snapshot that such a marker covers.
    fn kept_for_deferred_restore(
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
    fn session_ended(&self, path: &Path) -> bool {
        let Some(bytes) = read_ours(path, MAX_CORRECTIONS_BYTES) else {
            return false;
        };
        serde_json::from_slice::<Pending>(&bytes)
            .ok()
            .and_then(|p| p.transcript)
            .is_some_and(|t| transcript_gone(Path::new(&t)))
    }

    fn session_named(&self, name: String) -> Snapshots {
        Snapshots {
            store: self.clone(),
            name,
        }
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
    /// The name of this session's digest for the PostCompact audit (hidden, so stale ones are
    /// removed like any other leftover).
    fn digest_name(&self) -> String {
        format!("{HIDDEN_PREFIX}digest-{}.json", self.id())
    }

    /// The session's part of the snapshot's file name (the id, or its hash).
    fn id(&self) -> &str {
        self.name
            .trim_start_matches(PREFIX)
            .trim_end_matches(SUFFIX)
    }

    /// Reads this session's file `name` if it is ours, at most `max` bytes and `fresh` by its
    /// modification time, then deletes it either way: a file handed over once.
    fn take_once(
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

    /// Says that this session's compaction happened and its client restores later (Codex runs
    /// PostCompact first and SessionStart at the next turn): its snapshot and corrections then
    /// keep for [`DEFERRED_TTL`], or until `transcript` (the session's, which the marker records)
    /// is gone: the snapshot quotes the user, and nothing can continue the session (D063).
    pub(crate) fn defer(&self, transcript: Option<&str>) -> Result<()> {
        let named = transcript.filter(|t| Path::new(t).is_absolute() && t.len() <= MAX_MARKED);
        self.store
            .write_atomically(&self.deferred_marker(), named.unwrap_or("").as_bytes())
    }

    fn deferred_marker(&self) -> PathBuf {
        self.store
            .dir
            .join(format!("{DEFERRED_PREFIX}{}", self.name))
    }

    /// When the session's restore was deferred, if it was within [`DEFERRED_TTL`] (a marker of
    /// ours).
    fn deferred(&self) -> Option<SystemTime> {
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
    /// for a file no newer than a deferred marker, [`DEFERRED_TTL`].
    fn expired(&self, modified: Option<SystemTime>) -> bool {
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

    /// The name of this session's pending corrections (see [`crate::corrections`]).
    fn corrections_name(&self) -> String {
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
    fn read_claimed_corrections(&self, claimed: &Path) -> Option<Pending> {
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
    fn context_name(&self) -> String {
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
    fn print_in_place(
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
    fn already_given(&self, meta: &fs::Metadata) -> bool {
        let path = self.restored_marker();
        let Ok(marker) = fs::symlink_metadata(&path) else {
            return false;
        };
        platform::refuse(&marker).is_none()
            && matches!((marker.modified(), meta.modified()), (Ok(m), Ok(s)) if m > s)
            && read_ours(&path, 64).as_deref() == Some(GIVEN_IN_PLACE)
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

    fn restored_marker(&self) -> PathBuf {
        self.store
            .dir
            .join(format!("{RESTORED_PREFIX}{}", self.name))
    }

    fn remove_marker(&self) {
        let _ = remove_ours(&self.restored_marker());
    }

    fn print_claimed(
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

/// When the file named `name` was claimed ([`claim_name`]), if it is a claimed file. A claim
/// without a readable time is dated at the epoch: a leftover, swept at once.
fn claimed_at(name: &str) -> Option<SystemTime> {
    let rest = name.strip_prefix(CLAIMED_PREFIX)?;
    let nanos = rest
        .rsplit('-')
        .next()
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    Some(SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos))
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

/// Whether the deferred marker at `marker` names a transcript that is gone ([`Snapshots::defer`]).
fn marker_outlived(marker: &Path) -> bool {
    read_ours(marker, MAX_MARKED as u64)
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|t| !t.is_empty() && transcript_gone(Path::new(&t)))
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

/// What is at a snapshot's place, once read.
enum Found {
    /// A snapshot this tool wrote, whole: its text.
    Snapshot(String),
    /// Something this tool must not print, and why.
    NotPrintable(&'static str),
}

/// Reads the file at `path` (no links followed) if it is a snapshot this tool may print: a
/// regular file of ours, at most [`MAX_SNAPSHOT_BYTES`], valid UTF-8, that [`is_snapshot`].
/// An error is an I/O failure; [`Found::NotPrintable`] says why the file is not printable.
fn read_snapshot(path: &Path) -> io::Result<Found> {
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
