//! Rebuilds the session's task list as it stood, from `TodoWrite` or `TaskCreate`/`TaskUpdate`.
//!
//! `TodoWrite` carries the whole list on every call, so the last accepted call is the list.
//! The newer Task tools are incremental: ids come from the creation result ("Task #3 created
//! successfully"), updates change status or subject, and `deleted` removes. Calls the CLI rejected
//! (an error result) changed nothing and are ignored. When a session used both styles, the one
//! used last wins.

use serde::Serialize;

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
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// What the task is.
    pub content: String,
    /// Its status.
    pub status: Status,
}

/// Accumulates task-tool calls in transcript order.
#[derive(Debug, Default)]
pub struct TaskBoard {
    todo_list: Option<Vec<Task>>,
    /// Task-tool tasks by id, in creation order.
    created: Vec<(String, Task)>,
    /// Which style was used last: `true` for the Task tools.
    task_tools_last: bool,
}

impl TaskBoard {
    /// A `TodoWrite` call that the CLI accepted.
    pub fn todo_write(&mut self, items: Vec<Task>) {
        self.todo_list = Some(items);
        self.task_tools_last = false;
    }

    /// A `TaskCreate` call that the CLI accepted. `id` comes from its result when known.
    pub fn task_create(&mut self, id: Option<String>, subject: String) {
        let id = id.unwrap_or_else(|| self.next_id());
        self.created.retain(|(existing, _)| *existing != id);
        self.created.push((
            id,
            Task {
                content: subject,
                status: Status::Pending,
            },
        ));
        self.task_tools_last = true;
    }

    /// A `TaskUpdate` call that the CLI accepted. An update for a task created before the scanned
    /// window still shows, under its id, so an open task is never silently dropped.
    pub fn task_update(&mut self, id: &str, status: Option<&str>, subject: Option<String>) {
        self.task_tools_last = true;
        if status.is_some_and(|s| s.trim().eq_ignore_ascii_case("deleted")) {
            self.created.retain(|(existing, _)| existing != id);
            return;
        }
        let pos = match self.created.iter().position(|(existing, _)| existing == id) {
            Some(p) => p,
            None => {
                self.created.push((
                    id.to_owned(),
                    Task {
                        content: format!("task #{id} (created before the saved window)"),
                        status: Status::Pending,
                    },
                ));
                self.created.len() - 1
            }
        };
        let task = &mut self.created[pos].1;
        if let Some(s) = status {
            task.status = Status::parse(s);
        }
        if let Some(s) = subject {
            task.content = s;
        }
    }

    /// The list as it stands, in the order the session created it.
    pub fn tasks(&self) -> Vec<Task> {
        if self.task_tools_last || self.todo_list.is_none() {
            self.created.iter().map(|(_, t)| t.clone()).collect()
        } else {
            self.todo_list.clone().unwrap_or_default()
        }
    }

    fn next_id(&self) -> String {
        let max = self
            .created
            .iter()
            .filter_map(|(id, _)| id.parse::<u64>().ok())
            .max();
        (max.unwrap_or(0) + 1).to_string()
    }
}

/// The id in a creation result such as "Task #12 created successfully: ...".
pub fn created_id(result_head: &str) -> Option<String> {
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

    #[test]
    fn replay_create_update_delete() {
        let mut b = TaskBoard::default();
        b.task_create(Some("1".into()), "a".into());
        b.task_create(Some("2".into()), "b".into());
        b.task_create(Some("3".into()), "c".into());
        b.task_update("1", Some("in_progress"), None);
        b.task_update("2", Some("completed"), None);
        b.task_update("3", Some("deleted"), None);
        assert_eq!(
            b.tasks(),
            vec![t("a", Status::InProgress), t("b", Status::Completed)]
        );
    }

    #[test]
    fn last_style_wins() {
        let mut b = TaskBoard::default();
        b.task_create(None, "old".into());
        b.todo_write(vec![t("new", Status::Pending)]);
        assert_eq!(b.tasks(), vec![t("new", Status::Pending)]);
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
        let mut b = TaskBoard::default();
        b.task_create(None, "a".into());
        b.task_create(None, "b".into());
        b.task_update("2", Some("in_progress"), None);
        assert_eq!(b.tasks()[1], t("b", Status::InProgress));
    }

    #[test]
    fn update_for_unknown_task_stays_visible() {
        let mut b = TaskBoard::default();
        b.task_update("7", Some("in_progress"), None);
        assert_eq!(b.tasks()[0].status, Status::InProgress);
        assert!(b.tasks()[0].content.contains("#7"));
    }
}
