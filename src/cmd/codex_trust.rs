//! What Codex itself says of the plugin's hooks, for `status` (issue #47, D077). Codex runs a
//! plugin's hook only while its trust record matches both the hook and a hash of the plugin's
//! files (`trusted_content_hash`); Codex computes that hash its own way (not documented, and not
//! any plain digest of the files we tried), so a record that no longer matches looks in
//! `config.toml` like one that does. `status` therefore asks Codex: it starts `codex app-server`
//! (what the TUI and the IDE extensions drive) with the same `CODEX_HOME`, sends `hooks/list`, and
//! reads each of the plugin's hooks' `trustStatus` ("trusted", "modified", "untrusted"). The
//! answer is awaited at most [`WAIT`]; the child is then killed and reaped. Without a `codex` on
//! PATH, or without an answer, the verdict is [`Trust::Unknown`] and `status` says so.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The longest `status` waits for Codex's answer (its app-server loads plugins and config first;
/// about a second measured, more on a loaded machine).
const WAIT: Duration = Duration::from_secs(20);

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
        // killed below (its stdout closes) or after the answer.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if msg.get("id").and_then(Value::as_u64) == Some(2) {
                    let _ = tx.send(msg);
                    break;
                }
            }
        });
    }
    let answer = rx.recv_timeout(WAIT);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    match answer {
        Ok(msg) => verdict(&msg),
        Err(_) => Trust::Unknown(format!(
            "`codex app-server` gave no hook list within {} s",
            WAIT.as_secs()
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

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
