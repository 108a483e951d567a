//! The only operating-system-specific code: file ownership, no-follow opens, private folders and
//! whether stdout leads anywhere; and the clock ([`now`]). Unix uses `rustix`; Windows uses the standard library's
//! extensions. Everything else in the crate is portable.
//!
//! The promises, per platform:
//!
//! | promise | Unix | Windows |
//! |---|---|---|
//! | never open through a link | `O_NOFOLLOW` | `FILE_FLAG_OPEN_REPARSE_POINT`, then refuse a reparse point |
//! | never append through a second hard link | refused when the link count is over 1 | (no link count without unstable APIs) |
//! | only our own files | owner uid = effective uid | (no cheap owner check: the profile folder is private) |
//! | private files | 0600 (tempfile's default) | the folder's inherited ACL |
//! | private folder | created 0700 | the parent's inherited ACL |
//! | a FIFO never blocks an open | `O_NONBLOCK` | (no FIFOs on the file system) |
//! | stdout leads somewhere | not `/dev/null` | always assumed |
//! | a file-size limit fails a write, never kills | SIGXFSZ caught | (no such signal) |

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

#[cfg(unix)]
mod imp {
    use super::*;
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};

    pub fn open_no_follow(path: &Path) -> io::Result<File> {
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        OpenOptions::new()
            .read(true)
            .custom_flags(flags.bits() as i32)
            .open(path)
    }

    pub fn open_nonblocking(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path)
    }

    pub fn create_no_follow(path: &Path) -> io::Result<File> {
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(flags.bits() as i32)
            .open(path)
    }

    pub fn append_no_follow(path: &Path) -> io::Result<File> {
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(flags.bits() as i32)
            .open(path)
    }

    pub fn owned_by_us(meta: &Metadata) -> bool {
        meta.uid() == rustix::process::geteuid().as_raw()
    }

    pub fn other_links(meta: &Metadata) -> bool {
        meta.nlink() > 1
    }

    pub fn is_link_like(meta: &Metadata) -> bool {
        meta.file_type().is_symlink()
    }

    pub fn create_private_dir(path: &Path) -> io::Result<()> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
    }

    pub fn stdout_is_usable() -> bool {
        // A process started with fd 1 closed gets /dev/null there from the Rust runtime: printing
        // would "succeed" and the snapshot would be consumed unseen.
        let Ok(out) = rustix::fs::fstat(std::io::stdout()) else {
            return false;
        };
        let Ok(null) = rustix::fs::stat("/dev/null") else {
            return true;
        };
        !(out.st_dev == null.st_dev && out.st_ino == null.st_ino)
    }

    pub fn survive_file_size_limit() {
        // Caught, not ignored: the default action (the process killed, exit 153 in sh) is gone,
        // and a write past `ulimit -f` fails with EFBIG like a full disk. A caught signal goes
        // back to its default in anything exec'd, where an ignored one would stay ignored.
        static EXCEEDED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, &EXCEEDED);
    }
}

#[cfg(windows)]
mod imp {
    use super::*;
    use std::os::windows::fs::{MetadataExt, OpenOptionsExt};

    const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
    const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x0000_0400;

    pub fn open_no_follow(path: &Path) -> io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)?;
        if is_link_like(&file.metadata()?) {
            return Err(io::Error::other("a reparse point"));
        }
        Ok(file)
    }

    pub fn open_nonblocking(path: &Path) -> io::Result<File> {
        OpenOptions::new().read(true).open(path)
    }

    pub fn create_no_follow(path: &Path) -> io::Result<File> {
        // The reparse point itself is opened, not followed; `super::create_no_follow` refuses it.
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)
    }

    pub fn append_no_follow(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .append(true)
            .create(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)
    }

    pub fn owned_by_us(_: &Metadata) -> bool {
        true
    }

    pub fn other_links(_: &Metadata) -> bool {
        false
    }

    pub fn is_link_like(meta: &Metadata) -> bool {
        meta.file_type().is_symlink() || meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
    }

    pub fn create_private_dir(path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }

    pub fn stdout_is_usable() -> bool {
        // A process started without a stdout handle writes into nowhere (Rust drops the bytes):
        // the snapshot would be consumed unseen. A handle to NUL cannot be told apart without
        // unsafe calls; that case consumes it (D019).
        use std::os::windows::io::AsRawHandle;
        let handle = std::io::stdout().as_raw_handle();
        !handle.is_null() && handle as isize != -1
    }

    pub fn survive_file_size_limit() {}
}

/// Opens `path` for reading without following a symlink (or reparse point) at its last component
/// and without blocking on a FIFO.
pub fn open_no_follow(path: &Path) -> io::Result<File> {
    imp::open_no_follow(path)
}

/// Opens `path` for reading and writing, creating it private (0600 on Unix) if missing, without
/// following a symlink (or reparse point) at its last component: a lock file.
pub fn create_no_follow(path: &Path) -> io::Result<File> {
    let file = imp::create_no_follow(path)?;
    match refuse(&file.metadata()?) {
        Some(why) => Err(io::Error::other(why)),
        None => Ok(file),
    }
}

/// Opens `path` for appending, creating it private (0600 on Unix) if missing, without following
/// a symlink (or reparse point) at its last component, and never through a second hard link
/// (a hard-link backup, `cp -al` or `rsync --link-dest`, would have its copy changed, and a
/// planted link would take the lines elsewhere): a ledger each hook adds one line to. The one
/// file written in place; see [`has_other_links`].
pub fn append_no_follow(path: &Path) -> io::Result<File> {
    let file = imp::append_no_follow(path)?;
    let meta = file.metadata()?;
    match refuse(&meta) {
        Some(why) => Err(io::Error::other(why)),
        None if imp::other_links(&meta) => Err(io::Error::other("a file with another hard link")),
        None => Ok(file),
    }
}

/// Whether the regular file at `path` (not followed) has another hard link: what
/// [`append_no_follow`] refuses, and its caller may move aside.
pub fn has_other_links(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && imp::other_links(&m))
}

/// Opens `path` for reading without ever blocking (a FIFO swapped in after a check returns at once).
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    imp::open_nonblocking(path)
}

/// Why this tool must not read, replace or delete the file described by `meta` (taken without
/// following links), if it must not: only regular files owned by this user qualify.
pub fn refuse(meta: &Metadata) -> Option<&'static str> {
    if imp::is_link_like(meta) || !meta.file_type().is_file() {
        return Some("not a regular file");
    }
    if !imp::owned_by_us(meta) {
        return Some("owned by another user");
    }
    None
}

/// Creates `path` and its missing parents, private to this user where the OS allows.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    imp::create_private_dir(path)
}

/// Makes a write past the file-size limit (`ulimit -f`) fail with an error instead of killing
/// the process, as SIGPIPE is ignored for a closed pipe: a hook always exits 0 (issue #41).
pub fn survive_file_size_limit() {
    imp::survive_file_size_limit()
}

/// False when stdout demonstrably leads nowhere (it was closed when the process started), so
/// that restore does not consume a snapshot nobody will read.
pub fn stdout_is_usable() -> bool {
    imp::stdout_is_usable()
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
