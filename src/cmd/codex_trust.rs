//! What Codex itself says of the plugin's hooks, for `status` (issue #47, D077). Codex runs a
//! plugin's hook only while its trust record matches both the hook and a hash of the plugin's
//! files (`trusted_content_hash`); Codex computes that hash its own way (not documented, and not
//! any plain digest of the files we tried), so a record that no longer matches looks in
//! `config.toml` like one that does. `status` therefore asks Codex: it starts `codex app-server`
//! (what the TUI and the IDE extensions drive) with the same `CODEX_HOME`, sends `hooks/list`, and
//! reads each of the plugin's hooks' `trustStatus` ("trusted", "modified", "untrusted"). The
//! answer is awaited at most [`WAIT`], and read within bounds ([`MAX_LINE`] a line, [`MAX_READ`]
//! in all: a broken wrapper that prints one endless line never grows `status`, issue #55); the
//! child is then killed and reaped. Without a `codex` on PATH, or without an answer, the verdict
//! is [`Trust::Unknown`] and `status` says so. And what
//! Codex's own record says happened: a compaction in a rollout for which none of our hooks ran
//! ([`unhooked_compaction`]), the one trace a refused hook leaves.

use crate::read::tail::TailReader;
use crate::store::history::Entry;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The newest rollouts looked at for a compaction, and how far back in each (status stays quick
/// on long sessions; a compaction further back is older than what follows it).
const ROLLOUTS: usize = 8;
const ROLLOUT_TAIL: u64 = 8 * 1024 * 1024;
/// How far apart a compaction in a rollout and our `save` for it may be (PreCompact runs just
/// before Codex writes the compaction; a loaded machine is slow).
const SLACK_SECS: u64 = 120;

/// The longest `status` waits for Codex's answer (its app-server loads plugins and config first;
/// about a second measured, more on a loaded machine).
const WAIT: Duration = Duration::from_secs(20);
/// The longest line of the app-server's output read: a `hooks/list` answer names each hook in a
/// few hundred bytes, so this is thousands of hooks. A longer line is passed over.
const MAX_LINE: usize = 4 * 1024 * 1024;
/// The most of the app-server's output read in all, before its answer.
const MAX_READ: u64 = 16 * 1024 * 1024;

/// The plugin's hooks as Codex lists them.
#[derive(Debug, PartialEq, Eq)]
pub enum Trust {
    /// Codex lists this many hooks of the plugin and trusts every one: it runs them.
    Trusted(usize),
    /// Codex lists `listed` hooks of the plugin and refuses those it does not trust: `modified`
    /// (trusted once, changed since: "plugin contents changed; hook approval required") and
    /// `untrusted` (never trusted).
    Refused {
        listed: usize,
        modified: usize,
        untrusted: usize,
    },
    /// Codex could not be asked, or lists no hook of the plugin (why, for the user).
    Unknown(String),
}

/// Asks the `codex` on PATH, with Codex's home `codex_home`, how it trusts the plugin's hooks.
pub fn ask(codex_home: &Path, cwd: &Path) -> Trust {
    let spawned = Command::new("codex")
        .arg("app-server")
        .env("CODEX_HOME", codex_home)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return Trust::Unknown(format!("could not run `codex app-server` ({e})")),
    };
    let requests = [
        json!({"method": "initialize", "id": 1, "params": {"clientInfo": {
            "name": "compact-guardian-status", "title": "compact-guardian status",
            "version": env!("CARGO_PKG_VERSION")}}}),
        json!({"method": "initialized"}),
        json!({"method": "hooks/list", "id": 2, "params": {"cwds": [cwd]}}),
    ];
    let mut stdin = child.stdin.take();
    let wrote = stdin.as_mut().is_some_and(|s| {
        requests
            .iter()
            .all(|r| writeln!(s, "{r}").is_ok() && s.flush().is_ok())
    });
    let (tx, rx) = mpsc::channel();
    if let (true, Some(stdout)) = (wrote, child.stdout.take()) {
        // A thread of its own: a read cannot be given a deadline. It ends when the child is
        // killed below (its stdout closes), after the answer, or at the bound.
        std::thread::spawn(move || {
            let _ = tx.send(hook_list(BufReader::new(stdout.take(MAX_READ))));
        });
    }
    let answer = rx.recv_timeout(WAIT);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    match answer {
        Ok(Some(msg)) => verdict(&msg),
        Ok(None) => Trust::Unknown(format!(
            "`codex app-server` gave no hook list in the first {} MB it printed",
            MAX_READ / (1024 * 1024)
        )),
        Err(_) => Trust::Unknown(format!(
            "`codex app-server` gave no hook list within {} s",
            WAIT.as_secs()
        )),
    }
}

/// The answer to `hooks/list` (id 2) among the app-server's lines, read from `out` (which ends at
/// [`MAX_READ`]) a line of at most [`MAX_LINE`] at a time; `None` when it ends first.
fn hook_list(mut out: impl BufRead) -> Option<Value> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let whole = read_line_within(&mut out, &mut line, MAX_LINE).ok()?;
        if line.is_empty() && whole {
            return None; // the end
        }
        if !whole {
            continue; // longer than any answer: passed over
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if msg.get("id").and_then(Value::as_u64) == Some(2) {
            return Some(msg);
        }
    }
}

/// Reads one line of `out` into `line`, keeping at most `max` bytes of it and reading past the
/// rest. `Ok(true)` when the line (or what is left, at the end) was kept whole; an empty `line`
/// with `Ok(true)` is the end.
fn read_line_within(
    out: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<bool> {
    let mut whole = true;
    loop {
        let buf = out.fill_buf()?;
        if buf.is_empty() {
            return Ok(whole);
        }
        let (taken, ends) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = max.saturating_sub(line.len());
        if whole && taken <= room {
            line.extend_from_slice(&buf[..taken]);
        } else {
            whole = false;
            line.clear();
        }
        out.consume(taken);
        if ends {
            return Ok(whole);
        }
    }
}

/// The verdict on one `hooks/list` answer: only the plugin's own hooks (`pluginId`
/// `compact-guardian@<marketplace>`) count.
pub fn verdict(answer: &Value) -> Trust {
    if let Some(e) = answer.get("error") {
        return Trust::Unknown(format!("`codex app-server` answered with an error: {e}"));
    }
    let hooks: Vec<&Value> = answer["result"]["data"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|d| d["hooks"].as_array().into_iter().flatten())
        .filter(|h| {
            h["pluginId"]
                .as_str()
                .is_some_and(|id| id.starts_with("compact-guardian@"))
        })
        .collect();
    let count = |status: &str| {
        hooks
            .iter()
            .filter(|h| h["trustStatus"].as_str() == Some(status))
            .count()
    };
    let (listed, trusted) = (hooks.len(), count("trusted"));
    if listed == 0 {
        Trust::Unknown("Codex lists no hook of the plugin".to_owned())
    } else if trusted == listed {
        Trust::Trusted(listed)
    } else {
        Trust::Refused {
            listed,
            modified: count("modified"),
            untrusted: listed - trusted - count("modified"),
        }
    }
}

/// The newest compaction in Codex's rollouts under `home` (its time and session id) that none of
/// our hooks recorded, if it came after `since` (the plugin's install: a compaction before it was
/// never ours to protect). Codex writes a `"type":"compacted"` line into the session's rollout
/// whether or not it ran our hooks; `save` adds a history entry for the session within seconds.
pub fn unhooked_compaction(home: &Path, entries: &[Entry], since: u64) -> Option<(u64, String)> {
    newest_rollouts(&home.join("sessions"))
        .into_iter()
        .filter_map(|path| {
            let session = session_of(&path)?;
            let time = last_compaction(&path)?;
            Some((time, session))
        })
        .filter(|(time, session)| {
            *time >= since
                && !entries.iter().any(|e| {
                    e.session == *session && e.save_ran && e.time.abs_diff(*time) <= SLACK_SECS
                })
        })
        .max_by_key(|(time, _)| *time)
}

/// When Codex last installed the plugin (`installed`: its ids, `compact-guardian@<marketplace>`):
/// the newest of its copies in `<home>/plugins/cache/<marketplace>/compact-guardian/<version>`.
pub fn install_time(home: &Path, installed: &[String]) -> u64 {
    installed
        .iter()
        .filter_map(|id| id.split_once('@'))
        .flat_map(|(plugin, marketplace)| {
            let copies = home.join("plugins/cache").join(marketplace).join(plugin);
            std::fs::read_dir(copies).into_iter().flatten().flatten()
        })
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .filter_map(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
        .max()
        .unwrap_or(0)
}

/// The [`ROLLOUTS`] most recently written rollouts, from the newest day folders
/// (`sessions/YYYY/MM/DD/rollout-*.jsonl`).
fn newest_rollouts(sessions: &Path) -> Vec<PathBuf> {
    let sorted_desc = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        v.sort();
        v.reverse();
        v
    };
    let mut files: Vec<(SystemTime, PathBuf)> = Vec::new();
    'days: for year in sorted_desc(sessions).into_iter().filter(|p| p.is_dir()) {
        for month in sorted_desc(&year).into_iter().filter(|p| p.is_dir()) {
            for day in sorted_desc(&month).into_iter().filter(|p| p.is_dir()) {
                for f in sorted_desc(&day) {
                    let rollout = f.extension().is_some_and(|e| e == "jsonl");
                    if let (true, Ok(meta)) = (rollout, std::fs::symlink_metadata(&f))
                        && meta.is_file()
                    {
                        files.push((meta.modified().unwrap_or(UNIX_EPOCH), f));
                    }
                }
                if files.len() >= ROLLOUTS {
                    break 'days;
                }
            }
        }
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files.into_iter().take(ROLLOUTS).map(|(_, f)| f).collect()
}

/// A rollout's session id: the last 36 characters of its name (`rollout-<time>-<uuid>.jsonl`).
fn session_of(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    id.bytes()
        .all(|b| b.is_ascii_hexdigit() || b == b'-')
        .then(|| id.to_owned())
}

/// When the newest compaction in the last [`ROLLOUT_TAIL`] bytes of a rollout was written.
fn last_compaction(path: &Path) -> Option<u64> {
    let file = std::fs::File::open(path).ok()?;
    let mut reader = TailReader::from_file(file).ok()?;
    let end = reader.remaining();
    let mut found = None;
    while found.is_none() && end - reader.remaining() < ROLLOUT_TAIL {
        let more = reader
            .read_chunk(|line| {
                if found.is_none()
                    && memchr::memmem::find(line, b"\"type\":\"compacted\"").is_some()
                {
                    found = line_time(line);
                }
            })
            .ok()?;
        if !more {
            break;
        }
    }
    found
}

/// The epoch seconds of a rollout line's `"timestamp":"YYYY-MM-DDTHH:MM:SS..."`.
fn line_time(line: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(line, b"\"timestamp\":\"")? + 13;
    let t = std::str::from_utf8(line.get(at..at + 19)?).ok()?;
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<u64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y < 1970 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm), years counted from March.
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollout_time_is_read_as_utc_epoch_seconds() {
        let line = br#"{"timestamp":"2026-11-28T19:56:23.136Z","type":"compacted"}"#;
        assert_eq!(line_time(line), Some(1_795_895_783));
        assert_eq!(
            line_time(br#"{"timestamp":"1970-01-01T00:00:00Z"}"#),
            Some(0)
        );
        assert_eq!(line_time(br#"{"timestamp":"2026-13-01T00:00:00Z"}"#), None);
        assert_eq!(line_time(br#"{"timestamp":"soon"}"#), None);
    }

    fn entry(session: &str, time: u64) -> Entry {
        serde_json::from_value(json!({"time": time, "session": session, "save_ran": true})).unwrap()
    }

    #[test]
    fn a_compaction_no_hook_of_ours_recorded_is_found_and_a_recorded_one_is_not() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/11/28");
        std::fs::create_dir_all(&day).unwrap();
        let id = "01a223ba-e7af-7520-a026-5671ba8b5756";
        std::fs::write(
            day.join(format!("rollout-2026-11-28T19-56-21-{id}.jsonl")),
            concat!(
                "{\"timestamp\":\"2026-11-28T19:56:21.000Z\",\"type\":\"session_meta\"}\n",
                "{\"timestamp\":\"2026-11-28T19:56:23.136Z\",\"type\":\"compacted\",\"payload\":{}}\n",
                "{\"timestamp\":\"2026-11-28T19:56:24.000Z\",\"type\":\"event_msg\"}\n",
            ),
        )
        .unwrap();
        let t = 1_795_895_783;
        assert_eq!(
            unhooked_compaction(home.path(), &[], 0),
            Some((t, id.to_owned()))
        );
        assert_eq!(
            unhooked_compaction(home.path(), &[entry(id, t - 1)], 0),
            None
        );
        assert_eq!(
            unhooked_compaction(home.path(), &[entry("another", t)], 0),
            Some((t, id.to_owned()))
        );
        assert_eq!(
            unhooked_compaction(home.path(), &[], t + 1),
            None,
            "before the install"
        );
    }

    fn answer(statuses: &[(&str, &str)]) -> Value {
        let hooks: Vec<Value> = statuses
            .iter()
            .map(|(plugin, status)| json!({"pluginId": plugin, "trustStatus": status}))
            .collect();
        json!({"id": 2, "result": {"data": [{"cwd": "/p", "hooks": hooks}]}})
    }

    #[test]
    fn every_hook_trusted_is_trusted_and_other_plugins_do_not_count() {
        let a = answer(&[
            ("compact-guardian@compact-guardian", "trusted"),
            ("compact-guardian@compact-guardian", "trusted"),
            ("other@market", "modified"),
        ]);
        assert_eq!(verdict(&a), Trust::Trusted(2));
    }

    #[test]
    fn a_modified_or_untrusted_hook_is_refused() {
        let a = answer(&[
            ("compact-guardian@compact-guardian", "trusted"),
            ("compact-guardian@compact-guardian", "modified"),
            ("compact-guardian@m", "untrusted"),
        ]);
        assert_eq!(
            verdict(&a),
            Trust::Refused {
                listed: 3,
                modified: 1,
                untrusted: 1
            }
        );
    }

    #[test]
    fn the_answer_is_found_past_a_line_too_long_and_not_past_the_end() {
        let answer = r#"{"id":2,"result":{"data":[]}}"#;
        let long = "x".repeat(MAX_LINE + 10);
        let out = format!("{{\"method\":\"note\"}}\n{long}\n{{\"id\":1}}\n{answer}\n");
        assert_eq!(
            hook_list(std::io::Cursor::new(out.into_bytes())),
            Some(serde_json::from_str(answer).unwrap())
        );
        // An answer longer than a line may be is never read; nor one past the bound.
        let cut = format!("{{\"id\":2,\"pad\":\"{long}\"}}\n");
        assert_eq!(hook_list(std::io::Cursor::new(cut.into_bytes())), None);
        let past = format!("{}\n{answer}\n", "y".repeat(64));
        let bounded = BufReader::new(std::io::Cursor::new(past.into_bytes()).take(40));
        assert_eq!(hook_list(bounded), None);
        // The last line without its newline still counts.
        let bare = std::io::Cursor::new(answer.as_bytes().to_vec());
        assert!(hook_list(bare).is_some());
    }

    #[test]
    fn no_hook_of_ours_or_an_error_is_unknown() {
        assert!(matches!(
            verdict(&answer(&[("other@m", "trusted")])),
            Trust::Unknown(_)
        ));
        assert!(matches!(
            verdict(&json!({"id": 2, "error": {"message": "no"}})),
            Trust::Unknown(_)
        ));
    }
}
