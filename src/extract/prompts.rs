//! The user's latest genuine prompts, newest first, distinct, on the current branch; and a
//! prompt-shaped record that could not be read before any that could ([`UnreadPrompt`]).

use super::{MAX_INSTRUCTIONS, UnreadPrompt};

/// A prompt and its record's uuid as written.
type Prompt = (String, Option<String>);

/// The prompts fold.
#[derive(Default)]
pub(super) struct Prompts {
    /// Newest first, distinct.
    found: Vec<Prompt>,
    /// Met off the branch while the walk waits for a parent (see `branch`).
    held: Vec<Prompt>,
    /// A prompt-shaped record met before any prompt that could be read.
    unread: Option<UnreadPrompt>,
}

impl Prompts {
    /// Whether more prompts are wanted.
    pub(super) fn needed(&self) -> bool {
        self.found.len() < MAX_INSTRUCTIONS
    }

    /// A prompt met on (or off) the branch.
    pub(super) fn record(&mut self, prompt: String, id: Option<String>, on_branch: bool) {
        if on_branch {
            self.add(prompt, id);
        } else if self.held.len() < MAX_INSTRUCTIONS {
            self.held.push((prompt, id));
        }
    }

    /// The held prompts were on the branch after all.
    pub(super) fn release(&mut self) {
        for (p, id) in std::mem::take(&mut self.held) {
            self.add(p, id);
        }
    }

    /// The held prompts were on an abandoned branch.
    pub(super) fn drop_held(&mut self) {
        self.held.clear();
    }

    fn add(&mut self, p: String, id: Option<String>) {
        // A prompt sent again (after an interrupt, or kept across a compaction) counts once, at
        // its latest position: met first here.
        if self.needed() && !self.found.iter().any(|(q, _)| *q == p) {
            self.found.push((p, id));
        }
    }

    /// A line that should have been read but did not parse. If it is shaped like a prompt the
    /// user typed and no prompt newer than it was found, the newest prompt that is found is not
    /// the latest one: the extraction says so.
    pub(super) fn unreadable(&mut self, line: &[u8]) {
        if self.unread.is_none() && self.found.is_empty() && self.held.is_empty() {
            self.unread = unread_prompt(line);
        }
    }

    /// The prompts oldest first with their uuids, and the unread one. Held prompts whose parent
    /// never appeared were on the branch after all.
    pub(super) fn finish(mut self) -> (Vec<String>, Vec<Option<String>>, Option<UnreadPrompt>) {
        self.release();
        let (mut texts, mut ids): (Vec<_>, Vec<_>) = self.found.into_iter().unzip();
        texts.reverse();
        ids.reverse();
        (texts, ids, self.unread)
    }
}

/// What the raw bytes of an unreadable line show of a prompt the user typed, if they are shaped
/// like one: a Claude Code user record that is not a tool result, meta text, a summary or a
/// subagent's (or a queued prompt), or a Codex user message event.
fn unread_prompt(line: &[u8]) -> Option<UnreadPrompt> {
    let has = |needle: &[u8]| memchr::memmem::find(line, needle).is_some();
    let claude = (has(br#""type":"user""#) || has(br#""queued_command""#))
        && !has(br#""tool_use_id""#)
        && !has(br#""isMeta":true"#)
        && !has(br#""isCompactSummary":true"#)
        && !has(br#""isSidechain":true"#)
        && !has(br#""promptSource":"system""#);
    let codex = has(br#""user_message""#) || has(br#""UserMessage""#);
    if !(claude || codex) {
        return None;
    }
    // A reader may pass over valid lines it has no use for (a Codex event without a message):
    // only a line that is not JSON, even repaired, was unreadable.
    let repaired = crate::json::repair_line(line);
    if serde_json::from_slice::<serde::de::IgnoredAny>(&repaired).is_ok() {
        return None;
    }
    // The first words: the first text, message or prompt string, as far as it is whole.
    let starts = [
        &br#""text":""#[..],
        br#""message":""#,
        br#""prompt":""#,
        br#""content":""#,
    ]
    .iter()
    .filter_map(|key| memchr::memmem::find(line, key).map(|at| at + key.len()))
    .min()
    .map(|from| {
        let raw = &line[from..line.len().min(from + 400)];
        let end = raw
            .windows(2)
            .position(|w| w[1] == b'"' && w[0] != b'\\')
            .map_or(raw.len(), |i| i + 1);
        let text = String::from_utf8_lossy(&raw[..end]).replace("\\n", " ");
        crate::text::folded_line(&text, 80)
    })
    .filter(|s| !s.is_empty());
    Some(UnreadPrompt {
        bytes: line.len() as u64,
        starts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        s.to_owned()
    }

    #[test]
    fn keeps_the_newest_five_distinct_oldest_first() {
        let mut f = Prompts::default();
        for i in (1..=8).rev() {
            f.record(format!("p{i}"), None, true);
            f.record(p("p8"), None, true);
        }
        assert_eq!(f.finish().0, ["p4", "p5", "p6", "p7", "p8"]);
    }

    #[test]
    fn held_prompts_count_when_released_or_never_resolved_and_not_when_dropped() {
        let mut f = Prompts::default();
        f.record(p("kept"), None, false);
        f.release();
        f.record(p("abandoned"), None, false);
        f.drop_held();
        f.record(p("unresolved"), None, false);
        assert_eq!(f.finish().0, ["unresolved", "kept"]);
    }

    #[test]
    fn an_unreadable_prompt_counts_only_before_any_readable_one() {
        let damaged = br#"{"type":"user","message":{"content":"the real latest ask"#;
        let mut f = Prompts::default();
        f.unreadable(damaged);
        let (_, _, unread) = f.finish();
        assert_eq!(
            unread.and_then(|u| u.starts).as_deref(),
            Some("the real latest ask")
        );
        let mut f = Prompts::default();
        f.record(p("newer"), None, true);
        f.unreadable(damaged);
        assert_eq!(f.finish().2, None);
    }

    #[test]
    fn a_valid_line_the_reader_passed_over_is_not_unreadable() {
        let mut f = Prompts::default();
        f.unreadable(br#"{"type":"user","message":{"content":"fine"}}"#);
        assert_eq!(f.finish().2, None);
    }
}
