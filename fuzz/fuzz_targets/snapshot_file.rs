//! Arbitrary bytes at a session's snapshot path: restore prints them only if they are a snapshot
//! this tool rendered, never more than Claude Code's inline limit, and never a foreign file.

#![no_main]

use compact_guardian::render::{HARD_LIMIT, is_snapshot, utf16_len};
use compact_guardian::store::Store;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let snaps = Store::new(dir.path(), Duration::from_secs(600)).session("s");
    std::fs::write(snaps.path(), data).unwrap();
    let mut printed = None;
    let _ = snaps.take_fresh(|t| {
        printed = Some(t.to_owned());
        Ok(())
    });
    if let Some(t) = printed {
        assert!(utf16_len(&t) <= HARD_LIMIT);
        assert!(is_snapshot(&t));
        assert_eq!(t.as_bytes(), data);
    }
});
