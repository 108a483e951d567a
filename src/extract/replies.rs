//! The agent's newest replies on the current branch, and the checklists written in them.
//!
//! Codex records the summarizer's answer as an assistant message just before the `compacted`
//! line that quotes it: that is the summary, not the agent's last reply, and is passed over.

use super::CHECKLIST_MESSAGES;
use crate::read::record::{Record, RecordKind};
use crate::text::escaped_line;
use std::collections::HashMap;

/// How many checklist items are kept.
const MAX_CHECKLIST: usize = 30;

/// The replies fold.
#[derive(Default)]
pub(super) struct Replies {
    /// Newest first.
    found: Vec<String>,
    /// Met off the branch while the walk waits for a parent (see `branch`).
    held: Vec<String>,
    /// The summary a Codex `compacted` record carries, until the assistant message before it
    /// has been met and skipped.
    compaction_summary: Option<String>,
}

impl Replies {
    /// Whether every reply the checklist reads has been found.
    pub(super) fn full(&self) -> bool {
        self.found.len() >= CHECKLIST_MESSAGES
    }

    /// A record, on the branch or not; `recent`: the recent window is still open.
    pub(super) fn record(&mut self, rec: &Record, on_branch: bool, recent: bool) {
        if rec.kind == RecordKind::CompactBoundary {
            self.compaction_summary = rec.texts.first().cloned();
        }
        if rec.kind != RecordKind::Assistant || rec.api_error {
            return;
        }
        let text = rec.texts.join("\n\n");
        let text = text.trim();
        let is_summary = !text.is_empty()
            && self
                .compaction_summary
                .take()
                .is_some_and(|s| s.contains(text));
        if text.is_empty() || is_summary {
            return;
        }
        if on_branch {
            if !self.full() && recent {
                self.found.push(text.to_owned());
            }
        } else if self.held.len() < CHECKLIST_MESSAGES {
            self.held.push(text.to_owned());
        }
    }

    /// The held replies were on the branch after all.
    pub(super) fn release(&mut self) {
        for r in std::mem::take(&mut self.held) {
            if !self.full() {
                self.found.push(r);
            }
        }
    }

    /// The held replies were on an abandoned branch.
    pub(super) fn drop_held(&mut self) {
        self.held.clear();
    }

    /// The checklist and the last reply.
    pub(super) fn finish(mut self) -> (Vec<String>, Option<String>) {
        self.release();
        let mut replies = self.found;
        replies.reverse();
        (checklist(&replies), replies.pop())
    }
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
            let Some(item) = checklist_item_text(t) else {
                continue;
            };
            let key = item_key(item);
            if key.is_empty() {
                continue;
            }
            if !latest.contains_key(&key) {
                order.push(key.clone());
            }
            latest.insert(key, escaped_line(t));
        }
    }
    let skip = order.len().saturating_sub(MAX_CHECKLIST);
    order[skip..]
        .iter()
        .filter_map(|k| latest.remove(k))
        .collect()
}

/// Whether a checklist line (as kept in [`super::Extraction::checklist`]) is unfinished: an
/// unchecked box. A numbered line is no open item: agents number their questions to the user and
/// their recaps of finished work as often as their plans (#38), and nothing in it says its state.
pub fn checklist_open(line: &str) -> bool {
    let t = line.trim_start();
    // "1. [ ] step" and "1) [ ] step" are boxes too.
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let t = if digits > 0 {
        t[digits..].trim_start_matches(['.', ')']).trim_start()
    } else {
        t
    };
    ["- [ ]", "* [ ]", "- [~]", "* [~]", "[ ]", "☐"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The item text of a checklist line, without its box or number (the line itself when it has
/// neither).
pub fn checklist_item(t: &str) -> &str {
    checklist_item_text(t.trim_start()).unwrap_or(t)
}

fn checklist_item_text(t: &str) -> Option<&str> {
    for prefix in [
        "- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "* [x] ", "* [X] ", "- [~] ", "☐ ", "☑ ", "☒ ",
        "- ☐ ", "- ☑ ",
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return Some(rest);
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            // "1. [ ] step": the box goes with the number.
            let boxed = ["[ ] ", "[x] ", "[X] ", "[~] "]
                .iter()
                .find_map(|b| rest.strip_prefix(b));
            return Some(boxed.unwrap_or(rest));
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

    fn reply(text: &str) -> Record {
        Record {
            texts: vec![text.to_owned()],
            ..Record::empty(RecordKind::Assistant)
        }
    }

    #[test]
    fn newest_reply_is_the_last_and_its_checklist_state_wins() {
        let mut f = Replies::default();
        f.record(&reply("- [x] parser\n- [ ] docs"), true, true);
        f.record(&reply("- [ ] parser\n- [ ] docs"), true, true);
        let (checklist, last) = f.finish();
        assert_eq!(checklist, ["- [x] parser", "- [ ] docs"]);
        assert_eq!(last.as_deref(), Some("- [x] parser\n- [ ] docs"));
    }

    #[test]
    fn replies_past_the_recent_window_or_the_count_are_not_kept() {
        let mut f = Replies::default();
        f.record(&reply("old"), true, false);
        assert_eq!(f.finish().1, None);
        let mut f = Replies::default();
        for i in 0..CHECKLIST_MESSAGES + 3 {
            f.record(&reply(&format!("r{i}")), true, true);
        }
        assert!(f.full());
        assert_eq!(f.finish().1.as_deref(), Some("r0"));
    }

    #[test]
    fn codex_summarizer_answer_before_its_compacted_line_is_no_reply() {
        let mut f = Replies::default();
        let boundary = Record {
            texts: vec!["summary:\nAll done.".into()],
            ..Record::empty(RecordKind::CompactBoundary)
        };
        f.record(&boundary, true, true);
        f.record(&reply("All done."), true, true);
        f.record(&reply("working"), true, true);
        assert_eq!(f.finish().1.as_deref(), Some("working"));
    }

    #[test]
    fn fenced_checklist_lines_are_not_items() {
        assert_eq!(
            checklist(&["```\n- [ ] not\n```\n- [ ] real".into()]),
            ["- [ ] real"]
        );
        assert!(checklist_open("- [ ] wire it"));
        assert!(!checklist_open("- [x] wire it"));
        // A numbered line may be a question to the user or a recap of finished work.
        assert!(!checklist_open("2. wire it"));
        assert!(checklist_open("2. [ ] wire it") && checklist_open("☐ wire it"));
        assert!(!checklist_open("☑ wire it"));
        assert_eq!(
            checklist(&["Status:\n☑ parser\n☐ docs".into()]),
            ["☑ parser", "☐ docs"]
        );
        assert_eq!(checklist_item("2. [ ] wire it"), "wire it");
        assert_eq!(checklist_item("- [ ] wire it"), "wire it");
    }
}
