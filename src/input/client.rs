//! The clients compact-guardian serves, Claude Code, Codex and OpenCode, and what each one's
//! hooks expect: which client a hook comes from ([`Client::of`]), how its restore and audit
//! answers are written ([`Reply`]), when its restore runs and how the corrections of a summary
//! reach its model ([`Handover`]), whether `save` steers its summarizer, and the name stored for
//! it. The commands ask a [`Client`]; none compares a client's strings. A fourth client is one
//! more variant here and its answer in each method.
//!
//! A transcript's format (`read::record::Format`) says which client wrote the transcript;
//! `Client::from(Format)` turns one into the other, beside `Format` (the input stage imports
//! nothing from the reader, D057). Why it is shaped so: D058.

/// A client that runs compact-guardian's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// Claude Code: the hooks of `hooks/hooks.json`, in the order PreCompact,
    /// SessionStart(`compact`), PostCompact (D025).
    ClaudeCode,
    /// Codex CLI: the same hooks, in the order PreCompact, PostCompact, and SessionStart(`compact`)
    /// only when the next turn starts (D025, D026).
    Codex,
    /// OpenCode: no hooks of its own; its plugin runs `save` before the summary and asks `restore`
    /// after it, naming itself and the compaction (D050, D052).
    OpenCode,
}

/// How a hook's answer is written for its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Plain text, shown or given to the model as it is.
    Text,
    /// One line of hook JSON ([`json_answer`]): `additionalContext` for the model,
    /// `systemMessage` for the user.
    Json,
}

/// How the corrections of a compaction's summary reach the model (D025).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// At the next prompt or tool call, by `correct`: Claude Code runs the restore before the
    /// audit, the only hook given the summary.
    AtNextPromptOrToolCall,
    /// At the top of the snapshot the restore prints: Codex runs the audit first.
    WithRestore,
    /// At the top of the context bound to the compaction: OpenCode's restore audits the summary
    /// itself, and its plugin asks for that context at every request after it (D052).
    InBoundContext,
}

/// The event a restore answers: every client names it in the hook input (a replay by hand that
/// names none gets text), and the JSON answer names it back.
pub const RESTORE_EVENT: &str = "SessionStart";

impl Client {
    /// Every client, for reading a stored name back.
    const ALL: [Client; 3] = [Client::ClaudeCode, Client::Codex, Client::OpenCode];

    /// The client a hook comes from: the one its input names (only the OpenCode plugin names
    /// itself), else the one that wrote the transcript it names (`transcript`, read only then),
    /// else Claude Code.
    pub fn of(named: Option<Client>, transcript: impl FnOnce() -> Option<Client>) -> Client {
        named.or_else(transcript).unwrap_or(Client::ClaudeCode)
    }

    /// The name stored for the client: the digest's `client` (on disk, so never renamed) and the
    /// hook input's.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude",
            Client::Codex => "codex",
            Client::OpenCode => "opencode",
        }
    }

    /// The client a stored name names (`None`: a name this build does not know).
    pub fn from_name(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether `save` prints the directive for the summarizer (D032): Claude Code passes
    /// PreCompact output to its summarizer, and OpenCode's plugin appends it to the summarizer's
    /// prompt; Codex does not pass it on (it would only be shown to the user, as noise).
    pub fn steers_summary(self) -> bool {
        match self {
            Client::ClaudeCode | Client::OpenCode => true,
            Client::Codex => false,
        }
    }

    /// How a restore's answer is written for this client, when the hook input names `event`:
    /// Claude Code reads JSON, the snapshot as `additionalContext` and one `systemMessage` telling
    /// the user what the model was given (D027), and OpenCode's plugin reads the same fields;
    /// Codex gives plain text to the model as a developer message. Input that does not name
    /// [`RESTORE_EVENT`] is a replay by hand: text.
    pub fn restore_reply(self, event: Option<&str>) -> Reply {
        match self {
            _ if event != Some(RESTORE_EVENT) => Reply::Text,
            Client::ClaudeCode | Client::OpenCode => Reply::Json,
            Client::Codex => Reply::Text,
        }
    }

    /// Whether the restore runs only when the next turn starts, after the audit and however much
    /// later (Codex, D026): the audit marks the snapshot as deferred and says when the model gets
    /// it, and a `resume` start restores it.
    pub fn restore_is_deferred(self) -> bool {
        match self {
            Client::Codex => true,
            Client::ClaudeCode | Client::OpenCode => false,
        }
    }

    /// How the corrections of this client's summary reach its model.
    pub fn handover(self) -> Handover {
        match self {
            Client::ClaudeCode => Handover::AtNextPromptOrToolCall,
            Client::Codex => Handover::WithRestore,
            Client::OpenCode => Handover::InBoundContext,
        }
    }

    /// Whether the summary comes in the audit's input (`compact_summary`). Codex gives its
    /// PostCompact hook none, but has written the summary into the rollout before it runs.
    pub fn gives_audit_the_summary(self) -> bool {
        match self {
            Client::ClaudeCode | Client::OpenCode => true,
            Client::Codex => false,
        }
    }

    /// How the audit's verdict is written for this client: Claude Code prints PostCompact output
    /// as it is after a manual `/compact` (plain text reads there, JSON would show raw); Codex
    /// shows a hook's `systemMessage`, and OpenCode's plugin the one its restore answers with.
    pub fn audit_reply(self) -> Reply {
        match self {
            Client::ClaudeCode => Reply::Text,
            Client::Codex | Client::OpenCode => Reply::Json,
        }
    }

    /// Whether the user sees the audit's answer after a compaction with this `trigger`: Claude
    /// Code shows PostCompact output only after a manual `/compact`, never after an automatic
    /// one (D027); the others always show it.
    pub fn shows_audit_answer(self, trigger: Option<&str>) -> bool {
        match self {
            Client::ClaudeCode => trigger != Some("auto"),
            Client::Codex | Client::OpenCode => true,
        }
    }

    /// Whether the transcript can gain records from before the compaction after PreCompact read
    /// it: Claude Code 2.1.332 wrote the newest tool result late in 14 of 14 runs (D055), so its
    /// restore brings a snapshot up to the compaction when the transcript grew. A Codex rollout
    /// always grows before its deferred restore (the compaction, the next turn), so its length
    /// tells nothing; OpenCode's plugin writes the excerpt before `save` reads it.
    pub fn writes_after_precompact(self) -> bool {
        match self {
            Client::ClaudeCode => true,
            Client::Codex | Client::OpenCode => false,
        }
    }
}

/// A hook's JSON answer, one line without its newline: `context` for the model, as the hook that
/// answers `event` gives it (`hookSpecificOutput.additionalContext`), and `message` for the user
/// (`systemMessage`). Claude Code reads both, Codex shows the `systemMessage`, OpenCode's plugin
/// reads both.
pub fn json_answer(event: &str, context: Option<&str>, message: Option<&str>) -> String {
    let mut json = serde_json::json!({});
    if let Some(context) = context {
        json["hookSpecificOutput"] = serde_json::json!({
            "hookEventName": event,
            "additionalContext": context,
        });
    }
    if let Some(message) = message {
        json["systemMessage"] = message.into();
    }
    json.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::record::Format;

    #[test]
    fn the_stored_names_stay_as_they_are_on_disk() {
        // Digests written by earlier builds name their client so; a rename would make every
        // waiting Codex digest read as Claude Code's.
        let names: Vec<_> = Client::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["claude", "codex", "opencode"]);
        for c in Client::ALL {
            assert_eq!(Client::from_name(c.name()), Some(c));
        }
        assert_eq!(Client::from_name("Codex"), None);
        assert_eq!(Client::from_name(""), None);
    }

    #[test]
    fn the_digest_names_the_client_of_its_transcript_by_the_stored_name() {
        // The digest (corrections/digest.rs) spells the names itself: they must be these.
        for format in [Format::ClaudeCode, Format::Codex, Format::OpenCode] {
            let digest = crate::extract::digest::Digest::of(
                &crate::extract::Extraction::default(),
                format,
                false,
            );
            assert_eq!(digest.client.as_deref(), Some(Client::from(format).name()));
        }
    }

    #[test]
    fn a_named_client_wins_over_the_transcript_which_is_read_only_without_one() {
        let unread = || -> Option<Client> { panic!("the transcript was read") };
        assert_eq!(Client::of(Some(Client::OpenCode), unread), Client::OpenCode);
        assert_eq!(Client::of(None, || Some(Client::Codex)), Client::Codex);
        assert_eq!(Client::of(None, || None), Client::ClaudeCode);
    }

    #[test]
    fn a_restore_replay_by_hand_gets_text() {
        let start = Some(RESTORE_EVENT);
        assert_eq!(Client::ClaudeCode.restore_reply(start), Reply::Json);
        assert_eq!(Client::OpenCode.restore_reply(start), Reply::Json);
        assert_eq!(Client::Codex.restore_reply(start), Reply::Text);
        for c in Client::ALL {
            assert_eq!(c.restore_reply(None), Reply::Text);
            assert_eq!(c.restore_reply(Some("PostCompact")), Reply::Text);
        }
    }

    #[test]
    fn claude_code_shows_no_postcompact_answer_after_an_automatic_compaction() {
        assert!(!Client::ClaudeCode.shows_audit_answer(Some("auto")));
        assert!(Client::ClaudeCode.shows_audit_answer(Some("manual")));
        assert!(Client::ClaudeCode.shows_audit_answer(None));
        assert!(Client::Codex.shows_audit_answer(Some("auto")));
    }

    #[test]
    fn the_json_answer_holds_only_what_is_given() {
        assert_eq!(
            json_answer("PostCompact", None, Some("line")),
            r#"{"systemMessage":"line"}"#
        );
        assert_eq!(
            json_answer(RESTORE_EVENT, Some("ctx"), Some("line")),
            r#"{"hookSpecificOutput":{"additionalContext":"ctx","hookEventName":"SessionStart"},"systemMessage":"line"}"#
        );
        assert_eq!(
            json_answer("UserPromptSubmit", Some("ctx"), None),
            r#"{"hookSpecificOutput":{"additionalContext":"ctx","hookEventName":"UserPromptSubmit"}}"#
        );
    }
}
