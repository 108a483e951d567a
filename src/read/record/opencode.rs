//! OpenCode sessions, as the plugin (`opencode/compact-guardian.js`) hands them over: OpenCode
//! keeps a session in SQLite (tables `message` and `part`, JSON in a `data` column, and `todo`),
//! which this binary does not read (D050). The plugin reads the newest part of the session through
//! OpenCode's own API, newest first and bounded, and writes it as an *excerpt*: one JSON line per
//! message part, oldest first, which the transcript reader then reads backwards like any other
//! transcript. This module reads those lines into the shared [`Record`].
//!
//! Every line starts with `{"opencode":"<kind>"`, so a line is recognised by its start (a Claude
//! Code record starts with another key, a Codex rollout line with its timestamp). What maps to
//! what:
//! - `session` (the first line): the session's folder, as the working directory;
//! - `user`: a text part of a user message; `synthetic: true` is text OpenCode wrote (the
//!   "Continue if you have next steps" after an automatic compaction, attached file contents),
//!   everything else is what the user sent;
//! - `assistant`: a text part of the agent's reply;
//! - `summary`: the text of a compaction's summary message (`summary: true`, finished): a
//!   compaction boundary carrying the summary, as Codex's `compacted` line is;
//! - `tool`: a tool part, call and result in one: the call's input, its status (`completed`,
//!   `error`, `running`, `pending`), the head and tail of its output, and for `bash` the exit code
//!   OpenCode keeps in `state.metadata.exit`. OpenCode's tools are named by what they are in the
//!   shared vocabulary (`bash` is a shell like Claude Code's `Bash`, D051), so the extraction,
//!   the corrections and the snapshot treat them alike;
//! - `todos`: OpenCode's todo list as it stands (its `todo` table), written last, so that it is
//!   the newest record: the task list, as a `TodoWrite` call carries it;
//! - anything else (a `compaction` marker, a kind a newer plugin writes) is skipped.
//!
//! OpenCode messages have no parent tree the reader needs (a revert deletes what it undoes), so
//! records carry no uuid and the branch walk passes every one.

use super::{
    Record, RecordKind, TodoItem, ToolResult, ToolUse, Triage, bounded, bounded_tail, codex,
};
use crate::json::{LBool, LEnds, LList, LObj, LStr, LText, MAX_TEXT};
use serde::Deserialize;

/// How an excerpt line starts.
const LINE_START: &[u8] = b"{\"opencode\":\"";

/// Whether `line` is a line of an OpenCode excerpt.
pub fn is_excerpt_line(line: &[u8]) -> bool {
    line.starts_with(LINE_START)
}

/// The kind a line names (`user`, `tool`, ...), from its raw bytes.
fn kind(line: &[u8]) -> &[u8] {
    let rest = &line[LINE_START.len().min(line.len())..];
    memchr::memchr(b'"', rest).map_or(&b""[..], |end| &rest[..end])
}

/// Decides from raw bytes whether an excerpt line must be parsed. The plugin bounds the excerpt
/// (D050), so every kind that can matter is parsed; only kinds known to carry nothing are skipped.
pub fn triage(line: &[u8]) -> Triage {
    match kind(line) {
        b"user" | b"assistant" | b"summary" | b"tool" | b"todos" | b"session" => Triage::Parse,
        _ => Triage::Skip,
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawLine<'a> {
    #[serde(rename = "opencode", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    text: LText<'a>,
    synthetic: LBool,
    #[serde(borrow)]
    directory: LStr<'a>,
    /// A tool part's `callID`.
    #[serde(borrow)]
    call: LStr<'a>,
    #[serde(borrow)]
    tool: LStr<'a>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    input: LObj<RawInput<'a>>,
    /// The head of the output (and, past an elision line, its tail), as the plugin cut it.
    #[serde(borrow)]
    output: LEnds<'a, KEEP_RESULT_READ, KEEP_RESULT_TAIL>,
    /// A failed call's error message.
    #[serde(borrow)]
    error: LText<'a, KEEP_RESULT_READ>,
    /// `bash`'s exit code (`state.metadata.exit`); any JSON type, read leniently.
    #[serde(borrow)]
    exit: LStr<'a>,
    #[serde(borrow)]
    todos: LList<RawTodo<'a>>,
}

/// The inputs of OpenCode's tools that matter (1.18: `bash {command}`, `edit`/`write`/`read`
/// `{filePath}`, `apply_patch {patchText}`, `todowrite {todos}`, `glob`/`grep {pattern}`,
/// `webfetch {url}`, `task {description}`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawInput<'a> {
    #[serde(borrow)]
    command: LText<'a, KEEP_ARG>,
    #[serde(rename = "filePath", borrow)]
    file_path: LStr<'a>,
    #[serde(rename = "patchText", borrow)]
    patch_text: LText<'a, MAX_TEXT>,
    #[serde(borrow)]
    todos: Option<LList<RawTodo<'a>>>,
    #[serde(borrow)]
    pattern: LText<'a, KEEP_ARG>,
    #[serde(borrow)]
    path: LStr<'a>,
    #[serde(borrow)]
    url: LText<'a, KEEP_ARG>,
    #[serde(borrow)]
    query: LText<'a, KEEP_ARG>,
    #[serde(borrow)]
    description: LText<'a, KEEP_ARG>,
    /// The `task` tool's kind of sub-agent (`general` may write; `explore` only reads).
    #[serde(borrow)]
    subagent_type: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTodo<'a> {
    #[serde(borrow)]
    content: LText<'a, 1024>,
    #[serde(borrow)]
    status: LStr<'a>,
}

/// How much of a tool's key argument is kept.
const KEEP_ARG: usize = 400;
/// How much of a tool's output is read: the head is kept, and the exit code read, from it.
const KEEP_RESULT_READ: usize = 1024;
/// How much of a tool's output is kept (as for Claude Code's results).
const KEEP_RESULT_HEAD: usize = 160;
/// How much of a tool's output's end is kept: a test runner's result line (as for Claude Code's
/// results).
const KEEP_RESULT_TAIL: usize = 512;

/// OpenCode's tool names in the shared vocabulary (D051): the extraction, the corrections and
/// the snapshot know a shell, an edit and a todo list by these names. Others keep their own.
fn shared_name(tool: &str) -> &str {
    match tool {
        "bash" => "Bash",
        "edit" => "Edit",
        "write" => "Write",
        "multiedit" => "MultiEdit",
        "todowrite" => "TodoWrite",
        "patch" => "apply_patch",
        "task" => "Task",
        other => other,
    }
}

/// Parses one excerpt line into a [`Record`]; lines that say nothing extraction uses are `None`.
pub fn parse(line: &[u8]) -> Option<Record> {
    let raw: RawLine = serde_json::from_slice(line).ok()?;
    let mut rec = Record::empty(RecordKind::Other);
    match raw.kind.get()? {
        "session" => rec.cwd = raw.directory.non_blank().map(|d| bounded(d, 1024).into()),
        "user" => {
            rec.kind = RecordKind::User;
            // The part says who wrote it, as `promptSource` does in Claude Code: OpenCode marks
            // the text it adds itself.
            rec.prompt_source = Some(if raw.synthetic.0 { "system" } else { "typed" }.into());
            rec.texts.push(raw.text.get()?.to_owned());
        }
        "assistant" => {
            rec.kind = RecordKind::Assistant;
            rec.texts.push(raw.text.get()?.to_owned());
        }
        "summary" => {
            rec.kind = RecordKind::CompactBoundary;
            if let Some(t) = raw.text.get() {
                rec.texts.push(t.to_owned());
            }
        }
        "tool" => {
            rec.kind = RecordKind::Assistant;
            let (call, result) = tool(&raw)?;
            rec.tool_uses.push(call);
            rec.tool_results.extend(result);
        }
        "todos" => {
            // The list as OpenCode keeps it: a call that carries the whole list, as TodoWrite
            // does, and that never failed.
            rec.kind = RecordKind::Assistant;
            rec.tool_uses.push(ToolUse {
                name: "TodoWrite".into(),
                todos: Some(todos(&raw.todos)),
                ..ToolUse::default()
            });
        }
        _ => return None,
    }
    Some(rec)
}

fn todos(list: &LList<RawTodo>) -> Vec<TodoItem> {
    list.0
        .iter()
        .filter_map(|t| {
            Some(TodoItem {
                content: t.content.get()?.to_owned(),
                status: t.status.get().unwrap_or("pending").to_owned(),
            })
        })
        .collect()
}

/// A tool part as a call and, once it ended, its result (one line holds both: a result is met
/// with its call, newest first as the fold wants them).
fn tool(raw: &RawLine) -> Option<(ToolUse, Option<ToolResult>)> {
    let name = raw.tool.non_blank()?;
    let id = raw.call.get().unwrap_or_default().to_owned();
    let mut call = ToolUse {
        id: id.clone(),
        name: bounded(shared_name(name), 120),
        ..ToolUse::default()
    };
    if let Some(input) = raw.input.0.as_ref() {
        read_input(&mut call, name, input);
    }
    Some((call, result(raw, id)))
}

/// What a call's input says: the files it writes, the task list it sets, its key argument.
fn read_input(call: &mut ToolUse, name: &str, input: &RawInput) {
    let file = input.file_path.non_blank().map(|f| bounded(f, 1024));
    match name {
        "edit" | "write" | "multiedit" => call.written.extend(file.clone()),
        "apply_patch" | "patch" => {
            call.written = input
                .patch_text
                .get()
                .map(codex::patched_files)
                .unwrap_or_default();
        }
        "todowrite" => call.todos = input.todos.as_ref().map(todos),
        "task" => call.agent = input.subagent_type.non_blank().map(|a| bounded(a, 128)),
        _ => {}
    }
    call.key_arg = input
        .command
        .get()
        .map(str::to_owned)
        .or(file)
        .or_else(|| (!call.written.is_empty()).then(|| call.written.join(", ")))
        .or_else(|| input.pattern.get().map(str::to_owned))
        .or_else(|| input.path.get().map(str::to_owned))
        .or_else(|| input.url.get().map(str::to_owned))
        .or_else(|| input.query.get().map(str::to_owned))
        .or_else(|| input.description.get().map(str::to_owned))
        .map(|a| bounded(&a, KEEP_ARG));
}

/// The result of a tool part that ended: its output's ends, or its error; `None` while it is
/// pending or running.
fn result(raw: &RawLine, id: String) -> Option<ToolResult> {
    let exit = raw.exit.get().and_then(|e| e.trim().parse::<i64>().ok());
    let (is_error, head, tail) = match raw.status.get()? {
        // A shell command that exited non-zero failed, though OpenCode calls the part completed.
        "completed" => {
            let head = raw.output.head.as_deref().unwrap_or_default();
            (
                exit.is_some_and(|e| e != 0),
                head,
                raw.output.tail.as_deref().unwrap_or(head),
            )
        }
        "error" => {
            let head = raw.error.get().or(raw.output.head.as_deref());
            let tail = raw.error.get().or(raw.output.tail.as_deref());
            (
                true,
                head.unwrap_or_default(),
                tail.or(head).unwrap_or_default(),
            )
        }
        _ => return None,
    };
    Some(ToolResult {
        tool_use_id: id,
        is_error,
        head: bounded(head, KEEP_RESULT_HEAD),
        tail: bounded_tail(tail, KEEP_RESULT_TAIL),
        exit: exit.map(|e| i32::try_from(e).unwrap_or(if e < 0 { i32::MIN } else { i32::MAX })),
        ..ToolResult::default()
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse_line;
    use super::*;
    use crate::extract::tasks::Status;
    use crate::extract::{Extraction, Part, extract, extract_part};
    use serde_json::json;

    fn line(v: serde_json::Value) -> String {
        // The plugin writes the kind first (JSON.stringify keeps insertion order); `json!` sorts
        // keys, so the kind is put in front by hand.
        let mut o = v.as_object().cloned().unwrap();
        let kind = o.remove("opencode").unwrap();
        let rest = serde_json::Value::Object(o).to_string();
        let rest = rest.trim_start_matches('{');
        if rest == "}" {
            format!("{{\"opencode\":{kind}}}")
        } else {
            format!("{{\"opencode\":{kind},{rest}")
        }
    }

    fn ex(lines: &[String]) -> Extraction {
        let recs: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        extract(&recs)
    }

    fn user(text: &str) -> String {
        line(json!({"opencode":"user","message":"msg_1","text":text}))
    }

    fn bash(call: &str, command: &str, output: &str, exit: i64) -> String {
        line(
            json!({"opencode":"tool","message":"msg_2","call":call,"tool":"bash","status":"completed",
            "input":{"command":command,"description":"run"},"output":output,"exit":exit}),
        )
    }

    #[test]
    fn excerpt_lines_are_recognised_other_formats_are_not() {
        assert!(is_excerpt_line(user("x").as_bytes()));
        assert!(!is_excerpt_line(br#"{"type":"user","opencode":"user"}"#));
        assert!(!is_excerpt_line(
            br#"{"timestamp":"t","type":"event_msg","payload":{}}"#
        ));
    }

    #[test]
    fn typed_text_is_a_prompt_synthetic_text_is_not() {
        // After an automatic compaction OpenCode adds a synthetic user message ("Continue if you
        // have next steps..."): it is OpenCode's, not the user's latest instruction.
        let got = ex(&[
            user("fix the parser"),
            line(
                json!({"opencode":"user","message":"msg_3","text":"Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.","synthetic":true}),
            ),
        ]);
        assert_eq!(got.instructions, vec!["fix the parser"]);
    }

    #[test]
    fn a_prompt_that_looks_like_a_wrapper_is_kept_whole() {
        // The part says the user wrote it: text patterns never overrule that.
        let got = ex(&[user(
            "<system-reminder>keep this</system-reminder> and run it",
        )]);
        assert_eq!(
            got.instructions,
            vec!["<system-reminder>keep this</system-reminder> and run it"]
        );
    }

    #[test]
    fn bash_exit_code_marks_a_completed_part_failed() {
        // OpenCode calls the part `completed` whatever the command's exit; the exit is in
        // `state.metadata.exit`.
        let got = ex(&[
            user("run the tests"),
            bash("c1", "pytest -q", "FAILED test_billing", 1),
            bash("c2", "ls", "a b", 0),
        ]);
        let tools: Vec<(&str, &str, bool)> = got
            .actions
            .iter()
            .map(|a| (a.tool.as_str(), a.summary.as_str(), a.error))
            .collect();
        assert_eq!(
            tools,
            vec![("Bash", "pytest -q", true), ("Bash", "ls", false)]
        );
    }

    #[test]
    fn an_error_part_failed_and_a_running_part_has_not_ended() {
        let got = ex(&[
            line(
                json!({"opencode":"tool","call":"c1","tool":"edit","status":"error","input":{"filePath":"/p/a.rs"},"error":"oldString not found"}),
            ),
            line(
                json!({"opencode":"tool","call":"c2","tool":"bash","status":"running","input":{"command":"cargo build"}}),
            ),
        ]);
        assert!(got.actions[0].error, "{:?}", got.actions);
        assert!(!got.actions[1].error, "{:?}", got.actions);
        assert!(
            got.files_changed.is_empty(),
            "a failed edit changed nothing"
        );
    }

    #[test]
    fn edits_writes_and_patches_name_their_files() {
        let got = ex(&[
            line(
                json!({"opencode":"tool","call":"c1","tool":"edit","status":"completed","input":{"filePath":"/p/src/a.rs","oldString":"x","newString":"y"},"output":"Edit applied"}),
            ),
            line(
                json!({"opencode":"tool","call":"c2","tool":"write","status":"completed","input":{"filePath":"/p/b.md","content":"hello"},"output":"Wrote file"}),
            ),
            line(
                json!({"opencode":"tool","call":"c3","tool":"apply_patch","status":"completed","input":{"patchText":"*** Begin Patch\n*** Update File: src/c.rs\n@@\n-a\n+b\n*** Add File: d.txt\n+x\n*** End Patch"},"output":"Success"}),
            ),
        ]);
        assert_eq!(
            got.files_changed,
            vec!["src/c.rs", "d.txt", "/p/b.md", "/p/src/a.rs"]
        );
    }

    #[test]
    fn the_todo_list_line_is_the_task_list() {
        let got = ex(&[
            line(
                json!({"opencode":"tool","call":"c1","tool":"todowrite","status":"completed","input":{"todos":[{"content":"old","status":"pending","priority":"low"}]},"output":"[]"}),
            ),
            line(
                json!({"opencode":"todos","todos":[{"content":"write parser","status":"completed","priority":"high"},{"content":"write renderer","status":"in_progress","priority":"high"},{"content":"billing tests","status":"pending","priority":"medium"}]}),
            ),
        ]);
        let tasks: Vec<(&str, Status)> = got
            .tasks
            .iter()
            .map(|t| (t.content.as_str(), t.status))
            .collect();
        assert_eq!(
            tasks,
            vec![
                ("write parser", Status::Completed),
                ("write renderer", Status::InProgress),
                ("billing tests", Status::Pending),
            ]
        );
        assert!(got.actions.is_empty(), "todo calls are tasks, not actions");
    }

    #[test]
    fn todowrite_calls_give_the_list_without_a_todos_line() {
        let got = ex(&[line(
            json!({"opencode":"tool","call":"c1","tool":"todowrite","status":"completed","input":{"todos":[{"content":"ship it","status":"pending"}]},"output":"[]"}),
        )]);
        assert_eq!(got.tasks.len(), 1);
        assert_eq!(got.tasks[0].content, "ship it");
    }

    #[test]
    fn the_summary_is_a_boundary_and_not_the_last_reply() {
        let lines = [
            user("first task"),
            line(json!({"opencode":"assistant","message":"msg_2","text":"Working on it."})),
            line(json!({"opencode":"compaction","message":"msg_3","auto":false})),
            line(
                json!({"opencode":"summary","message":"msg_4","text":"## Objective\n- All done."}),
            ),
        ];
        let got = ex(&lines);
        assert_eq!(got.last_response.as_deref(), Some("Working on it."));
        // The rebuild reads the part before the compaction.
        let recs: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        let rebuilt = extract_part(&recs, Part::Compacted);
        assert_eq!(rebuilt.instructions, vec!["first task"]);
    }

    #[test]
    fn the_session_line_names_the_working_directory() {
        let got = ex(&[
            line(json!({"opencode":"session","version":1,"session":"ses_1","directory":"/w/p"})),
            user("go"),
        ]);
        assert_eq!(got.cwd.as_deref(), Some("/w/p"));
    }

    #[test]
    fn unknown_kinds_and_damaged_lines_are_skipped() {
        for l in [
            line(json!({"opencode":"reasoning","text":"thinking"})),
            line(json!({"opencode":"compaction","auto":true})),
            r#"{"opencode":"user","text":"#.to_owned(),
            line(json!({"opencode":"tool","call":"c","status":"completed"})),
            line(json!({"opencode":"user","text":7})),
        ] {
            assert_eq!(parse_line(l.as_bytes()), None, "{l}");
        }
        assert_eq!(triage(br#"{"opencode":"reasoning"}"#), Triage::Skip);
        assert_eq!(triage(user("x").as_bytes()), Triage::Parse);
    }

    #[test]
    fn fields_of_the_wrong_type_cost_the_field_not_the_line() {
        let got = ex(&[line(
            json!({"opencode":"tool","call":5,"tool":"bash","status":"completed","input":{"command":["not","a","string"]},"output":{"o":1},"exit":"2"}),
        )]);
        assert_eq!(got.actions.len(), 1);
        assert!(got.actions[0].error, "exit \"2\" is read as a number");
    }

    #[test]
    fn a_failed_commit_is_no_commit_and_a_made_one_is_read_from_its_output() {
        let made = ex(&[bash(
            "c1",
            "git commit -m 'Add parser'",
            "[main 1a2b3c4] Add parser\n 1 file changed, 2 insertions(+)",
            0,
        )]);
        assert_eq!(
            made.last_commit.map(|c| c.report).as_deref(),
            Some("[main 1a2b3c4] Add parser")
        );
        let failed = ex(&[bash(
            "c1",
            "git commit -m 'x'",
            "[main 1a2b3c4] x\nhook failed",
            1,
        )]);
        assert!(failed.last_commit.is_none());
    }
}
