//! What every hook starts from: the hook JSON on stdin, its session id, that session's snapshots
//! in the configured folder, and the client that ran it ([`Hook::client`]).

use crate::cmd::failopen::debug;
use crate::input::client::Client;
use crate::input::config::Config;
use crate::input::hook_input::{self, HookInput};
use crate::read::reported::ReportedCall;
use crate::store::{Snapshots, Store};
use anyhow::{Context, Result};
use std::cell::OnceCell;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

/// A hook run's input, bound to its session.
pub struct Hook {
    /// The parsed hook JSON.
    pub input: HookInput,
    /// The session's snapshots, or why the snapshot folder cannot be used (no folder set and no
    /// home folder). A hook without a folder still steers and rebuilds.
    pub snapshots: Result<Snapshots>,
    /// The client, once asked ([`Hook::client`]).
    client: OnceCell<Client>,
}

impl Hook {
    /// The tool calls this session's hooks reported (its ledger, D083), oldest first: what the
    /// transcript may not hold yet.
    pub fn reported_calls(&self) -> Vec<ReportedCall> {
        self.snapshots
            .as_ref()
            .map(Snapshots::reported_calls)
            .unwrap_or_default()
    }

    /// The client that ran this hook ([`Client::of`]): the one the input names, else the one
    /// whose transcript it names (from its first line; read once, when first asked).
    pub fn client(&self) -> Client {
        *self.client.get_or_init(|| {
            Client::of(self.input.client, || {
                let path = self.input.transcript_path.as_deref()?;
                crate::read::transcript::format_of(Path::new(path)).map(Client::from)
            })
        })
    }
}

/// Reads the hook JSON from `input`. Fails only when there is no usable input or session id.
pub fn begin(input: impl Read, cfg: &Config) -> Result<Hook> {
    bind(hook_input::read(input)?, cfg)
}

/// Binds hook input already read to its session. Fails only when it has no session id.
pub fn bind(input: HookInput, cfg: &Config) -> Result<Hook> {
    let session = input
        .session_id
        .as_deref()
        .context("hook input has no session_id")?;
    let snapshots = cfg
        .dir
        .clone()
        .context("no snapshot folder: set COMPACT_GUARDIAN_DIR or HOME")
        .map(|dir| {
            Store::new(dir, cfg.ttl)
                .with_lock_wait(cfg.lock_wait())
                .session(session)
        });
    Ok(Hook {
        input,
        snapshots,
        client: OnceCell::new(),
    })
}

/// Removes the folder's stale files (snapshots whose restore never came, because the compaction
/// failed) within what is left of the budget; both hooks do this last. Failures only matter for
/// debugging.
pub fn remove_stale(snaps: &Snapshots, deadline: Instant, cfg: &Config) {
    match snaps.store().remove_stale(Some(deadline)) {
        Ok(n) => debug(cfg.debug, || format!("removed {n} stale file(s)")),
        Err(e) => debug(cfg.debug, || format!("stale cleanup failed: {e:#}")),
    }
}
