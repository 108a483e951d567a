//! Transcripts and hook inputs built for the tests: the records Claude Code and Codex write, the
//! sessions several suites share, and the JSON each client gives a hook. One builder for each,
//! so that a fixture read by two suites is the same fixture.

use serde_json::{Value, json};
use std::path::Path;

/// Hook input JSON.
pub fn hook(session: &str, transcript: &Path) -> String {
    json!({
        "session_id": session,
        "transcript_path": transcript,
        "cwd": "/work/app",
        "hook_event_name": "PreCompact",
        "trigger": "manual",
        "custom_instructions": "keep the parser work"
    })
    .to_string()
}

/// SessionStart(compact) hook input.
pub fn start_hook(session: &str, transcript: &Path) -> String {
    json!({
        "session_id": session,
        "transcript_path": transcript,
        "cwd": "/work/app",
        "hook_event_name": "SessionStart",
        "source": "compact"
    })
    .to_string()
}

/// PostCompact hook input (`trigger`: `manual` or `auto`).
pub fn post_compact(session: &str, transcript: &Path, trigger: &str, summary: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": transcript,
        "hook_event_name": "PostCompact",
        "trigger": trigger,
        "compact_summary": summary
    })
    .to_string()
}

/// SessionStart(resume) hook input: a session resumed, which is no compaction in Claude Code and
/// the restore deferred past its turn in Codex.
pub fn resume_hook(session: &str, transcript: &Path) -> String {
    json!({
        "session_id": session,
        "transcript_path": transcript,
        "hook_event_name": "SessionStart",
        "source": "resume"
    })
    .to_string()
}

/// Codex's PostCompact hook input: a turn id and no summary (Codex writes it into the rollout).
pub fn codex_post_compact(session: &str, transcript: &Path, trigger: &str) -> String {
    json!({
        "session_id": session,
        "turn_id": "x",
        "transcript_path": transcript,
        "hook_event_name": "PostCompact",
        "trigger": trigger
    })
    .to_string()
}

/// A message's or a tool result's `content` as text: a string as it is, the text parts of a list
/// joined by lines, anything else nothing.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A user prompt record.
pub fn prompt(uuid: &str, parent: Option<&str>, text: &str) -> String {
    json!({"type":"user","uuid":uuid,"parentUuid":parent,"message":{"role":"user","content":text}})
        .to_string()
}

/// An assistant text record.
pub fn reply(uuid: &str, parent: &str, text: &str) -> String {
    json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"message":{"role":"assistant","content":[{"type":"text","text":text}]}}).to_string()
}

/// An assistant tool call record.
pub fn tool_use(
    uuid: &str,
    parent: &str,
    id: &str,
    name: &str,
    input: serde_json::Value,
) -> String {
    json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"message":{"role":"assistant","content":[{"type":"tool_use","id":id,"name":name,"input":input}]}}).to_string()
}

/// A tool result record.
pub fn tool_result(uuid: &str, parent: &str, id: &str, content: &str, is_error: bool) -> String {
    json!({"type":"user","uuid":uuid,"parentUuid":parent,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":content,"is_error":is_error}]}}).to_string()
}

/// Claude Code's result of the `TaskCreate` call `id` (answered by `uuid` after `parent`): task
/// number `n`, `subject`, created.
pub fn task_created(uuid: &str, parent: &str, id: &str, n: usize, subject: &str) -> String {
    let said = format!("Task #{n} created successfully: {subject}");
    tool_result(uuid, parent, id, &said, false)
}

/// A small, ordinary session: two prompts, an edit, a failing test.
pub fn small_session() -> Vec<String> {
    vec![
        prompt("u1", None, "add a parser for the config file"),
        tool_use(
            "a1",
            "u1",
            "t1",
            "Edit",
            json!({"file_path":"/work/app/src/parse.rs","old_string":"a","new_string":"b"}),
        ),
        tool_result("r1", "a1", "t1", "ok", false),
        tool_use("a2", "r1", "t2", "Bash", json!({"command":"cargo test"})),
        tool_result("r2", "a2", "t2", "Exit code 101\nfailed", true),
        prompt(
            "u2",
            Some("r2"),
            "fix the failing test, then stop — ünïcødé ✓",
        ),
        reply("a3", "u2", "Working on it.\n- [ ] fix parse_empty"),
    ]
}

/// A Claude Code session whose latest work left a failing test and an open task.
pub fn failing_session() -> Vec<String> {
    vec![
        prompt(
            "u1",
            None,
            "make the importer retry failed batches with backoff",
        ),
        tool_use(
            "a1",
            "u1",
            "t1",
            "TaskCreate",
            json!({"subject": "renderer", "description": "render it"}),
        ),
        task_created("r1", "a1", "t1", 1, "renderer"),
        tool_use(
            "a2",
            "r1",
            "t2",
            "Bash",
            json!({"command": "cargo test --test billing"}),
        ),
        tool_result(
            "r2",
            "a2",
            "t2",
            "Exit code 101\ntest billing ... FAILED",
            true,
        ),
        prompt(
            "u2",
            Some("r2"),
            "then log every retry with its attempt number and delay",
        ),
    ]
}

/// A summary of [`failing_session`] wrong twice: the task is open and the test run failed.
pub const FALSE_SUMMARY: &str = "The renderer is done. All billing tests pass.";

/// A Codex rollout line (Codex writes `timestamp` first: how a rollout line is recognised).
pub fn rollout_line(ty: &str, payload: Value) -> String {
    format!(r#"{{"timestamp":"2026-11-24T10:00:00.000Z","type":"{ty}","payload":{payload}}}"#)
}

/// The first line of a Codex rollout: the session `c1` in `/work/app`, by Codex 0.169.0.
pub fn rollout_meta() -> String {
    rollout_line(
        "session_meta",
        json!({"id": "c1", "cwd": "/work/app", "cli_version": "0.169.0"}),
    )
}

/// The user's prompt as Codex records it for its own use (`event_msg`).
pub fn rollout_user_message(text: &str) -> String {
    rollout_line(
        "event_msg",
        json!({"type": "user_message", "message": text}),
    )
}

/// A Codex plan with its steps open (`write renderer` in progress, `billing tests` pending):
/// the `update_plan` call and its output.
pub fn rollout_open_plan() -> [String; 2] {
    [
        rollout_line(
            "response_item",
            json!({"type": "function_call", "name": "update_plan", "call_id": "p1",
            "arguments": json!({"plan": [{"step": "write renderer", "status": "in_progress"},
                {"step": "billing tests", "status": "pending"}]}).to_string()}),
        ),
        rollout_line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "p1", "output": "Plan updated"}),
        ),
    ]
}

/// The `compacted` line Codex writes with its summary.
pub fn rollout_compacted(summary: &str) -> String {
    rollout_line(
        "compacted",
        json!({"message": summary, "replacement_history": []}),
    )
}
