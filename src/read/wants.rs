//! What the extraction still wants, and what it may look for far back, written once: the
//! [`FAR`] table says which calls, results and record types each far-back thing needs. The fold
//! says which of them it still wants ([`Wants`]); the reader's whole-chunk search
//! ([`Wants::needles`]) and both formats' byte triage (`record::claude`, `record::codex`) read
//! the same table, so they cannot disagree.
//!
//! To collect one more thing from far back: a [`Far`] variant and its [`Spec`] row here, a
//! sub-fold in `extract` that says when it wants it, and a section in `render`.

use memchr::memmem::Finder;

/// A thing the extraction may look for beyond its recent window, where lines are triaged from
/// their bytes and only the ones the table names are parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Far {
    /// The task list: `TodoWrite`, `TaskCreate`/`TaskUpdate`, Codex's `update_plan`.
    TaskList,
    /// Files the agent changed (only within the recent window: see [`Spec::by_needles`]).
    Files,
    /// The newest plan the user approved.
    Plan,
    /// The newest commit the agent made, as git reported it (within the recent window, where
    /// the actions are: once those are full, only the lines this row names are parsed).
    Commit,
    /// Every call of a shell, edit or sub-agent tool, without its result: the facts read back to
    /// the session's start by the audit, where only an attempt's existence matters (D089).
    Calls,
}

/// How a Codex call's output shows up when a [`Far`] thing needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodexOutputs {
    /// No output is needed (a plan update is accepted as sent).
    None,
    /// Every custom tool's output (`apply_patch` says there whether it applied).
    Custom,
    /// An output holding one of these.
    Holding(&'static [&'static [u8]]),
}

/// One row of the table: what makes a line matter to one far-back thing.
#[derive(Debug)]
pub struct Spec {
    /// The thing.
    pub what: Far,
    /// Claude Code tools (a `tool_use`'s `"name"`) whose calls matter.
    pub tools: &'static [&'static str],
    /// Such a call matters only when its line also holds one of these (empty: the name alone).
    pub call_holds: &'static [&'static [u8]],
    /// Claude Code record or attachment types (`"type":"..."`) that matter.
    pub types: &'static [&'static [u8]],
    /// A Claude Code tool result matters when its line holds one of these.
    pub results: &'static [&'static [u8]],
    /// A failed result matters: it undoes its call.
    pub errors: bool,
    /// A Codex call (`function_call`, `custom_tool_call`, `local_shell_call`) matters when its
    /// line holds one of these.
    pub codex_calls: &'static [&'static [u8]],
    /// Which Codex call outputs matter.
    pub codex_outputs: CodexOutputs,
    /// Other bytes whose lines the whole-chunk search must not pass over (the CLI's list of
    /// tools used can prove there is nothing further back).
    pub also: &'static [&'static [u8]],
    /// Whether its lines can be found by the needles alone. False: while it is wanted every line
    /// is triaged (a written file is named by a tool, but its failure only by a result).
    pub by_needles: bool,
}

/// How an approved plan's result begins ("User has approved your plan. You can now start coding").
pub const PLAN_APPROVED: &str = "approved your plan";

/// How Codex records a command the user ran themselves (`!cmd`), in a user message.
pub const USER_SHELL_COMMAND: &str = "<user_shell_command>";

/// The tools whose calls change the task list.
pub const TASK_LIST_TOOLS: [&str; 3] = ["TodoWrite", "TaskCreate", "TaskUpdate"];

/// The tools whose calls the facts read back to the session's start ([`Far::Calls`]).
const CALL_TOOLS: [&str; 13] = [
    "Bash",
    "PowerShell",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "str_replace_based_edit_tool",
    "create_file",
    "Task",
    "Agent",
    "Read",
    "NotebookRead",
    "view",
];

/// The table. Order is [`Far`]'s.
pub const FAR: [Spec; 5] = [
    Spec {
        what: Far::TaskList,
        tools: &TASK_LIST_TOOLS,
        call_holds: &[],
        types: &[],
        // A creation result carries the new task's id.
        results: &[b"Task #"],
        errors: true,
        codex_calls: &[b"update_plan"],
        codex_outputs: CodexOutputs::None,
        also: &[b"\"tools-used\""],
        by_needles: true,
    },
    Spec {
        what: Far::Files,
        tools: &["Edit", "Write", "MultiEdit", "NotebookEdit"],
        call_holds: &[],
        types: &[],
        results: &[],
        errors: true,
        codex_calls: &[b"apply_patch"],
        codex_outputs: CodexOutputs::Custom,
        also: &[],
        by_needles: false,
    },
    Spec {
        what: Far::Plan,
        tools: &["ExitPlanMode"],
        call_holds: &[],
        types: &[b"plan_mode_exit"],
        results: &[PLAN_APPROVED.as_bytes()],
        errors: false,
        codex_calls: &[],
        codex_outputs: CodexOutputs::None,
        also: &[],
        by_needles: true,
    },
    Spec {
        what: Far::Commit,
        tools: &["Bash"],
        call_holds: &[b"git commit", b"git -C"],
        types: &[],
        // What git prints after a commit ("1 file changed, 2 insertions(+)"): a commit is
        // reported only with git's own word for it, so a failed one (no such line) needs no
        // result of its own. One needle for both plurals: each is a search of every tool output.
        results: &[b" changed, "],
        errors: false,
        codex_calls: &[b"git commit", b"git -C"],
        codex_outputs: CodexOutputs::Holding(&[b" changed, "]),
        also: &[],
        by_needles: true,
    },
    Spec {
        what: Far::Calls,
        tools: &CALL_TOOLS,
        call_holds: &[],
        types: &[],
        results: &[],
        errors: false,
        codex_calls: &[
            b"exec_command",
            b"\"shell\"",
            b"local_shell_call",
            b"apply_patch",
            b"container.exec",
            b"spawn_agent",
            b"send_input",
            b"resume_agent",
        ],
        codex_outputs: CodexOutputs::None,
        // What says work was done where the calls do not show it: the user's own commands
        // (Claude Code's `!`, Codex's), and the start of a session continued from another file.
        also: &[
            b"<bash-input>",
            USER_SHELL_COMMAND.as_bytes(),
            b"isCompactSummary",
            b"being continued from a previous conversation",
        ],
        by_needles: true,
    },
];

impl Far {
    /// Its row of [`FAR`].
    pub fn spec(self) -> &'static Spec {
        &FAR[self as usize]
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// One field's needles across the table ([`Spec::call_holds`], [`Spec::results`], ...), each with
/// its row, built once: a line's triage must not pay a searcher's set-up per search.
pub struct RowNeedles(Vec<(Far, Finder<'static>)>);

impl RowNeedles {
    /// The needles `field` gives each row.
    pub fn of(field: fn(&Spec) -> &'static [&'static [u8]]) -> RowNeedles {
        RowNeedles(
            FAR.iter()
                .flat_map(|s| field(s).iter().map(|n| (s.what, Finder::new(*n))))
                .collect(),
        )
    }

    /// Whether the line holds a needle of one of `rows`.
    pub fn found(&self, rows: FarSet, line: &[u8]) -> bool {
        !rows.is_empty()
            && self
                .0
                .iter()
                .any(|(what, f)| rows.has(*what) && f.find(line).is_some())
    }
}

/// A set of [`Far`] things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FarSet(u8);

impl FarSet {
    /// Every thing in the table.
    pub const ALL: FarSet = FarSet((1 << FAR.len()) - 1);

    /// The things for which `wanted` says yes.
    pub fn of(wanted: impl IntoIterator<Item = (Far, bool)>) -> FarSet {
        wanted
            .into_iter()
            .filter(|(_, yes)| *yes)
            .fold(FarSet::default(), |s, (f, _)| s.with(f))
    }

    /// This set and `f`.
    pub fn with(self, f: Far) -> FarSet {
        FarSet(self.0 | f.bit())
    }

    /// Whether `f` is in the set.
    pub fn has(self, f: Far) -> bool {
        self.0 & f.bit() != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The things in either set.
    pub fn or(self, other: FarSet) -> FarSet {
        FarSet(self.0 | other.0)
    }

    /// The things in both sets.
    pub fn and(self, other: FarSet) -> FarSet {
        FarSet(self.0 & other.0)
    }

    /// The rows of the things in the set.
    pub fn specs(self) -> impl Iterator<Item = &'static Spec> {
        FAR.iter().filter(move |s| self.has(s.what))
    }

    /// The things whose Claude Code tools include `name` (a raw `"name"` value).
    pub fn calling(name: &[u8]) -> FarSet {
        FarSet::of(
            FAR.iter()
                .map(|s| (s.what, s.tools.iter().any(|t| t.as_bytes() == name))),
        )
    }

    /// The things that want Claude Code records of `type` (a raw `"type"` value).
    pub fn typed(value: &[u8]) -> FarSet {
        FarSet::of(FAR.iter().map(|s| (s.what, s.types.contains(&value))))
    }
}

/// What the extraction still needs, for the byte triage and for the reader's choice of how to
/// look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wants {
    /// Prompts (or the newest compaction boundary) are still being looked for: any user,
    /// system or unrecognised line may matter, so every line must be triaged. When false, only
    /// lines that name what is wanted can matter, and the reader may look for those names alone
    /// ([`Wants::needles`]).
    pub lines: bool,
    /// The recent window (actions, files, replies) is still filling: every line may matter.
    pub everything: bool,
    /// Recent actions (tool calls and how they ended) are still being collected; implies
    /// `everything`. When only replies are still wanted, a tool call cannot matter.
    pub actions: bool,
    /// The far-back things still looked for.
    pub far: FarSet,
}

impl Wants {
    /// Byte strings of which a line must hold at least one to matter, when only far-back things
    /// found by their needles are still wanted; `None` when every line must be triaged. The
    /// per-line triage still decides about each line that holds one: this only spares the lines
    /// that hold none.
    pub fn needles(&self) -> Option<Vec<&'static [u8]>> {
        if self.lines || self.everything || self.far.specs().any(|s| !s.by_needles) {
            return None;
        }
        let mut n: Vec<&'static [u8]> = Vec::new();
        for s in self.far.specs() {
            if s.call_holds.is_empty() {
                n.extend(s.tools.iter().map(|t| t.as_bytes()));
            } else {
                n.extend(s.call_holds);
            }
            n.extend(s.types);
            n.extend(s.results);
            n.extend(s.codex_calls);
            if let CodexOutputs::Holding(h) = s.codex_outputs {
                n.extend(h);
            }
            if s.errors {
                n.push(b"\"is_error\":true");
            }
            n.extend(s.also);
        }
        n.sort_unstable();
        n.dedup();
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_in_far_order() {
        for (i, s) in FAR.iter().enumerate() {
            assert_eq!(s.what as usize, i, "{:?}", s.what);
        }
        assert_eq!(FarSet::ALL.specs().count(), FAR.len());
    }

    #[test]
    fn needles_cover_every_row_found_by_needles() {
        for s in FAR.iter().filter(|s| s.by_needles) {
            let wants = Wants {
                far: FarSet::default().with(s.what),
                ..Wants::default()
            };
            let n = wants.needles().expect("found by needles");
            assert!(!n.is_empty(), "{:?}", s.what);
            assert!(n.iter().all(|n| !n.is_empty()), "{:?}", s.what);
        }
    }

    #[test]
    fn needles_are_none_while_every_line_matters() {
        let files = Wants {
            far: FarSet::default().with(Far::Files),
            ..Wants::default()
        };
        assert_eq!(files.needles(), None);
        let lines = Wants {
            lines: true,
            far: FarSet::default().with(Far::TaskList),
            ..Wants::default()
        };
        assert_eq!(lines.needles(), None);
    }

    #[test]
    fn the_deep_read_never_passes_over_what_says_work_was_done_unseen() {
        // The facts' reach (D089) reads these records; the whole-chunk search must find their
        // lines, however far back, or an absence would be answered that is none.
        let calls = Wants {
            far: FarSet::default().with(Far::Calls),
            ..Wants::default()
        };
        let needles = calls.needles().expect("found by needles");
        let lines: [&[u8]; 5] = [
            br#"{"type":"user","message":{"content":"<bash-input>git push</bash-input>"}}"#,
            br#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_shell_command>git push</user_shell_command>"}]}}"#,
            br#"{"type":"user","isCompactSummary":true,"message":{"content":"..."}}"#,
            br#"{"type":"user","message":{"content":"This session is being continued from a previous conversation that ran out of context."}}"#,
            br#"{"type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{}"}}"#,
        ];
        for line in lines {
            assert!(
                needles.iter().any(|n| Finder::new(n).find(line).is_some()),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn tool_names_and_types_find_their_rows() {
        assert!(FarSet::calling(b"TaskUpdate").has(Far::TaskList));
        assert!(FarSet::calling(b"Write").has(Far::Files));
        assert!(FarSet::calling(b"Bash").has(Far::Commit));
        assert_eq!(FarSet::calling(b"Read"), FarSet::default().with(Far::Calls));
        assert!(FarSet::calling(b"WebFetch").is_empty());
        assert!(FarSet::typed(b"plan_mode_exit").has(Far::Plan));
        assert!(FarSet::typed(b"user").is_empty());
    }
}
