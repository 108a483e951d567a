//! The short directive `save` prints for the summarizer.
//!
//! Claude Code 2.1.3xx appends a PreCompact hook's stdout to the summarizer's instructions (after
//! the user's `/compact` focus text). A few lines naming the open tasks and the latest instruction
//! make the summary itself less likely to call unfinished work done.

use crate::extract::Extraction;
use crate::render::no_instruction_found;
use crate::tasks::Status;
use crate::text::{cut_to, folded_line, room, utf16_len};

/// The directive's size limit (UTF-16 code units).
pub const MAX_DIRECTIVE: usize = 1_500;

/// The directive for `ex`, or `None` when there is nothing worth steering.
pub fn directive(ex: &Extraction) -> Option<String> {
    let open: Vec<_> = ex
        .tasks
        .iter()
        .filter(|t| t.status != Status::Completed)
        .collect();
    if ex.is_empty() {
        return None;
    }
    let latest = ex.instructions.last();
    let mut s = String::from(
        "compact-guardian: in the summary, do not describe any task as done unless the conversation shows it finished",
    );
    if open.is_empty() {
        s.push_str(".\n");
    } else {
        s.push_str(". These tasks are still open:\n");
        let mut listed = 0;
        for t in &open {
            let label = if t.status == Status::InProgress {
                "in progress"
            } else {
                "pending"
            };
            let line = format!("- {} ({label})\n", folded_line(&t.content, 120));
            if utf16_len(&s) + utf16_len(&line) > 900 {
                break;
            }
            s.push_str(&line);
            listed += 1;
        }
        if listed < open.len() {
            s.push_str(&format!("- ... and {} more\n", open.len() - listed));
        }
    }
    let Some(latest) = latest else {
        s.push_str(&no_instruction_found(ex));
        s.push('\n');
        return Some(cut_to(&s, MAX_DIRECTIVE).0);
    };
    s.push_str("Keep the user's latest instruction, verbatim if short: \"");
    let room = room(MAX_DIRECTIVE, &s, 4); // the closing quote, ellipsis and newline
    let (quoted, cut) = cut_to(&folded_line(latest, usize::MAX), room);
    s.push_str(&quoted);
    if cut {
        s.push('…');
    }
    s.push_str("\"\n");
    Some(cut_to(&s, MAX_DIRECTIVE).0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::Task;

    #[test]
    fn names_open_tasks_and_latest_instruction() {
        let ex = Extraction {
            instructions: vec!["old".into(), "ship the parser\nthen docs".into()],
            tasks: vec![
                Task {
                    content: "parser".into(),
                    status: Status::InProgress,
                },
                Task {
                    content: "done one".into(),
                    status: Status::Completed,
                },
            ],
            ..Default::default()
        };
        let d = directive(&ex).unwrap();
        assert!(d.contains("- parser (in progress)"));
        assert!(!d.contains("done one"));
        assert!(d.contains("\"ship the parser then docs\""));
    }

    #[test]
    fn bounded_and_absent_without_prompts() {
        assert!(directive(&Extraction::default()).is_none());
        let ex = Extraction {
            instructions: vec!["x".repeat(10_000)],
            tasks: (0..100)
                .map(|i| Task {
                    content: format!("t{i} {}", "y".repeat(200)),
                    status: Status::Pending,
                })
                .collect(),
            ..Default::default()
        };
        assert!(utf16_len(&directive(&ex).unwrap()) <= MAX_DIRECTIVE);
    }
}
