//! What both hooks start from: the hook JSON on stdin, its session id, and that session's
//! snapshots in the configured folder.

use crate::config::Config;
use crate::hook_input::{self, HookInput};
use crate::store::{Snapshots, Store};
use anyhow::{Context, Result};
use std::io::Read;

/// A hook run's input, bound to its session.
pub struct Hook {
    /// The parsed hook JSON.
    pub input: HookInput,
    /// The session's snapshots, or why the snapshot folder cannot be used (no folder set and no
    /// home folder). A hook without a folder still steers and rebuilds.
    pub snapshots: Result<Snapshots>,
}

/// Reads the hook JSON from `input`. Fails only when there is no usable input or session id.
pub fn begin(input: impl Read, cfg: &Config) -> Result<Hook> {
    let input = hook_input::read(input)?;
    let session = input
        .session_id
        .as_deref()
        .context("hook input has no session_id")?;
    let snapshots = cfg
        .dir
        .clone()
        .context("no snapshot folder: set COMPACT_GUARDIAN_DIR or HOME")
        .map(|dir| Store::new(dir, cfg.ttl).session(session));
    Ok(Hook { input, snapshots })
}
