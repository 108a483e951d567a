//! Tool calls and how they ended: results wait for their calls (read backwards, a result is met
//! first), and the recent actions and changed files are folded from the paired calls.

use super::why::why_failed;
use super::{Action, MAX_ACTIONS, MAX_FILES};
use crate::read::record::{Record, ToolResult, ToolUse, bounded};
use crate::read::tools::SHELL_TOOLS;
use crate::text::escaped_line;
use std::collections::HashMap;

/// Results waiting for their calls; more means calls are missing, and the waits are dropped.
const MAX_WAITING_RESULTS: usize = 4_096;

/// How a call ended, as far as its result was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ended {
    /// Its result was read.
    pub read: bool,
    /// It failed: an error result, or a non-zero exit the CLI did not flag.
    pub failed: bool,
    /// The first characters of its result.
    pub head: String,
    /// The last characters of its result, from a line start.
    pub tail: String,
    /// The exit code its result states.
    pub exit: Option<i32>,
    /// It was started and had not ended when its result was written (a background start); see
    /// [`Results::take`] for how its end is found.
    pub running: bool,
    /// Its result states no exit status where one is always stated: its end is unknown.
    pub unstated: bool,
}

/// Results met before their calls.
#[derive(Default)]
pub(super) struct Results {
    waiting: HashMap<String, ToolResult>,
    /// How background commands ended, by the id of the call that started them: Claude Code's
    /// task notifications come after the start, so reading backwards they are met first.
    ended_later: HashMap<String, Later>,
}

/// How a command started in the background ended, as its task notification says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Later {
    exit: Option<i32>,
    failed: bool,
}

/// The most background ends kept waiting for their starts.
const MAX_LATER: usize = 256;

impl Results {
    /// The results a record carries.
    pub(super) fn record(&mut self, rec: &Record) {
        for tr in rec
            .tool_results
            .iter()
            .filter(|t| !t.tool_use_id.is_empty())
        {
            if self.waiting.len() >= MAX_WAITING_RESULTS {
                self.waiting.clear(); // their calls are missing: keep memory bounded
            }
            self.waiting.insert(tr.tool_use_id.clone(), tr.clone());
        }
        for text in &rec.texts {
            if let Some((id, later)) = task_notification(text) {
                if self.ended_later.len() >= MAX_LATER {
                    self.ended_later.clear();
                }
                self.ended_later.entry(id).or_insert(later);
            }
        }
    }

    /// How the call ended, its result taken.
    pub(super) fn take(&mut self, tu: &ToolUse) -> Ended {
        if tu.id.is_empty() {
            return Ended::default(); // a call without an id is never paired with a result
        }
        match self.waiting.remove(&tu.id) {
            Some(r) => {
                // A background start whose notification says how it ended: ended so.
                let later = r.running.then(|| self.ended_later.get(&tu.id)).flatten();
                let exit = later.and_then(|l| l.exit).or(r.exit);
                Ended {
                    read: true,
                    failed: later.is_some_and(|l| l.failed)
                        || r.is_error
                        || exit.is_some_and(|c| c != 0)
                        || nonzero_exit(&r.head),
                    running: r.running && later.is_none(),
                    unstated: r.unstated || later.is_some_and(|l| l.exit.is_none() && !l.failed),
                    head: r.head,
                    tail: r.tail,
                    exit,
                }
            }
            None => Ended::default(),
        }
    }
}

/// A Claude Code task notification ("<task-notification><tool-use-id>X</tool-use-id>
/// <status>completed</status><summary>... (exit code 1)</summary>"): the call it reports on, and
/// how that call ended.
fn task_notification(text: &str) -> Option<(String, Later)> {
    let body = text.trim_start().strip_prefix("<task-notification>")?;
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = body.find(&open)? + open.len();
        let end = body[start..].find(&format!("</{name}>"))? + start;
        Some(body[start..end].trim())
    };
    let id = tag("tool-use-id")?;
    let status = tag("status").unwrap_or_default();
    let exit = body.rfind("exit code ").and_then(|at| {
        let digits: String = body[at + "exit code ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        digits.parse().ok()
    });
    // "completed" with its exit code; "failed" or "killed" without one is no success.
    let failed = matches!(status, "failed" | "killed" | "error") || exit.is_some_and(|c| c != 0);
    (!id.is_empty() && (status != "running")).then(|| (id.to_owned(), Later { exit, failed }))
}

/// "Exit code 2" at the head of a result: a failed shell command the CLI did not flag.
fn nonzero_exit(head: &str) -> bool {
    head.strip_prefix("Exit code ")
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|code| code != "0")
}

/// The last [`MAX_ACTIONS`] tool calls, newest first, identical calls in a row collapsed.
#[derive(Default)]
pub(super) struct Actions {
    found: Vec<Action>,
    full: bool,
}

impl Actions {
    /// Whether the list is full: older calls cannot be listed.
    pub(super) fn full(&self) -> bool {
        self.full
    }

    pub(super) fn call(&mut self, tu: &ToolUse, ended: &Ended) {
        let failed = ended.failed;
        let summary = tu.key_arg.as_deref().map(escaped_line).unwrap_or_default();
        if let Some(last) = self.found.last_mut()
            && last.tool == tu.name
            && last.summary == summary
            && last.error == failed
            && last.pending != ended.read
        {
            last.count += 1;
            return;
        }
        if self.found.len() == MAX_ACTIONS {
            self.full = true;
            return;
        }
        self.found.push(action_of(tu, ended, summary));
    }

    /// Oldest first.
    pub(super) fn finish(self) -> Vec<Action> {
        let mut actions = self.found;
        actions.reverse();
        actions
    }
}

/// The action a call stands for, with how it ended. A shell command's output ends are evidence
/// for the summary's claims about it (a test runner's result line, git's report), and a failed
/// one's reason is read from them; other tools' are not kept.
pub(super) fn action_of(tu: &ToolUse, ended: &Ended, summary: String) -> Action {
    let shell = SHELL_TOOLS.contains(&tu.name.as_str());
    let read = shell && ended.read;
    Action {
        tool: tu.name.clone(),
        summary,
        error: ended.failed,
        count: 1,
        exit: ended.exit.filter(|_| shell),
        pending: !ended.read,
        output: if read {
            output_ends(&bounded(&ended.head, OUTPUT_HEAD), &ended.tail)
        } else {
            String::new()
        },
        why: if read && ended.failed {
            why_failed(&ended.head, &ended.tail).unwrap_or_default()
        } else {
            String::new()
        },
    }
}

/// The most bytes of a result's head its action's output starts with: what the evidence was
/// read from before the head kept more for the reason of a failure.
const OUTPUT_HEAD: usize = 160;

/// The most characters of a command's output kept with its action.
const ACTION_OUTPUT: usize = 600;

/// A command's output as its action keeps it: its head and, when the output is longer, its tail
/// after a `…` line, bounded.
pub(super) fn output_ends(head: &str, tail: &str) -> String {
    let head = head.trim_end();
    let tail = tail.trim_end();
    if tail.is_empty() || head.contains(tail) {
        return crate::text::cut_to(head, ACTION_OUTPUT).0;
    }
    // The tail's end is the runner's result line: keep it whole, cut the head instead.
    let tail = crate::read::record::bounded_tail(tail, ACTION_OUTPUT * 2 / 3);
    let head = crate::text::cut_to(head, ACTION_OUTPUT.saturating_sub(tail.len())).0;
    format!("{head}\n…\n{tail}")
}

/// The files successful calls wrote, most recent first, distinct, at most [`MAX_FILES`].
#[derive(Default)]
pub(super) struct Files {
    found: Vec<String>,
}

impl Files {
    /// Whether more files can be listed.
    pub(super) fn wanted(&self) -> bool {
        self.found.len() < MAX_FILES
    }

    pub(super) fn call(&mut self, tu: &ToolUse, failed: bool) {
        if failed {
            return;
        }
        for path in &tu.written {
            if self.wanted() && !self.found.contains(path) {
                self.found.push(path.clone());
            }
        }
    }

    pub(super) fn finish(self) -> Vec<String> {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::record::{RecordKind, ToolResult};

    fn call(id: &str, name: &str, arg: &str) -> ToolUse {
        ToolUse {
            id: id.into(),
            name: name.into(),
            key_arg: Some(arg.into()),
            written: vec![arg.into()],
            ..ToolUse::default()
        }
    }

    fn result(id: &str, is_error: bool, head: &str) -> Record {
        Record {
            tool_results: vec![ToolResult {
                tool_use_id: id.into(),
                is_error,
                head: head.into(),
                plan_file: None,
                ..ToolResult::default()
            }],
            ..Record::empty(RecordKind::User)
        }
    }

    #[test]
    fn a_result_waits_for_its_call_and_says_how_it_ended() {
        let mut r = Results::default();
        r.record(&result("t1", false, "Exit code 2\nboom"));
        r.record(&result("t2", true, "denied"));
        r.record(&result("t3", false, "ok"));
        assert!(r.take(&call("t1", "Bash", "x")).failed);
        assert!(r.take(&call("t2", "Bash", "x")).failed);
        let ok = r.take(&call("t3", "Bash", "x"));
        assert!(ok.read && !ok.failed && ok.head == "ok");
        assert_eq!(r.take(&call("t3", "Bash", "x")), Ended::default());
        assert_eq!(r.take(&call("", "Bash", "x")), Ended::default());
    }

    #[test]
    fn waiting_results_stay_bounded() {
        let mut r = Results::default();
        for i in 0..MAX_WAITING_RESULTS * 3 {
            r.record(&result(&format!("t{i}"), false, ""));
        }
        assert!(r.waiting.len() <= MAX_WAITING_RESULTS);
    }

    #[test]
    fn repeated_calls_collapse_and_the_list_stops_full() {
        let mut a = Actions::default();
        a.call(
            &call("1", "Bash", "make"),
            &Ended {
                failed: false,
                ..Ended::default()
            },
        );
        a.call(
            &call("2", "Bash", "make"),
            &Ended {
                failed: false,
                ..Ended::default()
            },
        );
        a.call(
            &call("3", "Bash", "make"),
            &Ended {
                failed: true,
                ..Ended::default()
            },
        );
        for i in 0..MAX_ACTIONS {
            a.call(
                &call("x", "Read", &format!("f{i}")),
                &Ended {
                    failed: false,
                    ..Ended::default()
                },
            );
        }
        assert!(a.full());
        let list = a.finish();
        assert_eq!(list.len(), MAX_ACTIONS);
        assert_eq!(
            (list[MAX_ACTIONS - 1].count, list[MAX_ACTIONS - 2].error),
            (2, true)
        );
    }

    #[test]
    fn files_are_distinct_and_failed_writes_are_not_changes() {
        let mut f = Files::default();
        f.call(&call("1", "Edit", "a.rs"), false);
        f.call(&call("2", "Edit", "b.rs"), true);
        f.call(&call("3", "Edit", "a.rs"), false);
        assert_eq!(f.finish(), ["a.rs"]);
    }
}
