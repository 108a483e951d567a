//! `restore`: the SessionStart(compact) hook. Prints the session's fresh snapshot exactly once;
//! without one, rebuilds the context from the transcript part that was just compacted
//! ([`compacted_part`]).

use crate::config::Config;
use crate::extract::{compacted_part, extract};
use crate::failopen::debug;
use crate::hook_input;
use crate::render::{Meta, Source, render};
use crate::store::Taken;
use crate::transcript::{self, Limits};
use anyhow::{Result, bail};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// A snapshot restored this recently means this run is a duplicate hook, not a new compaction.
const RECENT_RESTORE: Duration = Duration::from_secs(60);

/// Reads hook input from `input` and prints the session's context to `out`.
pub fn restore(
    input: impl Read,
    cfg: &Config,
    deadline: Instant,
    out: &mut impl Write,
) -> Result<()> {
    let (hook, session, store) = super::hook_context(input, cfg)?;
    let session = session.as_str();
    let taken = store.take_fresh(session, |text| {
        out.write_all(text.as_bytes())?;
        out.flush()
    })?;
    debug(cfg.debug, || {
        format!("snapshot for this session: {taken:?}")
    });
    // Printed here, or by a restore racing this one, or by a duplicate hook moments ago: the model
    // already has the saved context, and a rebuilt copy would only repeat it.
    if matches!(taken, Taken::Printed | Taken::TakenByOther)
        || store.recently_restored(session, RECENT_RESTORE)
    {
        return Ok(());
    }
    let rebuilt = rebuild(&hook, cfg, deadline, out);
    if let Taken::Refused(why) = taken {
        bail!("ignored {}: {why}", store.path_for(session).display());
    }
    rebuilt
}

/// The fallback: no fresh snapshot, so extract from the conversation that was just compacted.
fn rebuild(
    hook: &hook_input::HookInput,
    cfg: &Config,
    deadline: Instant,
    out: &mut impl Write,
) -> Result<()> {
    if hook.source.as_deref().is_some_and(|s| s != "compact") {
        return Ok(()); // not after a compaction: nothing to restore
    }
    let Some(path) = hook.transcript_path.as_deref() else {
        return Ok(());
    };
    let limits = Limits {
        max_bytes: cfg.scan_bytes,
        deadline: Some(deadline),
    };
    let scan = transcript::scan(Path::new(path), limits)?;
    debug(cfg.debug, || format!("rebuild scan: {:?}", scan.stats));
    let ex = extract(compacted_part(&scan.records));
    if ex.is_empty() {
        return Ok(());
    }
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: None,
        cwd: hook.cwd.clone(),
        git_branch: None,
        focus: None,
        source: Source::Rebuilt,
    };
    out.write_all(render(&ex, &meta).as_bytes())?;
    out.flush()?;
    Ok(())
}
