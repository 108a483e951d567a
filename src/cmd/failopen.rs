//! The one place that decides how a hook ends: always exit 0, with at most one line on stderr.
//!
//! A hook that fails can block or break a user's session (exit 2 from PreCompact even blocks the
//! compaction), so every error and every panic ends here as exit code 0 and a single short stderr
//! line that names no transcript content. A watchdog thread ends the process, still with 0, if the
//! work somehow outlives its hard limit (a stdin that never closes, a stalled disk).

use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

/// Where a panic happened (file:line), recorded by the panic hook. The panic *message* is not
/// kept by default: it can quote the string being processed, which may be a user's prompt.
static PANIC_AT: Mutex<Option<String>> = Mutex::new(None);

/// Runs a hook body fail-open. `name` prefixes the stderr line; `hard_limit` bounds the run.
pub fn run_hook(
    name: &str,
    debug_on: bool,
    hard_limit: Duration,
    body: impl FnOnce() -> anyhow::Result<()>,
) -> ExitCode {
    panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if debug_on {
            let _ = writeln!(
                std::io::stderr(),
                "compact-guardian: debug: panic at {at}: {info}"
            );
        }
        if let Ok(mut slot) = PANIC_AT.lock() {
            *slot = Some(at);
        }
    }));
    start_watchdog(name, debug_on, hard_limit);
    let guarded = || {
        // Lets the test suite prove, through the real binary, that a panic still ends in exit 0.
        if std::env::var_os("COMPACT_GUARDIAN_TEST_PANIC").is_some() {
            panic!("forced panic quoting a prompt: SECRET-PROMPT-TEXT");
        }
        body()
    };
    match panic::catch_unwind(AssertUnwindSafe(guarded)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => say(&format!("compact-guardian {name}: {e:#}")),
        Err(_) => {
            let at = PANIC_AT
                .lock()
                .ok()
                .and_then(|s| s.clone())
                .unwrap_or_default();
            say(&format!(
                "compact-guardian {name}: internal error at {at} (please report it)"
            ));
        }
    }
    ExitCode::SUCCESS
}

/// A thread that ends the process, with exit 0 and one line, once `hard_limit` has passed.
fn start_watchdog(name: &str, debug_on: bool, hard_limit: Duration) {
    let label = name.to_owned();
    // `thread::spawn` panics when the OS refuses a thread (a process limit): outside the catch
    // in `run_hook`, that would end the hook with exit 101. Without a watchdog the hook still
    // ends; the client's timeout is then the bound.
    let refused = std::env::var_os("COMPACT_GUARDIAN_TEST_NO_WATCHDOG").is_some(); // tests only
    let watchdog = (!refused).then(|| {
        std::thread::Builder::new().spawn(move || {
            std::thread::sleep(hard_limit);
            say(&format!(
                "compact-guardian {label}: gave up after {} s",
                hard_limit.as_secs()
            ));
            std::process::exit(0);
        })
    });
    if watchdog.is_none_or(|w| w.is_err()) {
        debug(debug_on, || "no watchdog thread could be started".into());
    }
}

/// Writes one line to stderr: newlines folded, length bounded, write errors ignored.
pub fn say(msg: &str) {
    let mut line: String = msg
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(400)
        .collect();
    line.push('\n');
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// A debug line (only with `COMPACT_GUARDIAN_DEBUG=1`).
pub fn debug(enabled: bool, msg: impl FnOnce() -> String) {
    if enabled {
        say(&format!("compact-guardian: debug: {}", msg()));
    }
}
