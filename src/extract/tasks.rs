//! Rebuilds the session's task list as it stood, from `TodoWrite` or `TaskCreate`/`TaskUpdate`
//! calls seen **newest first**, in linear time and bounded memory.
//!
//! `TodoWrite` carries the whole list on every call, so the newest accepted call is the list. The
//! newer Task tools are incremental: ids come from the creation result ("Task #3 created
//! successfully"), updates change status or subject, and `deleted` removes. Read backwards, the
//! first status or subject met for an id is its current one and older ones are ignored, so each
//! call costs one map lookup (the forward replay was quadratic on 100,000 creations). Calls the
//! CLI rejected (an error result) changed nothing; the caller does not pass them. When a session
//! used both styles, the one used last (met first here) wins. At most `MAX_TRACKED` tasks are
//! tracked, the most recently touched; older ones are counted in `TaskReplay::untracked`.

use crate::read::record::ToolUse;
use serde::Serialize;
use std::collections::HashMap;

/// The most tasks whose state is kept. Rendering shows far fewer; this only bounds memory.
pub(crate) const MAX_TRACKED: usize = 1_000;

/// Task status as the snapshot reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Being worked on.
    InProgress,
    /// Not started.
    Pending,
    /// Done.
    Completed,
}

impl Status {
    /// Parses a status string; unknown values count as pending (open), which is the safe side.
    pub fn parse(s: &str) -> Status {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "in_progress" | "active" | "doing" => Status::InProgress,
            "completed" | "complete" | "done" => Status::Completed,
            _ => Status::Pending,
        }
    }

    /// How the snapshot and the steering text label an open task.
    pub fn label(self) -> &'static str {
        match self {
            Status::InProgress => "in progress",
            Status::Pending => "pending",
            Status::Completed => "completed",
        }
    }
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// What the task is.
    pub content: String,
    /// Its status.
    pub status: Status,
}

/// Which task tool the session used last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    TodoWrite,
    TaskTools,
}

#[derive(Debug, Default)]
struct Entry {
    subject: Option<String>,
    /// `None` until the newest status-setting call for this id is met.
    status: Option<Option<Status>>, // Some(None) = deleted
    /// Creation order key: creations met later (older) get smaller keys.
    created: Option<i64>,
    /// First touched (newest first), for entries never created in the window.
    touched: i64,
}

/// Accumulates task-tool calls met newest first.
#[derive(Debug, Default)]
pub struct TaskReplay {
    style: Option<Style>,
    todo_list: Option<Vec<Task>>,
    entries: HashMap<String, Entry>,
    /// Decreases with every call: older calls get smaller keys.
    clock: i64,
    next_placeholder: u64,
    first_created: bool,
    /// The session's own list of tools used names no task tool: nothing further back.
    settled: bool,
    untracked: usize,
}

impl TaskReplay {
    /// Whether the list as it stood is fully known: the newest `TodoWrite` was met (and no Task
    /// tool was used after it), or the creation of task #1 (so every later task's creation, which
    /// is newer, was met too).
    pub(crate) fn known(&self) -> bool {
        if self.settled {
            return true;
        }
        match self.style {
            Some(Style::TodoWrite) => self.todo_list.is_some(),
            Some(Style::TaskTools) => self.first_created,
            None => false,
        }
    }

    /// The CLI's cumulative list of the tools the session used (`tools-used`, 2.1.3xx) names no
    /// task tool: no task call is older than it, so what was met so far is the whole list.
    pub(crate) fn settle(&mut self) {
        self.settled = true;
    }

    /// A task-tool call the CLI accepted, with the head of its result when it was read (a
    /// creation's result names the new id). Other calls change nothing.
    pub fn call(&mut self, tu: &ToolUse, result_head: Option<&str>) {
        if let Some(todos) = &tu.todos {
            self.todo_write(
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
                    self.task_create(result_head.and_then(created_id), subject.clone());
                }
            }
            "TaskUpdate" => {
                if let Some(id) = &args.task_id {
                    self.task_update(id, args.status.as_deref(), args.subject.clone());
                }
            }
            _ => {}
        }
    }

    /// A `TodoWrite` call the CLI accepted.
    pub(crate) fn todo_write(&mut self, items: Vec<Task>) {
        if self.style.is_none() {
            self.style = Some(Style::TodoWrite);
            self.todo_list = Some(items);
        }
    }

    /// A `TaskCreate` call the CLI accepted. `id` comes from its result when known; a creation
    /// without one takes the highest-numbered id still waiting for its creation.
    pub(crate) fn task_create(&mut self, id: Option<String>, subject: String) {
        if self.style == Some(Style::TodoWrite) {
            return;
        }
        self.style = Some(Style::TaskTools);
        let id = id.unwrap_or_else(|| {
            self.entries
                .iter()
                .filter(|(_, e)| e.created.is_none())
                .filter_map(|(k, _)| k.parse::<u64>().ok().map(|n| (n, k)))
                .max()
                .map(|(_, k)| k.clone())
                .unwrap_or_else(|| {
                    self.next_placeholder += 1;
                    format!("?{}", self.next_placeholder)
                })
        });
        if id == "1" {
            self.first_created = true;
        }
        self.tick();
        let clock = self.clock;
        let Some(e) = self.entry(id) else { return };
        if e.created.is_none() {
            e.created = Some(clock);
        }
        e.subject.get_or_insert(subject);
    }

    /// A `TaskUpdate` call the CLI accepted.
    pub(crate) fn task_update(&mut self, id: &str, status: Option<&str>, subject: Option<String>) {
        if self.style == Some(Style::TodoWrite) {
            return;
        }
        self.style = Some(Style::TaskTools);
        self.tick();
        let Some(e) = self.entry(id.to_owned()) else {
            return;
        };
        if let Some(s) = status
            && e.status.is_none()
        {
            e.status = Some(if s.trim().eq_ignore_ascii_case("deleted") {
                None
            } else {
                Some(Status::parse(s))
            });
        }
        if let Some(s) = subject
            && e.subject.is_none()
        {
            e.subject = Some(s);
        }
    }

    /// Calls about tasks whose state was not kept (beyond `MAX_TRACKED` tasks).
    pub(crate) fn untracked(&self) -> usize {
        self.untracked
    }

    /// The list as it stood, in the order the session created it.
    pub fn tasks(&self) -> Vec<Task> {
        if self.style == Some(Style::TodoWrite) {
            return self.todo_list.clone().unwrap_or_default();
        }
        // Tasks created before what was read come first, then in creation order.
        let mut live: Vec<((bool, i64), &String, &Entry)> = self
            .entries
            .iter()
            .filter(|(_, e)| e.status != Some(None))
            .map(|(id, e)| ((e.created.is_some(), e.created.unwrap_or(e.touched)), id, e))
            .collect();
        live.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        live.into_iter()
            .map(|(_, id, e)| Task {
                content: e
                    .subject
                    .clone()
                    .unwrap_or_else(|| format!("task #{id} (created before the saved window)")),
                status: e.status.flatten().unwrap_or(Status::Pending),
            })
            .collect()
    }

    fn tick(&mut self) {
        self.clock -= 1;
    }

    fn entry(&mut self, id: String) -> Option<&mut Entry> {
        let touched = self.clock;
        if !self.entries.contains_key(&id) && self.entries.len() >= MAX_TRACKED {
            self.untracked += 1;
            return None;
        }
        Some(self.entries.entry(id).or_insert_with(|| Entry {
            touched,
            ..Entry::default()
        }))
    }
}

/// The id in a creation result such as "Task #12 created successfully: ...".
pub(crate) fn created_id(result_head: &str) -> Option<String> {
    let rest = &result_head[result_head.find("Task #")? + "Task #".len()..];
    let digits: String = rest
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    (!digits.is_empty()).then_some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: &str, s: Status) -> Task {
        Task {
            content: c.into(),
            status: s,
        }
    }

    /// Feeds calls given oldest first, the way the reader meets them: newest first.
    enum Call {
        Create(Option<&'static str>, &'static str),
        Update(&'static str, Option<&'static str>, Option<&'static str>),
        Todo(Vec<Task>),
    }

    fn replay(calls: Vec<Call>) -> TaskReplay {
        let mut r = TaskReplay::default();
        for c in calls.into_iter().rev() {
            match c {
                Call::Create(id, s) => r.task_create(id.map(str::to_owned), s.into()),
                Call::Update(id, st, su) => r.task_update(id, st, su.map(str::to_owned)),
                Call::Todo(items) => r.todo_write(items),
            }
        }
        r
    }

    #[test]
    fn replay_create_update_delete() {
        use Call::*;
        let r = replay(vec![
            Create(Some("1"), "a"),
            Create(Some("2"), "b"),
            Create(Some("3"), "c"),
            Update("1", Some("in_progress"), None),
            Update("2", Some("completed"), None),
            Update("3", Some("deleted"), None),
        ]);
        assert_eq!(
            r.tasks(),
            vec![t("a", Status::InProgress), t("b", Status::Completed)]
        );
        assert!(r.known());
    }

    #[test]
    fn newest_status_and_subject_win() {
        use Call::*;
        let r = replay(vec![
            Create(Some("1"), "draft"),
            Update("1", Some("in_progress"), None),
            Update("1", None, Some("final name")),
            Update("1", Some("completed"), None),
        ]);
        assert_eq!(r.tasks(), vec![t("final name", Status::Completed)]);
    }

    #[test]
    fn last_style_wins() {
        use Call::*;
        let r = replay(vec![
            Create(None, "old"),
            Todo(vec![t("new", Status::Pending)]),
        ]);
        assert_eq!(r.tasks(), vec![t("new", Status::Pending)]);
        assert!(r.known());
        let r = replay(vec![
            Todo(vec![t("old", Status::Pending)]),
            Create(Some("1"), "new"),
        ]);
        assert_eq!(r.tasks(), vec![t("new", Status::Pending)]);
    }

    #[test]
    fn created_id_parses() {
        assert_eq!(
            created_id("Task #12 created successfully: x").as_deref(),
            Some("12")
        );
        assert_eq!(created_id("nope"), None);
    }

    #[test]
    fn missing_ids_are_sequential() {
        use Call::*;
        let r = replay(vec![
            Create(None, "a"),
            Create(None, "b"),
            Update("2", Some("in_progress"), None),
        ]);
        assert_eq!(
            r.tasks(),
            vec![t("a", Status::Pending), t("b", Status::InProgress)]
        );
    }

    #[test]
    fn update_for_unknown_task_stays_visible() {
        use Call::*;
        let r = replay(vec![Update("7", Some("in_progress"), None)]);
        assert_eq!(r.tasks()[0].status, Status::InProgress);
        assert!(r.tasks()[0].content.contains("#7"));
        assert!(!r.known());
    }

    #[test]
    fn quadratic_replay_is_gone_100k_creations_are_linear_and_bounded() {
        // Issue #12: 100,000 TaskCreate calls made the forward replay quadratic (the watchdog
        // fired). Newest first, each call is one lookup and the state stays bounded.
        let mut r = TaskReplay::default();
        for i in (1..=100_000u32).rev() {
            r.task_update(&i.to_string(), Some("completed"), None);
            r.task_create(Some(i.to_string()), format!("task {i}"));
        }
        assert_eq!(r.tasks().len(), MAX_TRACKED);
        assert_eq!(r.untracked(), 2 * (100_000 - MAX_TRACKED));
        assert_eq!(r.tasks()[0].content, "task 99001");
    }
}
