//! Turns a window of records into what the agent needs to resume: [`Extraction`].
//!
//! Tool results arrive in later records than their calls, so results are indexed first and every
//! call is judged with its result in hand. Prompts are taken only from the conversation's current
//! branch: the `parentUuid` chain followed back from the newest record, so prompts on a branch the
//! user rewound away from do not count. Compaction boundaries are crossed through their logical
//! parent, so instructions given before an earlier compaction still count.

use crate::genuine::prompt_text;
use crate::record::{Id, Kind, Record, ToolUse};
use crate::tasks::{Status, Task, TaskBoard, created_id};
use serde::Serialize;
use std::collections::HashMap;

/// How many of the user's latest prompts are kept.
pub const MAX_INSTRUCTIONS: usize = 5;
/// How many recent tool calls are listed (after collapsing repeats).
pub const MAX_ACTIONS: usize = 20;
/// How many recent assistant messages are searched for checklist lines.
pub const CHECKLIST_MESSAGES: usize = 10;
/// How many checklist items are kept.
const MAX_CHECKLIST: usize = 30;
/// How many changed files are kept.
const MAX_FILES: usize = 30;
/// Tools whose calls are reported as tasks, not as actions.
const TASK_TOOLS: &[&str] = &[
    "TodoWrite",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
];

/// Everything the snapshot is made of. Serialized as-is by `preview --json`.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Extraction {
    /// The user's latest genuine prompts, oldest first.
    pub instructions: Vec<String>,
    /// The task list as it stood.
    pub tasks: Vec<Task>,
    /// Checklist lines from recent assistant text, latest state of each.
    pub checklist: Vec<String>,
    /// The agent's last text reply.
    pub last_response: Option<String>,
    /// Files written by Edit/Write/MultiEdit/NotebookEdit, most recent first.
    pub files_changed: Vec<String>,
    /// Recent tool calls, oldest first, repeats collapsed.
    pub actions: Vec<Action>,
    /// The session's working directory, from the newest record that names one.
    pub cwd: Option<String>,
    /// The git branch, from the newest record that names one.
    pub git_branch: Option<String>,
}

/// One line of recent activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Action {
    /// Tool name.
    pub tool: String,
    /// Its key argument, one line.
    pub summary: String,
    /// The call failed (error result or non-zero exit).
    pub error: bool,
    /// How many identical calls in a row this line stands for.
    pub count: u32,
}

impl Extraction {
    /// True when there is no genuine user prompt: such a transcript yields no snapshot.
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }
}

struct ResultInfo<'r> {
    is_error: bool,
    head: &'r str,
}

/// The records of the conversation that was just compacted, for restore's rebuild. Claude Code
/// 2.1.3xx runs the SessionStart(compact) hook *before* it appends the new `compact_boundary`, so
/// the last boundary in the file is this compaction's only if no prompt typed by the user follows
/// it; otherwise it belongs to an earlier compaction and the whole window is what was compacted.
pub fn compacted_part(records: &[Record]) -> &[Record] {
    let Some(b) = records
        .iter()
        .rposition(|r| r.kind == Kind::CompactBoundary && !r.sidechain)
    else {
        return records;
    };
    if records[b + 1..]
        .iter()
        .any(|r| !r.sidechain && prompt_text(r).is_some())
    {
        records
    } else {
        &records[..b]
    }
}

/// Extracts from records in transcript order (oldest first).
pub fn extract(records: &[Record]) -> Extraction {
    let results = index_results(records);
    let on_path = current_branch(records);
    let main: Vec<(usize, &Record)> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.sidechain)
        .collect();

    let mut ex = Extraction {
        instructions: instructions(&main, &on_path),
        ..Extraction::default()
    };

    let mut board = TaskBoard::default();
    let mut actions: Vec<Action> = Vec::new();
    for (_, rec) in &main {
        for tu in &rec.tool_uses {
            let result = results.get(tu.id.as_str());
            let failed = result.is_some_and(|r| r.is_error || nonzero_exit(r.head));
            if !failed {
                apply_task_call(&mut board, tu, result.map(|r| r.head));
            }
            if TASK_TOOLS.contains(&tu.name.as_str()) {
                continue;
            }
            push_action(&mut actions, tu, failed);
        }
    }
    ex.tasks = board.tasks();
    let skip = actions.len().saturating_sub(MAX_ACTIONS);
    ex.actions = actions.split_off(skip);

    ex.files_changed = files_changed(&main, &results);

    let replies: Vec<String> = main
        .iter()
        .filter(|(i, r)| r.kind == Kind::Assistant && !r.api_error && on_path[*i])
        .filter_map(|(_, r)| {
            let text = r.texts.join("\n\n");
            (!text.trim().is_empty()).then_some(text)
        })
        .collect();
    ex.last_response = replies.last().map(|s| s.trim().to_owned());
    let from = replies.len().saturating_sub(CHECKLIST_MESSAGES);
    ex.checklist = checklist(&replies[from..]);

    ex.cwd = main
        .iter()
        .rev()
        .find_map(|(_, r)| r.cwd.as_deref().map(str::to_owned));
    ex.git_branch = main
        .iter()
        .rev()
        .find_map(|(_, r)| r.git_branch.as_deref().map(str::to_owned));
    ex
}

fn index_results(records: &[Record]) -> HashMap<&str, ResultInfo<'_>> {
    let mut map = HashMap::new();
    // A result without an id (damaged record) must not be matched to a call without one.
    for tr in records
        .iter()
        .flat_map(|r| &r.tool_results)
        .filter(|tr| !tr.tool_use_id.is_empty())
    {
        map.insert(
            tr.tool_use_id.as_str(),
            ResultInfo {
                is_error: tr.is_error,
                head: tr.head.as_str(),
            },
        );
    }
    map
}

/// Marks the records on the conversation's current branch: the parent chain from the newest main
/// thread record. Where a link is missing (a record outside the window, a damaged line, a `null`
/// parent) the walk continues with the previous record in file order, so only a *known* link to an
/// older record can skip records: exactly what a rewind produces. Records without a uuid are kept.
///
/// A link into an `isMeta` record is bridged the same way: CLI 1.0.x hangs local commands
/// (`/export`, `#` memory notes) off the session's first caveat record, which would otherwise look
/// like a rewind to the very start and discard every prompt.
fn current_branch(records: &[Record]) -> Vec<bool> {
    let mut on_path: Vec<bool> = records.iter().map(|r| r.uuid.is_none()).collect();
    let mut index: HashMap<Id, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        if let (Some(u), false) = (r.uuid, r.sidechain) {
            index.insert(u, i);
        }
    }
    let previous = |cur: usize| {
        (0..cur)
            .rev()
            .find(|&j| records[j].uuid.is_some() && !records[j].sidechain)
    };
    let mut cur = previous(records.len());
    while let Some(i) = cur {
        on_path[i] = true;
        cur = match records[i].parent.and_then(|p| index.get(&p)) {
            Some(&p) if p < i && !records[p].meta => Some(p),
            _ => previous(i),
        };
    }
    on_path
}

/// The last [`MAX_INSTRUCTIONS`] distinct genuine prompts on the current branch, oldest first.
/// A prompt sent again (after an interrupt, or kept across a compaction) counts once, at its
/// latest position.
fn instructions(main: &[(usize, &Record)], on_path: &[bool]) -> Vec<String> {
    let mut prompts: Vec<String> = main
        .iter()
        .filter(|(i, _)| on_path[*i])
        .filter_map(|(_, r)| prompt_text(r))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut latest_first: Vec<String> = Vec::new();
    while let Some(p) = prompts.pop() {
        if seen.insert(p.clone()) {
            latest_first.push(p);
            if latest_first.len() == MAX_INSTRUCTIONS {
                break;
            }
        }
    }
    latest_first.reverse();
    latest_first
}

fn apply_task_call(board: &mut TaskBoard, tu: &ToolUse, result_head: Option<&str>) {
    if let Some(todos) = &tu.todos {
        board.todo_write(
            todos
                .iter()
                .map(|t| Task {
                    content: t.content.clone(),
                    status: Status::parse(&t.status),
                })
                .collect(),
        );
    }
    let Some(args) = &tu.task else { return };
    match tu.name.as_str() {
        "TaskCreate" => {
            if let Some(subject) = &args.subject {
                board.task_create(result_head.and_then(created_id), subject.clone());
            }
        }
        "TaskUpdate" => {
            if let Some(id) = &args.task_id {
                board.task_update(id, args.status.as_deref(), args.subject.clone());
            }
        }
        _ => {}
    }
}

/// "Exit code 2" at the head of a result: a failed shell command the CLI did not flag.
fn nonzero_exit(head: &str) -> bool {
    head.strip_prefix("Exit code ")
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|code| code != "0")
}

fn push_action(actions: &mut Vec<Action>, tu: &ToolUse, error: bool) {
    let summary = tu.key_arg.as_deref().map(one_line).unwrap_or_default();
    if let Some(last) = actions.last_mut()
        && last.tool == tu.name
        && last.summary == summary
        && last.error == error
    {
        last.count += 1;
        return;
    }
    actions.push(Action {
        tool: tu.name.clone(),
        summary,
        error,
        count: 1,
    });
}

/// A single line: newlines and tabs escaped, other control characters dropped, at most 160 chars.
pub fn one_line(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.trim().chars().enumerate() {
        if n >= 160 {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn files_changed(main: &[(usize, &Record)], results: &HashMap<&str, ResultInfo>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, rec) in main.iter().rev() {
        for tu in rec.tool_uses.iter().rev() {
            let Some(path) = &tu.written_path else {
                continue;
            };
            if results.get(tu.id.as_str()).is_some_and(|r| r.is_error) {
                continue;
            }
            if !out.contains(path) {
                out.push(path.clone());
                if out.len() == MAX_FILES {
                    return out;
                }
            }
        }
    }
    out
}

/// Checklist lines (`- [ ]`, `- [x]`, `1.`) outside code fences, newest state of each item winning,
/// in the order items first appeared.
fn checklist(replies: &[String]) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, String> = HashMap::new();
    for reply in replies {
        let mut in_fence = false;
        for line in reply.lines() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            let Some(item) = checklist_item(t) else {
                continue;
            };
            let key = item_key(item);
            if key.is_empty() {
                continue;
            }
            if !latest.contains_key(&key) {
                order.push(key.clone());
            }
            latest.insert(key, one_line(t));
        }
    }
    let skip = order.len().saturating_sub(MAX_CHECKLIST);
    order[skip..]
        .iter()
        .filter_map(|k| latest.remove(k))
        .collect()
}

/// The item text of a checklist line, without its box or number.
fn checklist_item(t: &str) -> Option<&str> {
    for prefix in [
        "- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "* [x] ", "* [X] ", "- [~] ",
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return Some(rest);
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(rest);
        }
    }
    None
}

/// Identity of an item across updates: text without emphasis, status emoji or trailing dots.
fn item_key(item: &str) -> String {
    item.chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '✅' | '❌' | '⏳' | '🔄' | '✓' | '✗'))
        .collect::<String>()
        .trim()
        .trim_end_matches(['.', ':'])
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_line;

    fn recs(lines: &[&str]) -> Vec<Record> {
        lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect()
    }

    #[test]
    fn rewound_branch_prompts_do_not_count() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"first"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"content":"abandoned idea"}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"content":[{"type":"text","text":"sure"}]}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"a1","message":{"content":"better idea"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["first", "better idea"]);
    }

    #[test]
    fn local_command_linked_to_meta_caveat_is_not_a_rewind() {
        let r = recs(&[
            r#"{"type":"user","uuid":"c","isMeta":true,"message":{"content":"Caveat: The messages below were generated by the user while running local commands."}}"#,
            r#"{"type":"user","uuid":"u1","parentUuid":"c","message":{"content":"real work"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"done"}]}}"#,
            r#"{"type":"user","uuid":"m","parentUuid":"c","message":{"content":"<user-memory-input>use conventional commits</user-memory-input>"}}"#,
            r#"{"type":"user","uuid":"e","parentUuid":"c","message":{"content":"<command-name>/export</command-name>"}}"#,
        ]);
        assert_eq!(
            extract(&r).instructions,
            vec!["real work", "(saved to memory) use conventional commits"]
        );
    }

    #[test]
    fn missing_links_are_bridged_in_file_order() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":"gone","message":{"content":"one"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"also-gone","message":{"content":"two"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["one", "two"]);
    }

    #[test]
    fn resent_prompt_counts_once() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"do it"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","message":{"content":"do it"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["do it"]);
    }

    #[test]
    fn keeps_latest_five_oldest_first() {
        let lines: Vec<String> = (1..=8)
            .map(|i| format!(r#"{{"type":"user","uuid":"u{i}","parentUuid":"u{}","message":{{"content":"p{i}"}}}}"#, i - 1))
            .collect();
        let r: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        assert_eq!(extract(&r).instructions, vec!["p4", "p5", "p6", "p7", "p8"]);
    }

    #[test]
    fn errored_todowrite_is_ignored() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"real","status":"in_progress"}]}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"TodoWrite","input":{"todos":[{"content":"bogus","status":"pending"}]}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"No such tool available: TodoWrite"}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(ex.tasks.len(), 1);
        assert_eq!(ex.tasks[0].content, "real");
        assert!(ex.actions.is_empty(), "task tools are not actions");
    }

    #[test]
    fn task_tools_replayed_with_ids_from_results() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"alpha"}},{"type":"tool_use","id":"c2","name":"TaskCreate","input":{"subject":"beta"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #4 created successfully: alpha"},{"type":"tool_result","tool_use_id":"c2","content":"Task #5 created successfully: beta"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"5","status":"in_progress"}},{"type":"tool_use","id":"u2","name":"TaskUpdate","input":{"taskId":"4","status":"completed"}}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(
            ex.tasks,
            vec![
                Task {
                    content: "alpha".into(),
                    status: Status::Completed
                },
                Task {
                    content: "beta".into(),
                    status: Status::InProgress
                }
            ]
        );
    }

    #[test]
    fn repeated_calls_collapse_and_failures_marked() {
        let mut lines = vec![r#"{"type":"user","message":{"content":"build"}}"#.to_owned()];
        for i in 0..40 {
            lines.push(format!(r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"b{i}","name":"Bash","input":{{"command":"cargo build"}}}}]}}}}"#));
        }
        lines.push(r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"cargo test\n--all"}}]}}"#.to_owned());
        lines.push(r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"Exit code 101\nfailed"}]}}"#.to_owned());
        let r: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        let ex = extract(&r);
        assert_eq!(ex.actions.len(), 2);
        assert_eq!(ex.actions[0].count, 40);
        assert_eq!(ex.actions[1].summary, "cargo test\\n--all");
        assert!(ex.actions[1].error);
    }

    #[test]
    fn files_changed_most_recent_first_deduplicated_failures_skipped() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"edit"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}},{"type":"tool_use","id":"2","name":"Edit","input":{"file_path":"/b"}},{"type":"tool_use","id":"3","name":"Edit","input":{"file_path":"/a"}},{"type":"tool_use","id":"4","name":"Edit","input":{"file_path":"/c"}},{"type":"tool_use","id":"5","name":"Read","input":{"file_path":"/d"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"4","is_error":true,"content":"String not found"}]}}"#,
        ]);
        assert_eq!(extract(&r).files_changed, vec!["/a", "/b"]);
    }

    #[test]
    fn checklist_latest_state_wins_and_fences_ignored() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"plan"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Plan:\n- [ ] write parser\n- [ ] add tests\n```\n1. not an item\n```"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"- [x] write parser\n- [ ] add tests"}]}}"#,
        ]);
        assert_eq!(
            extract(&r).checklist,
            vec!["- [x] write parser", "- [ ] add tests"]
        );
    }

    #[test]
    fn calls_and_results_without_ids_are_not_paired() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"make"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"Exit code 2","is_error":true}]}}"#,
        ]);
        assert!(!extract(&r).actions[0].error);
    }

    #[test]
    fn sidechain_records_are_ignored() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"main prompt"}}"#,
            r#"{"type":"user","uuid":"s1","isSidechain":true,"message":{"content":"subagent task"}}"#,
            r#"{"type":"assistant","uuid":"s2","isSidechain":true,"parentUuid":"s1","message":{"content":[{"type":"tool_use","id":"x","name":"Write","input":{"file_path":"/sub"}}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(ex.instructions, vec!["main prompt"]);
        assert!(ex.files_changed.is_empty());
    }

    #[test]
    fn compacted_part_cuts_only_at_this_compactions_boundary() {
        let before = r#"{"type":"user","uuid":"u1","message":{"content":"before"}}"#;
        let boundary =
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"u1"}"#;
        let summary = r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#;
        let compact_cmd = r#"{"type":"user","uuid":"c","parentUuid":"s","message":{"content":"<command-name>/compact</command-name>"}}"#;
        let after = r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"after"}}"#;
        // Boundary already written (older CLIs): cut there.
        assert_eq!(
            compacted_part(&recs(&[before, boundary, summary, compact_cmd])).len(),
            1
        );
        // Boundary of an earlier compaction, prompts since: everything was just compacted.
        assert_eq!(
            compacted_part(&recs(&[before, boundary, summary, after])).len(),
            4
        );
        // No boundary yet (2.1.3xx at SessionStart time): everything.
        assert_eq!(compacted_part(&recs(&[before])).len(), 1);
    }

    #[test]
    fn tasks_finished_before_an_earlier_compaction_stay_finished() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"first"}},{"type":"tool_use","id":"c2","name":"TaskCreate","input":{"subject":"second"}}]}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #1 created successfully: first"},{"type":"tool_result","tool_use_id":"c2","content":"Task #2 created successfully: second"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"content":[{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"a2"}"#,
            r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued. Tasks: first (pending), second (pending)"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"continue"}}"#,
            r#"{"type":"assistant","uuid":"a3","parentUuid":"u2","message":{"content":[{"type":"tool_use","id":"u2","name":"TaskUpdate","input":{"taskId":"2","status":"in_progress"}}]}}"#,
        ]);
        assert_eq!(
            extract(&r).tasks,
            vec![
                Task {
                    content: "first".into(),
                    status: Status::Completed
                },
                Task {
                    content: "second".into(),
                    status: Status::InProgress
                }
            ]
        );
    }

    #[test]
    fn compaction_boundary_is_crossed_and_summary_ignored() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"before compaction"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a1"}"#,
            r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued from a previous conversation. Summary: all done"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"after compaction"}}"#,
        ]);
        assert_eq!(
            extract(&r).instructions,
            vec!["before compaction", "after compaction"]
        );
    }
}
