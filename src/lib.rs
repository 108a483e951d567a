//! compact-guardian: keeps a Claude Code, Codex or OpenCode session's open work across context
//! compaction.
//!
//! `save` (PreCompact hook) reads the tail of the session transcript, extracts what the agent
//! needs to resume and writes a session-scoped snapshot; `restore` (SessionStart, matcher
//! `compact`) prints that snapshot once. The folders are the pipeline's stages, in order; a stage
//! uses the ones before it, never one after it (D057):
//!
//! | stage | folder | what it holds |
//! |---|---|---|
//! | 1 input | [`input`] | the hook's JSON on stdin ([`input::hook_input`]), settings from the environment (`config`) |
//! | 2 read | [`read`] | a transcript's tail ([`read::tail`], `shrink`), read backwards until the fold is satisfied ([`read::transcript`]); one line to one [`read::record`]; what is still wanted far back ([`read::wants`]); the tool-name table (`tools`) |
//! | 3 extract | [`extract`] | what to keep: prompts, replies, calls, [`extract::tasks`], plans, commits, what the user typed (`authorship`) |
//! | 4 judge | [`corrections`] | what the summary got wrong: its claims, the record's evidence, the verdicts |
//! | 5 render | [`render`] | the text read: the snapshot, the directive for the summarizer (`steer`), the user's line ([`render::audit`]) |
//! | 6 store | [`store`] | snapshot and corrections files, the history (`history`), what is on disk (`installs`) |
//! | 7 cmd | `cmd` | the subcommands: command line (`cli`), exit policy (`failopen`), one file per command |
//!
//! Between render and store: [`pipeline`] (transcript to snapshot, for save, restore and
//! preview). Below every stage, the shared ground each may use: `json` (lenient JSON types),
//! `text` (lengths, cuts, quoting), `snapshot` (the snapshot's format), `platform` (the OS seam).
//! `tests/house.rs` fails on an import back up (D087).

mod cmd;
pub mod corrections;
pub mod extract;
pub mod input;
mod json;
pub mod pipeline;
mod platform;
#[cfg(test)]
mod proptesting;
pub mod read;
pub mod render;
mod snapshot;
pub mod store;
mod text;

pub use cmd::run;
