//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read into the same
//! [`Record`] the extractor consumes for Claude Code transcripts (D017).
//!
//! A rollout line is `{"timestamp", ["ordinal",] "type", "payload"}`. What maps to what:
//! - the user's typed prompts: `event_msg` `user_message` (0.14x) and `item_completed` whose item
//!   is a `UserMessage` (0.169): events Codex writes only for what the user sent. The
//!   `response_item` copy of each prompt is not read, so a prompt counts once, and neither are the
//!   AGENTS.md, `<environment_context>` and developer messages Codex injects as user-role items;
//! - the agent's replies: `response_item` assistant `message`s (output text);
//! - the plan: `update_plan` function calls, each carrying the whole list (as `TodoWrite` does);
//! - actions: `function_call` (`exec_command`, `shell`, MCP tools, ...), `custom_tool_call`
//!   (`apply_patch`, whose patch names the files changed), `local_shell_call`; their outputs
//!   (`function_call_output`, `custom_tool_call_output`) say whether they failed (exit codes);
//! - compactions: `compacted` (the summary, as its `message`) is a boundary;
//! - cwd and branch: `session_meta` and `turn_context`.
//!
//! Rollouts have no parent tree (a fork is a new file): records carry no uuid.

use super::{Record, RecordKind, TodoItem, ToolResult, ToolUse, Triage, bounded, bounded_tail};
use crate::json::{self, LContent, LList, LObj, LStr, LText, MAX_TEXT, bounded_string};
use crate::read::wants::{CodexOutputs, Far, RowNeedles, USER_SHELL_COMMAND, Wants};
use memchr::memmem::Finder;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::LazyLock;

/// How a rollout line starts (a Claude Code record never starts with its timestamp).
const LINE_START: &[u8] = b"{\"timestamp\":";

/// Whether `line` is a Codex rollout line.
pub fn is_rollout_line(line: &[u8]) -> bool {
    line.starts_with(LINE_START) && PAYLOAD_KEY.find(&line[..line.len().min(200)]).is_some()
}

/// Text Codex injects as user-role input, by how it starts (0.14x records do not say who wrote
/// them; the events read for prompts should never carry it, but older versions are not all known).
const INJECTED_STARTS: &[&str] = &[
    "# AGENTS.md instructions for",
    "<INSTRUCTIONS>",
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
];

/// The outer and inner `type` of a rollout line, from its raw bytes: `("event_msg",
/// "token_count")`. The outer one is the line's first `"type":"`, the inner one the next.
fn types(line: &[u8]) -> (&[u8], &[u8]) {
    let value = |from: usize| -> Option<(&[u8], usize)> {
        let at = from + TYPE_KEY.find(&line[from..])?;
        let rest = &line[at + TYPE_KEY.needle().len()..];
        let end = memchr::memchr(b'"', rest)?;
        Some((&rest[..end], at + TYPE_KEY.needle().len() + end))
    };
    let Some((outer, next)) = value(0) else {
        return (b"", b"");
    };
    (outer, value(next).map_or(&b""[..], |(inner, _)| inner))
}

/// Finders built once: a line's triage must not pay a searcher's set-up per search.
static PAYLOAD_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"payload\":"));
static TYPE_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"type\":\""));
/// The far-back rows' needles a call's line and an output's line may hold.
static CALLS: LazyLock<RowNeedles> = LazyLock::new(|| RowNeedles::of(|s| s.codex_calls));
static OUTPUTS: LazyLock<RowNeedles> = LazyLock::new(|| {
    RowNeedles::of(|s| match s.codex_outputs {
        CodexOutputs::Holding(h) => h,
        _ => &[],
    })
});
static USER_MESSAGE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"UserMessage"));
static USER_MESSAGE_EVENT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"user_message"));
static USER_SHELL_COMMAND_TAG: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(USER_SHELL_COMMAND.as_bytes()));
static ASSISTANT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"\"role\":\"assistant\""));

/// Decides from raw bytes whether a rollout line must be parsed (see [`super::triage`]).
pub fn triage(line: &[u8], wants: Wants) -> Triage {
    let has = |f: &LazyLock<Finder<'static>>| f.find(line).is_some();
    let parse = |yes: bool| if yes { Triage::Parse } else { Triage::Skip };
    match types(line) {
        (b"compacted", _) | (b"session_meta", _) | (b"turn_context", _) => Triage::Parse,
        (b"event_msg", b"user_message") => parse(wants.lines),
        (b"event_msg", b"item_completed") => parse(wants.lines && has(&USER_MESSAGE)),
        (b"response_item", b"message") => parse(
            (wants.everything && has(&ASSISTANT))
                || (wants.far.has(Far::Calls) && has(&USER_SHELL_COMMAND_TAG)),
        ),
        // A call matters while recent actions are collected (once the list is full, only the
        // agent's replies may still be wanted), or when a far-back thing wanted names it.
        (b"response_item", b"function_call" | b"custom_tool_call" | b"local_shell_call") => {
            parse(wants.actions || CALLS.found(wants.far, line))
        }
        // An output says whether its call failed: for the recent actions, and for what a
        // far-back thing needs of it (a patch's files: every custom tool's output; a commit:
        // git's own report).
        (b"response_item", b"function_call_output") => {
            parse(wants.actions || OUTPUTS.found(wants.far, line))
        }
        (b"response_item", b"custom_tool_call_output") => parse(
            wants.actions
                || wants
                    .far
                    .specs()
                    .any(|s| s.codex_outputs == CodexOutputs::Custom)
                || OUTPUTS.found(wants.far, line),
        ),
        // Known to carry nothing used here.
        (b"world_state" | b"token_usage_record", _)
        | (b"response_item", b"reasoning")
        | (
            b"event_msg",
            b"token_count"
            | b"task_started"
            | b"task_complete"
            | b"agent_message"
            | b"agent_reasoning"
            | b"thread_settings_applied"
            | b"context_compacted",
        ) => Triage::Skip,
        // Anything else (a new item, a payload whose `type` is not its first key): parsed when
        // it may matter, and the parser decides.
        (b"response_item", _) => parse(wants.everything),
        (b"event_msg", _) => parse(wants.lines && (has(&USER_MESSAGE) || has(&USER_MESSAGE_EVENT))),
        _ => Triage::Skip,
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    payload: LObj<RawPayload<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPayload<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: LContent<'a, RawPart<'a>>,
    #[serde(borrow)]
    name: LStr<'a>,
    /// `function_call` arguments: a JSON text in a string, read by [`function_call`] to a bound
    /// that depends on the tool.
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    /// `custom_tool_call` input (the patch text of `apply_patch`).
    #[serde(borrow)]
    input: LText<'a>,
    #[serde(borrow)]
    call_id: LStr<'a>,
    /// A call's output: a string, or (some versions) `{content, success}`.
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    /// `event_msg` `user_message`, and `compacted`'s summary.
    #[serde(borrow)]
    message: LText<'a>,
    /// `item_completed`'s item.
    #[serde(borrow)]
    item: LObj<RawItem<'a>>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    git: LObj<RawGit<'a>>,
    /// `local_shell_call`'s action.
    #[serde(borrow)]
    action: LObj<RawAction<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPart<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    text: LText<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawItem<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    content: LContent<'a, RawPart<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawGit<'a> {
    #[serde(borrow)]
    branch: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawAction<'a> {
    /// A list of words.
    #[serde(borrow)]
    command: Option<&'a RawValue>,
}

/// The arguments of the function calls read: `exec_command {cmd}`, `shell {command: [...]}`,
/// `shell_command {command}`, `update_plan {plan: [{step, status}]}`, and a few common keys of
/// other tools for the action line.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawArgs<'a> {
    #[serde(borrow)]
    cmd: LText<'a, 1024>,
    #[serde(borrow)]
    command: Option<&'a RawValue>,
    /// Missing (or arguments that did not parse): no plan at all, never an empty one.
    #[serde(borrow)]
    plan: Option<LList<RawStep<'a>>>,
    #[serde(borrow)]
    path: LStr<'a>,
    #[serde(borrow)]
    query: LText<'a, 1024>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStep<'a> {
    #[serde(borrow)]
    step: LText<'a, 1024>,
    #[serde(borrow)]
    status: LStr<'a>,
}

/// `{content, success}`, the object form of an output.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawOutput<'a> {
    #[serde(borrow)]
    content: LText<'a, 1024>,
    success: Option<bool>,
}

/// How much of an `update_plan` call's arguments is read: a plan of thousands of long steps.
const KEEP_PLAN_ARGUMENTS: usize = 1024 * 1024;

/// Parses one rollout line into a [`Record`]; lines that say nothing extraction uses are `None`.
pub fn parse(line: &[u8]) -> Option<Record> {
    let raw: RawLine = serde_json::from_slice(line).ok()?;
    let p = raw.payload.0?;
    let mut rec = Record::empty(RecordKind::Other);
    match (raw.kind.get()?, p.kind.get().unwrap_or_default()) {
        ("event_msg", "user_message") => user_prompt(&mut rec, p.message.get()?),
        ("event_msg", "item_completed") => {
            let item = p.item.0?;
            if item.kind.get() != Some("UserMessage") {
                return None;
            }
            let text = texts(item.content).join("\n\n");
            user_prompt(&mut rec, &text);
        }
        ("response_item", "message") if p.role.get() == Some("assistant") => {
            rec.kind = RecordKind::Assistant;
            rec.texts = texts(p.content);
        }
        // A command the user ran themselves (`!git push`): no prompt, but work the agent's
        // calls do not show (the facts read it, D089).
        ("response_item", "message") if p.role.get() == Some("user") => {
            let text = texts(p.content).join("\n");
            if !text.trim_start().starts_with(USER_SHELL_COMMAND) {
                return None;
            }
            rec.texts.push(text);
        }
        ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
            rec.kind = RecordKind::Assistant;
            rec.tool_uses.push(tool_call(p));
        }
        ("response_item", "function_call_output" | "custom_tool_call_output") => {
            rec.kind = RecordKind::User;
            let out = output(p.output);
            rec.tool_results.push(ToolResult {
                tool_use_id: p.call_id.get().unwrap_or_default().to_owned(),
                is_error: out.failed,
                head: out.head,
                tail: out.tail,
                exit: out.exit,
                plan_file: None,
                running: out.running,
                unstated: out.unstated,
            });
        }
        ("compacted", _) => {
            rec.kind = RecordKind::CompactBoundary;
            if let Some(summary) = p.message.get() {
                rec.texts.push(bounded(summary, MAX_TEXT));
            }
        }
        ("session_meta" | "turn_context", _) => {
            rec.cwd = p.cwd.non_blank().map(|c| bounded(c, 1024).into());
            rec.git_branch = p
                .git
                .0
                .and_then(|g| g.branch.non_blank().map(|b| bounded(b, 256).into()));
        }
        _ => return None,
    }
    Some(rec)
}

/// A call of a tool: a function's (its arguments a JSON text), a custom tool's (`apply_patch`,
/// its input the patch) or the local shell's.
fn tool_call(p: RawPayload) -> ToolUse {
    let name = p.name.get().unwrap_or_default();
    match p.kind.get() {
        Some("function_call") => function_call(name, p.call_id.get(), p.arguments),
        Some("custom_tool_call") => {
            let mut tu = call(name, p.call_id.get());
            if name == "apply_patch"
                && let Some(patch) = p.input.get()
            {
                tu.written = patched_files(patch);
                tu.key_arg = (!tu.written.is_empty()).then(|| tu.written.join(", "));
            }
            tu
        }
        _ => {
            let mut tu = call("local_shell_call", p.call_id.get());
            tu.key_arg = p.action.0.and_then(|a| words(a.command));
            tu
        }
    }
}

/// A prompt the user sent, unless it is text Codex injects.
fn user_prompt(rec: &mut Record, text: &str) {
    let t = text.trim_start();
    if t.is_empty() || INJECTED_STARTS.iter().any(|s| t.starts_with(s)) {
        return;
    }
    rec.kind = RecordKind::User;
    // The event is the record of what the user sent: it decides, as `promptSource` does.
    rec.prompt_source = Some("typed".into());
    rec.texts.push(bounded(text, MAX_TEXT));
}

fn texts(content: LContent<RawPart>) -> Vec<String> {
    match content {
        LContent::Text(t) => vec![bounded(&t, MAX_TEXT)],
        LContent::Blocks(parts) => parts
            .iter()
            .filter(|p| !matches!(p.kind.get(), Some("input_image" | "image")))
            .filter_map(|p| p.text.get())
            .map(|t| bounded(t, MAX_TEXT))
            .collect(),
        LContent::Nothing => Vec::new(),
    }
}

fn call(name: &str, id: Option<&str>) -> ToolUse {
    ToolUse {
        id: id.unwrap_or_default().to_owned(),
        name: bounded(name, 120),
        ..ToolUse::default()
    }
}

fn function_call(name: &str, id: Option<&str>, arguments: Option<&RawValue>) -> ToolUse {
    let mut tu = call(name, id);
    // A plan is read whole (a cut one would not parse); other tools' arguments only for a few
    // short keys.
    let bound = if name == "update_plan" {
        KEEP_PLAN_ARGUMENTS
    } else {
        MAX_TEXT
    };
    let arguments = arguments.and_then(|a| bounded_string(a.get(), bound));
    let args: RawArgs = arguments
        .as_deref()
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or_default();
    if name == "update_plan" {
        // Each call carries the whole plan, as TodoWrite carries the whole list. Arguments that
        // do not parse say nothing: they must not replace the plan before them with none.
        tu.todos = args.plan.map(|plan| {
            plan.0
                .iter()
                .filter_map(|s| {
                    Some(TodoItem {
                        content: bounded(s.step.get()?, 1024),
                        status: s.status.get().unwrap_or("pending").to_owned(),
                    })
                })
                .collect()
        });
        return tu;
    }
    tu.key_arg = args
        .cmd
        .get()
        .map(str::to_owned)
        .or_else(|| words(args.command))
        .or_else(|| args.path.get().map(str::to_owned))
        .or_else(|| args.query.get().map(str::to_owned))
        .map(|a| bounded(&a, 400));
    tu
}

/// A command given as a list of words (`["bash", "-lc", "cargo test"]`: the script) or a string.
fn words(raw: Option<&RawValue>) -> Option<String> {
    let raw = raw?.get();
    if let Ok(s) = serde_json::from_str::<LText<1024>>(raw)
        && let Some(s) = s.get()
    {
        return Some(s.to_owned());
    }
    let list: Vec<LText<1024>> = serde_json::from_str(raw).ok()?;
    let words: Vec<&str> = list.iter().filter_map(LText::get).collect();
    match words.as_slice() {
        [shell, flag, script]
            if flag.starts_with('-') && flag.ends_with('c') && !shell.is_empty() =>
        {
            Some((*script).to_owned())
        }
        [] => None,
        w => Some(w.join(" ")),
    }
}

/// The files an `apply_patch` patch adds, updates, deletes or moves to, in order.
pub(super) fn patched_files(patch: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for line in patch.lines() {
        let path = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|p| line.strip_prefix(p))
        .map(str::trim);
        if let Some(p) = path.filter(|p| !p.is_empty())
            && !files.iter().any(|f| f == p)
            && files.len() < 30
        {
            files.push(bounded(p, 1024));
        }
    }
    files
}

/// What a tool's output says: its first and last characters and how the command ended.
struct Output {
    head: String,
    tail: String,
    exit: Option<i32>,
    failed: bool,
    /// The command had not ended ("Process running with session ID 3").
    running: bool,
    /// Neither an exit code nor `success` is stated.
    unstated: bool,
}

/// How much of an output is read from its start (the exec preamble and the first lines).
const OUTPUT_READ: usize = 1024;
/// How much of an output's end is kept: a test runner's result line.
const OUTPUT_TAIL: usize = 512;

/// An output's ends and whether it failed: a non-zero exit code ("Process exited with code 3",
/// "Exit code: 1"), or `success: false`.
fn output(raw: Option<&RawValue>) -> Output {
    let none = Output {
        head: String::new(),
        tail: String::new(),
        exit: None,
        failed: false,
        running: false,
        unstated: true,
    };
    let Some(raw) = raw.map(RawValue::get) else {
        return none;
    };
    let (text, tail, success) = match json::ends(raw, OUTPUT_READ, OUTPUT_TAIL) {
        (Some(head), tail) => (head.into_owned(), tail.map(Cow::into_owned), None),
        _ => match serde_json::from_str::<RawOutput>(raw) {
            Ok(o) => (
                o.content.get().unwrap_or_default().to_owned(),
                None,
                o.success,
            ),
            Err(_) => return none,
        },
    };
    let exit = text.lines().find_map(|l| {
        l.strip_prefix("Process exited with code ")
            .or_else(|| l.strip_prefix("Exit code: "))
            .and_then(|c| c.trim().parse::<i32>().ok())
    });
    // The head shows what the command printed, not the exec preamble before "Output:" (chunk
    // id, wall time, exit code: read above).
    let shown = text
        .split_once("\nOutput:\n")
        .map_or(text.as_str(), |(_, o)| o);
    let running = exit.is_none()
        && (text.contains("Process running with session ID")
            || shown.starts_with(super::claude::BACKGROUND_START));
    Output {
        head: bounded(shown, 160),
        tail: tail.unwrap_or_else(|| bounded_tail(shown, OUTPUT_TAIL)),
        exit,
        failed: success == Some(false) || exit.is_some_and(|c| c != 0),
        running,
        unstated: exit.is_none() && success.is_none() && !running,
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_line;
    use super::*;
    use crate::extract::tasks::Status;
    use crate::extract::{Extraction, extract};
    use crate::read::wants::{Far, FarSet};

    /// Extraction from rollout lines in file order.
    fn ex(lines: &[String]) -> Extraction {
        let recs: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        extract(&recs)
    }

    /// A rollout line as Codex writes it: `timestamp` first, then `type`, then the payload, whose
    /// own `type` comes first (serde_json's `json!` would sort the keys).
    fn line(kind: &str, payload: serde_json::Value) -> String {
        let mut payload = payload;
        let inner = payload
            .as_object_mut()
            .and_then(|o| o.remove("type"))
            .map(|t| format!("\"type\":{t},"))
            .unwrap_or_default();
        let rest = payload.to_string();
        let rest = rest.trim_start_matches('{');
        let body = if rest == "}" {
            format!("{{{}}}", inner.trim_end_matches(','))
        } else {
            format!("{{{inner}{rest}")
        };
        format!(
            r#"{{"timestamp":"2026-11-22T20:00:00.000Z","ordinal":1,"type":"{kind}","payload":{body}}}"#
        )
    }

    /// A typed prompt as 0.169 writes it: the response item and the `item_completed` event.
    fn typed(text: &str) -> Vec<String> {
        vec![
            line(
                "response_item",
                serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":text}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["user.text"],"content_item_metadata":[{"provenance":{"type":"user"}}]}}),
            ),
            line(
                "event_msg",
                serde_json::json!({"type":"item_completed","item":{"type":"UserMessage","id":"x","content":[{"type":"text","text":text,"text_elements":[]}]}}),
            ),
        ]
    }

    fn call(name: &str, id: &str, args: serde_json::Value) -> String {
        line(
            "response_item",
            serde_json::json!({"type":"function_call","name":name,"arguments":args.to_string(),"call_id":id}),
        )
    }

    fn out(id: &str, output: &str) -> String {
        line(
            "response_item",
            serde_json::json!({"type":"function_call_output","call_id":id,"output":output}),
        )
    }

    #[test]
    fn rollout_lines_are_recognised_claude_lines_are_not() {
        assert!(is_rollout_line(typed("x")[0].as_bytes()));
        assert!(!is_rollout_line(
            br#"{"type":"user","timestamp":"t","payload":1}"#
        ));
        assert!(!is_rollout_line(br#"{"parentUuid":null,"type":"user"}"#));
    }

    #[test]
    fn prompt_written_twice_counts_once() {
        let got = ex(&typed("fix the importer"));
        assert_eq!(got.instructions, vec!["fix the importer"]);
    }

    #[test]
    fn old_user_message_event_is_a_prompt() {
        // 0.14x: `event_msg` `user_message` instead of `item_completed`.
        let lines = vec![
            line(
                "response_item",
                serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"add retries"}]}),
            ),
            line(
                "event_msg",
                serde_json::json!({"type":"user_message","message":"add retries","images":[]}),
            ),
        ];
        assert_eq!(ex(&lines).instructions, vec!["add retries"]);
    }

    #[test]
    fn agents_md_environment_and_developer_text_are_not_the_users_words() {
        let mut lines = vec![
            line(
                "response_item",
                serde_json::json!({"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>..."}]}),
            ),
            line(
                "response_item",
                serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe terse\n</INSTRUCTIONS>"}]}),
            ),
            line(
                "response_item",
                serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]}),
            ),
            line(
                "event_msg",
                serde_json::json!({"type":"user_message","message":"<environment_context><cwd>/w</cwd></environment_context>"}),
            ),
        ];
        lines.extend(typed("the real prompt"));
        assert_eq!(ex(&lines).instructions, vec!["the real prompt"]);
    }

    #[test]
    fn a_users_shell_command_is_no_prompt_but_is_read_far_back() {
        let cmd = line(
            "response_item",
            serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"<user_shell_command>\n<command>\ngit push\n</command>\n<result>\nExit code: 0\n</result>\n</user_shell_command>"}]}),
        );
        let rec = parse(cmd.as_bytes()).expect("parsed");
        assert_eq!(rec.kind, RecordKind::Other, "never a prompt");
        assert!(rec.texts[0].contains("git push"));
        let calls = Wants {
            far: FarSet::default().with(Far::Calls),
            ..Wants::default()
        };
        assert_eq!(triage(cmd.as_bytes(), calls), Triage::Parse);
        assert_eq!(triage(cmd.as_bytes(), Wants::default()), Triage::Skip);
        let mut lines = vec![cmd];
        lines.extend(typed("the real prompt"));
        assert_eq!(ex(&lines).instructions, vec!["the real prompt"]);
    }

    #[test]
    fn update_plan_is_the_task_list_newest_call_wins() {
        let lines = vec![
            call(
                "update_plan",
                "c1",
                serde_json::json!({"plan":[{"step":"parser","status":"in_progress"}]}),
            ),
            out("c1", "Plan updated"),
            call(
                "update_plan",
                "c2",
                serde_json::json!({"explanation":"x","plan":[{"step":"parser","status":"completed"},{"step":"renderer","status":"pending"}]}),
            ),
            out("c2", "Plan updated"),
        ];
        let got = ex(&lines);
        let tasks: Vec<(&str, Status)> = got
            .tasks
            .iter()
            .map(|t| (t.content.as_str(), t.status))
            .collect();
        assert_eq!(
            tasks,
            vec![("parser", Status::Completed), ("renderer", Status::Pending)]
        );
        assert!(got.actions.is_empty(), "plan calls are tasks, not actions");
    }

    /// A plan of `n` steps of about 100 characters, the first `done` completed.
    fn long_plan(n: usize, done: usize) -> serde_json::Value {
        let steps: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let status = if i < done { "completed" } else { "pending" };
                serde_json::json!({"step": format!("step {i:03}: {}", "migrate one table and its tests ".repeat(3)), "status": status})
            })
            .collect();
        serde_json::json!({"explanation": "the whole migration", "plan": steps})
    }

    #[test]
    fn plan_over_32_kib_is_read_whole() {
        // Issue #26: 250 steps of ~100 characters (36 KB of arguments) were cut while read, no
        // longer parsed, and became an empty plan that erased every earlier one.
        let args = long_plan(250, 10);
        assert!(args.to_string().len() > MAX_TEXT);
        let got = ex(&[
            call("update_plan", "c1", long_plan(3, 0)),
            out("c1", "Plan updated"),
            call("update_plan", "c2", args),
            out("c2", "Plan updated"),
        ]);
        assert_eq!(got.tasks.len(), 250);
        assert_eq!(
            got.tasks
                .iter()
                .filter(|t| t.status == Status::Pending)
                .count(),
            240
        );
    }

    #[test]
    fn unparsable_newest_plan_does_not_erase_the_plan_before_it() {
        for bad in [
            serde_json::json!("not an object"),
            serde_json::json!({"explanation": "no plan key"}),
        ] {
            let mut cut = call("update_plan", "c2", bad);
            if cut.contains("not an object") {
                // Arguments that are not JSON at all (cut, garbled).
                cut = cut.replace(r#"\"not an object\""#, r#"{\"plan\":[{\"step\""#);
            }
            let got = ex(&[
                call("update_plan", "c1", long_plan(3, 1)),
                out("c1", "Plan updated"),
                cut,
                out("c2", "Plan updated"),
            ]);
            assert_eq!(got.tasks.len(), 3, "{got:?}");
        }
        // An explicit empty plan is a plan: it clears the list.
        let got = ex(&[
            call("update_plan", "c1", long_plan(3, 1)),
            out("c1", "Plan updated"),
            call("update_plan", "c2", serde_json::json!({"plan": []})),
            out("c2", "Plan updated"),
        ]);
        assert!(got.tasks.is_empty());
    }

    #[test]
    fn a_five_megabyte_user_message_is_the_latest_instruction() {
        // Issue #26: a Codex prompt line over the line limit (a 5 MB paste) was skipped unread and
        // the prompt before it was called the latest.
        use std::io::Write;
        let paste = "log line: request failed with 503\n".repeat(150_000);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in typed("the older prompt") {
            writeln!(f, "{l}").unwrap();
        }
        let big = line(
            "event_msg",
            serde_json::json!({"type":"user_message","message": format!("why does this fail?\n{paste}"),"images":[]}),
        );
        assert!(big.len() > crate::read::tail::MAX_LINE);
        writeln!(f, "{big}").unwrap();
        let mut fold = crate::extract::Extractor::new(crate::extract::Part::Whole);
        let stats = crate::read::transcript::scan(
            f.path(),
            crate::read::transcript::Limits::default(),
            &mut fold,
        )
        .unwrap();
        assert_eq!(stats.shrunk_lines, 1);
        let got = fold.finish(Default::default());
        let latest = got.instructions.last().unwrap();
        assert!(
            latest.starts_with("why does this fail?\nlog line"),
            "{latest:.80}"
        );
    }

    #[test]
    fn reading_past_full_actions_skips_shell_outputs_but_keeps_every_patch_outcome() {
        // Once the recent actions are full, a shell call's output can change nothing; a patch's
        // output still decides whether its files count as changed. Streaming (with the byte
        // triage) must agree with parsing every line.
        use std::io::Write;
        let patch = |id: &str, file: &str| {
            line(
                "response_item",
                serde_json::json!({"type":"custom_tool_call","name":"apply_patch","call_id":id,
                    "input": format!("*** Begin Patch\n*** Add File: {file}\n+x\n*** End Patch\n")}),
            )
        };
        let patch_out = |id: &str, ok: bool| {
            let output = if ok {
                "Success. Updated the following files"
            } else {
                "Process exited with code 1"
            };
            line(
                "response_item",
                serde_json::json!({"type":"custom_tool_call_output","call_id":id,"output":output}),
            )
        };
        let mut lines = typed("start the migration");
        lines.push(patch("p1", "old_ok.rs"));
        lines.push(patch_out("p1", true));
        lines.push(patch("p2", "old_failed.rs"));
        lines.push(patch_out("p2", false));
        // About 2.5 MB: the reader asks what is wanted once a 1 MiB chunk.
        for i in 0..4_000 {
            let id = format!("c{i}");
            lines.push(call(
                "exec_command",
                &id,
                serde_json::json!({"cmd": format!("cargo test {i}")}),
            ));
            lines.push(out(
                &id,
                if i % 3 == 0 {
                    "Process exited with code 2"
                } else {
                    "ok"
                },
            ));
        }
        lines.extend(typed("keep going"));
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in &lines {
            writeln!(f, "{l}").unwrap();
        }
        let reference = ex(&lines);
        let mut fold = crate::extract::Extractor::new(crate::extract::Part::Whole);
        let stats = crate::read::transcript::scan(f.path(), Default::default(), &mut fold).unwrap();
        let streamed = fold.finish(Default::default());
        assert_eq!(streamed.files_changed, reference.files_changed);
        assert_eq!(streamed.files_changed, ["old_ok.rs"]);
        assert_eq!(streamed.actions, reference.actions);
        assert_eq!(streamed.instructions, reference.instructions);
        // Most shell outputs behind the full actions were not parsed.
        assert!(stats.skipped_unparsed >= 2_000, "{stats:?}");
    }

    #[test]
    fn apply_patch_names_every_file_it_changes() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: src/b.rs\n+new\n*** Update File: src/old.rs\n*** Move to: src/new.rs\n*** Delete File: src/gone.rs\n*** End Patch\n";
        let lines = vec![
            line(
                "response_item",
                serde_json::json!({"type":"custom_tool_call","name":"apply_patch","input":patch,"call_id":"p1"}),
            ),
            line(
                "response_item",
                serde_json::json!({"type":"custom_tool_call_output","call_id":"p1","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess."}),
            ),
        ];
        let got = ex(&lines);
        assert_eq!(
            got.files_changed,
            vec![
                "src/a.rs",
                "src/b.rs",
                "src/old.rs",
                "src/new.rs",
                "src/gone.rs"
            ]
        );
    }

    #[test]
    fn commit_is_read_from_the_exec_output_after_its_preamble() {
        let report = "[main 1a2b3c4] Fix the parser";
        let lines = vec![
            call(
                "exec_command",
                "e1",
                serde_json::json!({"cmd":"git commit -am 'Fix the parser'"}),
            ),
            out(
                "e1",
                &format!(
                    "Chunk ID: 7\nWall time: 0.2 seconds\nProcess exited with code 0\nOriginal token count: 30\nOutput:\n{report}\n 1 file changed, 2 insertions(+)"
                ),
            ),
            call(
                "exec_command",
                "e2",
                serde_json::json!({"cmd":"git commit -am again"}),
            ),
            out(
                "e2",
                "Chunk ID: 8\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nnothing to commit, working tree clean",
            ),
        ];
        let got = ex(&lines);
        assert_eq!(got.last_commit.map(|c| c.report).as_deref(), Some(report));
        // Far back, only the output holding git's report is parsed, not every output.
        let far = Wants {
            far: FarSet::default().with(Far::Commit),
            ..Wants::default()
        };
        assert_eq!(triage(lines[0].as_bytes(), far), Triage::Parse);
        assert_eq!(triage(lines[1].as_bytes(), far), Triage::Parse);
        assert_eq!(triage(lines[3].as_bytes(), far), Triage::Skip);
    }

    #[test]
    fn failed_commands_are_marked_by_exit_code() {
        let lines = vec![
            call(
                "exec_command",
                "e1",
                serde_json::json!({"cmd":"cargo test"}),
            ),
            out(
                "e1",
                "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 101\nOutput:\nfailed",
            ),
            call(
                "shell",
                "e2",
                serde_json::json!({"command":["bash","-lc","ls"]}),
            ),
            out("e2", "Exit code: 0\nOutput:\n"),
            line(
                "response_item",
                serde_json::json!({"type":"function_call_output","call_id":"e3","output":{"content":"boom","success":false}}),
            ),
        ];
        let got = ex(&lines);
        let actions: Vec<(&str, &str, bool)> = got
            .actions
            .iter()
            .map(|a| (a.tool.as_str(), a.summary.as_str(), a.error))
            .collect();
        assert_eq!(
            actions,
            vec![("exec_command", "cargo test", true), ("shell", "ls", false)]
        );
        assert!(output(serde_json::from_str(r#"{"content":"boom","success":false}"#).ok()).failed);
    }

    #[test]
    fn compaction_summary_is_not_the_agents_last_reply_and_is_crossed() {
        let mut lines = typed("first prompt");
        lines.push(line("response_item", serde_json::json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":"working on the parser"}]})));
        lines.push(line("response_item", serde_json::json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":"All tasks are completed."}]})));
        lines.push(line("compacted", serde_json::json!({"message":"Another language model started to solve this problem ... summary:\nAll tasks are completed.","replacement_history":[]})));
        lines.extend(typed("second prompt"));
        let got = ex(&lines);
        assert_eq!(got.instructions, vec!["first prompt", "second prompt"]);
        assert_eq!(got.last_response.as_deref(), Some("working on the parser"));
    }

    #[test]
    fn cwd_and_branch_come_from_session_meta_and_turn_context() {
        let lines = vec![
            line(
                "session_meta",
                serde_json::json!({"id":"s","cwd":"/w/old","git":{"branch":"main","commit_hash":"abc"}}),
            ),
            line(
                "turn_context",
                serde_json::json!({"cwd":"/w/app","model":"m"}),
            ),
        ];
        let got = ex(&lines);
        assert_eq!(got.cwd.as_deref(), Some("/w/app"));
        assert_eq!(got.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn tool_calls_are_skipped_once_the_recent_actions_are_full() {
        // Only the agent's replies still wanted (a long run of tool calls without a word): the
        // calls and their outputs are not parsed, unless a plan update or a wanted patch.
        let replies_only = Wants {
            everything: true,
            ..Wants::default()
        };
        let call = line(
            "response_item",
            serde_json::json!({"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}),
        );
        let output = line(
            "response_item",
            serde_json::json!({"type":"function_call_output","call_id":"c1","output":"Exit code: 0"}),
        );
        let plan = line(
            "response_item",
            serde_json::json!({"type":"function_call","name":"update_plan","arguments":"{}","call_id":"c2"}),
        );
        assert_eq!(triage(call.as_bytes(), replies_only), Triage::Skip);
        assert_eq!(triage(output.as_bytes(), replies_only), Triage::Skip);
        let tasks = Wants {
            far: FarSet::default().with(Far::TaskList),
            ..replies_only
        };
        assert_eq!(triage(plan.as_bytes(), tasks), Triage::Parse);
        let actions = Wants {
            actions: true,
            ..replies_only
        };
        assert_eq!(triage(call.as_bytes(), actions), Triage::Parse);
        assert_eq!(triage(output.as_bytes(), actions), Triage::Parse);
    }

    #[test]
    fn bookkeeping_lines_are_skipped_unparsed() {
        let all = Wants {
            lines: true,
            everything: true,
            actions: true,
            far: FarSet::ALL,
        };
        for kind in ["world_state", "token_usage_record"] {
            assert_eq!(
                triage(line(kind, serde_json::json!({"x":1})).as_bytes(), all),
                Triage::Skip
            );
        }
        let tokens = line(
            "event_msg",
            serde_json::json!({"type":"token_count","info":null}),
        );
        assert_eq!(triage(tokens.as_bytes(), all), Triage::Skip);
        let reasoning = line(
            "response_item",
            serde_json::json!({"type":"reasoning","summary":[]}),
        );
        assert_eq!(triage(reasoning.as_bytes(), all), Triage::Skip);
    }
}
