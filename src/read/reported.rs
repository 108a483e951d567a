//! A tool call's outcome as the client's own hooks report it (`PostToolUse`,
//! `PostToolUseFailure`): the command or file, and whether it failed and what it printed. The
//! hook has it before the transcript may hold it: Claude Code batches its writes, and a test run
//! that failed right before an automatic compaction was often not yet written when PreCompact
//! read the transcript (issue #46, D083). Kept per session by the store (`store::ledger`), and
//! read back here as the two transcript records the call would have made, so that the extraction
//! treats a reported call exactly as a written one.

use crate::input::hook_input::{HookInput, ToolReport};
use crate::read::record::{Record, bounded, bounded_tail, parse_line};
use crate::read::tools::{is_edit, is_shell};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether the hook `event`'s input reports a finished tool call.
pub fn reports_a_call(event: &str) -> bool {
    matches!(event, "PostToolUse" | "PostToolUseFailure")
}

/// Whether a call the hook `event` reports of `tool` is kept: a command or an edit. `correct`
/// asks before it parses the rest of its input, [`ReportedCall::of`] once it has.
pub fn kept(event: &str, tool: &str) -> bool {
    reports_a_call(event) && (is_shell(tool) || is_edit(tool))
}

/// `t` in nanoseconds since the epoch (0 before it): how [`ReportedCall::at`] and a file's
/// modification time are compared.
pub fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// How much of a command's output is kept, at each end: more than the transcript reader keeps
/// of a result (its head and tail), less than would make the ledger costly to read.
const KEEP_OUTPUT: usize = 2 * 1024;

/// The members of a call's input kept: what names the command or the file (the transcript
/// reader's `key_arg` and written paths); an edit's text is not needed.
const KEPT_INPUT: &[&str] = &[
    "command",
    "file_path",
    "notebook_path",
    "path",
    "description",
];

/// How long a kept input member may be.
const KEEP_INPUT: usize = 1024;

/// One tool call's outcome, as one line of the session's ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedCall {
    /// When the hook was told, in nanoseconds since the epoch: compared with the transcript's
    /// modification time to tell whether the transcript can hold the call yet.
    pub at: u64,
    /// The call's id in the transcript (`tool_use_id`).
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The call's input members that name its command or file.
    pub input: BTreeMap<String, String>,
    /// The call failed (a non-zero exit, a refused edit, an interruption).
    pub failed: bool,
    /// What it printed (or why it failed): its head and tail, bounded.
    pub output: String,
    /// It was started in the background (`run_in_background`, a `backgroundTaskId`, Codex's
    /// "Process running with session ID"): it had not ended when the hook was told.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub running: bool,
    /// The report states no exit status (Codex gives a command's result as its text): how it
    /// ended is read from the text as the rollout's own is, never assumed a success.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstated: bool,
}

impl ReportedCall {
    /// The outcome the hook input reports, if it reports a shell command or an edit made by the
    /// main agent (a subagent's calls are its own conversation's, as in the transcript).
    pub fn of(input: &HookInput, at: u64) -> Option<ReportedCall> {
        let event = input.hook_event_name.as_deref()?;
        let report = input.tool.as_ref()?;
        if !kept(event, &report.name) || input.agent_id.is_some() {
            return None;
        }
        let end = ended(report, event == "PostToolUseFailure");
        Some(ReportedCall {
            at,
            id: bounded(&report.id, 256),
            tool: bounded(&report.name, 128),
            input: kept_input(&report.input),
            failed: end.failed,
            output: ends(&end.output),
            running: end.running,
            unstated: end.unstated,
        })
    }

    /// The call and its result as the transcript would hold them, newest (the result) first.
    /// `None` for a line that does not make them (never for an outcome this module made).
    pub fn records(&self) -> Option<[Record; 2]> {
        let result = json!({"type": "user", "message": {"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": self.id, "is_error": self.failed,
            "content": self.output,
        }]}});
        let call = json!({"type": "assistant", "message": {"role": "assistant", "content": [{
            "type": "tool_use", "id": self.id, "name": self.tool, "input": self.input,
        }]}});
        let parse = |v: Value| parse_line(v.to_string().as_bytes());
        let mut result = parse(result)?;
        for r in &mut result.tool_results {
            r.running |= self.running;
            r.unstated |= self.unstated && !self.failed;
        }
        Some([result, parse(call)?])
    }
}

/// How a reported call ended.
struct End {
    failed: bool,
    output: String,
    running: bool,
    unstated: bool,
}

/// Whether the call failed, and its output (or why it failed) as the transcript would say it.
fn ended(report: &ToolReport, failure_event: bool) -> End {
    let end = |failed, output| End {
        failed,
        output,
        running: false,
        unstated: false,
    };
    if let Some(error) = &report.error {
        return end(true, error.clone());
    }
    // A background start (Claude Code's `run_in_background`): running, however it looks.
    let task = match &report.response {
        Some(Value::Object(o)) => o.get("backgroundTaskId").and_then(Value::as_str),
        _ => None,
    };
    let background = report.input.get("run_in_background") == Some(&Value::Bool(true));
    if task.is_some_and(|t| !t.is_empty()) || background {
        let id = task.unwrap_or("?");
        return End {
            running: true,
            ..end(
                false,
                format!("Command running in background with ID: {id}."),
            )
        };
    }
    let (exit, text, stated) = match &report.response {
        // Codex reports the text its model reads: the exit status is in it, if anywhere.
        Some(Value::String(s)) => (text_exit(s), s.clone(), false),
        Some(Value::Object(o)) => (exit_code(o), printed(o), true),
        _ => (None, String::new(), true),
    };
    match exit {
        // Codex-like reports state the exit code beside the output: said the way Claude Code's
        // Bash says it, at the head, where the reader looks for it.
        Some(code) if code != 0 => end(true, format!("Exit code {code}\n{text}")),
        Some(_) => end(failure_event, text),
        None if stated || failure_event => end(failure_event, text),
        None => End {
            running: text.contains("Process running with session ID"),
            unstated: !text.contains("Process running with session ID"),
            ..end(false, text)
        },
    }
}

/// The exit status a command's text states, as a Codex rollout writes it ("Process exited with
/// code 2", "Exit code: 0").
fn text_exit(text: &str) -> Option<i64> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Process exited with code ")
            .or_else(|| l.trim().strip_prefix("Exit code: "))
            .and_then(|c| c.trim().parse().ok())
    })
}

/// The exit code a response object states.
fn exit_code(o: &Map<String, Value>) -> Option<i64> {
    ["exit_code", "exitCode"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_i64))
}

/// What a response object says the call printed: stdout and stderr (Claude Code's Bash), or an
/// `output` (Codex).
fn printed(o: &Map<String, Value>) -> String {
    let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default();
    let parts: Vec<&str> = ["stdout", "stderr", "output"]
        .into_iter()
        .map(text)
        .filter(|s| !s.trim().is_empty())
        .collect();
    parts.join("\n")
}

/// The input members kept, bounded; a command given as an argument list is joined.
fn kept_input(input: &Map<String, Value>) -> BTreeMap<String, String> {
    let mut kept = BTreeMap::new();
    for key in KEPT_INPUT {
        let value = match input.get(*key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => {
                let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                words.join(" ")
            }
            _ => continue,
        };
        if !value.trim().is_empty() {
            kept.insert((*key).to_owned(), bounded(&value, KEEP_INPUT));
        }
    }
    kept
}

/// `text`'s head and tail (a test runner's result line is at its end), joined by a `…` line.
fn ends(text: &str) -> String {
    if text.len() <= 2 * KEEP_OUTPUT {
        return text.to_owned();
    }
    format!(
        "{}\n…\n{}",
        bounded(text, KEEP_OUTPUT),
        bounded_tail(text, KEEP_OUTPUT)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::hook_input::parse;

    fn outcome(json: &str) -> Option<ReportedCall> {
        ReportedCall::of(&parse(json.as_bytes()).ok()?, 7)
    }

    #[test]
    fn a_failed_command_is_read_as_the_transcript_would_write_it() {
        let o = outcome(
            r#"{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"toolu_1",
            "tool_input":{"command":"sh run_tests.sh billing","description":"run"},
            "error":"Exit code 101\nrunning 4 tests\ntest result: FAILED. 3 passed; 1 failed"}"#,
        )
        .unwrap();
        assert!(o.failed);
        let [result, call] = o.records().unwrap();
        let r = &result.tool_results[0];
        assert_eq!((r.tool_use_id.as_str(), r.is_error), ("toolu_1", true));
        assert_eq!(r.exit, Some(101));
        assert!(r.tail.ends_with("1 failed"), "{r:?}");
        let c = &call.tool_uses[0];
        assert_eq!((c.id.as_str(), c.name.as_str()), ("toolu_1", "Bash"));
        assert_eq!(c.key_arg.as_deref(), Some("sh run_tests.sh billing"));
    }

    #[test]
    fn a_write_names_its_file_and_not_its_text() {
        let o = outcome(
            r#"{"hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"t",
            "tool_input":{"file_path":"/p/a.rs","content":"fn main() {}"},
            "tool_response":{"type":"create","filePath":"/p/a.rs"}}"#,
        )
        .unwrap();
        assert!(!o.failed);
        assert_eq!(o.input.keys().collect::<Vec<_>>(), ["file_path"]);
        let [_, call] = o.records().unwrap();
        assert_eq!(call.tool_uses[0].written, ["/p/a.rs"]);
    }

    #[test]
    fn a_stated_nonzero_exit_code_is_a_failure() {
        let o = outcome(
            r#"{"hook_event_name":"PostToolUse","tool_name":"exec_command","tool_use_id":"c",
            "tool_input":{"command":["make","test"]},
            "tool_response":{"output":"make: *** [test] Error 2","exit_code":2}}"#,
        )
        .unwrap();
        assert!(o.failed);
        assert_eq!(o.input["command"], "make test");
        assert!(o.output.starts_with("Exit code 2\n"));
    }

    #[test]
    fn only_the_main_agents_commands_and_edits_are_kept() {
        let read = r#"{"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t"}"#;
        let sub = r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t","agent_id":"a"}"#;
        let no_id = r#"{"hook_event_name":"PostToolUse","tool_name":"Bash"}"#;
        let prompt =
            r#"{"hook_event_name":"UserPromptSubmit","tool_name":"Bash","tool_use_id":"t"}"#;
        for input in [read, sub, no_id, prompt] {
            assert_eq!(outcome(input), None, "{input}");
        }
    }

    #[test]
    fn long_output_keeps_both_ends() {
        let long = format!("{}RESULT LINE", "x\n".repeat(10_000));
        let json = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_use_id": "t", "tool_response": {"stdout": long}});
        let o = outcome(&json.to_string()).unwrap();
        assert!(o.output.len() < 3 * KEEP_OUTPUT);
        assert!(o.output.ends_with("RESULT LINE"));
    }

    #[test]
    fn a_background_start_is_reported_running_never_finished() {
        // #54: the ledger dropped `run_in_background` and `backgroundTaskId`.
        let r = outcome(
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1",
            "tool_input":{"command":"cargo test","run_in_background":true},
            "tool_response":{"stdout":"","stderr":"","backgroundTaskId":"b7"}}"#,
        )
        .unwrap();
        assert!(r.running && !r.failed, "{r:?}");
        let [result, _] = r.records().unwrap();
        assert!(result.tool_results[0].running);
    }

    #[test]
    fn a_codex_result_without_an_exit_status_is_read_from_its_text() {
        // #54: Codex gives a command's result as its text; a failed build is no success.
        let failed = outcome(
            r#"{"hook_event_name":"PostToolUse","tool_name":"exec_command","tool_use_id":"c1",
            "tool_input":{"command":"cargo build"},
            "tool_response":"Chunk ID: 1\nProcess exited with code 101\nOutput:\nerror[E0308]"}"#,
        )
        .unwrap();
        assert!(failed.failed && !failed.unstated, "{failed:?}");
        let silent = outcome(
            r#"{"hook_event_name":"PostToolUse","tool_name":"exec_command","tool_use_id":"c2",
            "tool_input":{"command":"cargo build"},"tool_response":"Compiling calc v0.1.0"}"#,
        )
        .unwrap();
        assert!(!silent.failed && silent.unstated, "{silent:?}");
        let [result, _] = silent.records().unwrap();
        assert!(result.tool_results[0].unstated);
    }
}
