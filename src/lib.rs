//! compact-guardian: keeps a Claude Code or Codex session's open work across context compaction.
//!
//! `save` (PreCompact hook) reads the tail of the session transcript, extracts what the agent
//! needs to resume and writes a session-scoped snapshot; `restore` (SessionStart, matcher
//! `compact`) prints that snapshot once. The folders are the pipeline's stages, in order; a stage
//! uses the ones before it, never one after it (D057):
//!
//! | stage | folder | what it holds |
//! |---|---|---|
//! | 1 input | `input` | the hook's JSON on stdin ([`hook_input`]), settings from the environment (`config`) |
//! | 2 read | `read` | a transcript's tail ([`tail`], `shrink`), read backwards until the fold is satisfied ([`transcript`]); one line to one [`record`]; what is still wanted far back ([`wants`]); the tool-name table (`tools`) |
//! | 3 extract | [`extract`] | what to keep: prompts, replies, calls, [`tasks`], plans, commits, what the user typed (`authorship`) |
//! | 4 judge | [`corrections`] | what the summary got wrong: its claims, the record's evidence, the verdicts |
//! | 5 render | [`render`] | the text read: the snapshot, the directive for the summarizer (`steer`), the user's line ([`audit`]) |
//! | 6 store | [`store`] | snapshot and corrections files, the history (`history`), what is on disk (`installs`) |
//! | 7 cmd | `cmd` | the subcommands: command line (`cli`), exit policy (`failopen`), one file per command |
//!
//! Beside the stages: [`pipeline`] (transcript to snapshot, for every command), and the shared
//! ground every stage may use: `json` (lenient JSON types), `text` (lengths, cuts, quoting),
//! `snapshot` (the snapshot's format), `platform` (the OS seam).

mod cmd;
pub mod corrections;
pub mod extract;
mod input;
mod json;
pub mod pipeline;
mod platform;
#[cfg(test)]
mod proptesting;
mod read;
pub mod render;
mod snapshot;
pub mod store;
mod text;

pub use cmd::run;

// The public paths from before the stage folders (D057), used by the tests, benches and fuzzers.
pub use extract::tasks;
pub use input::hook_input;
pub use read::{record, tail, transcript, wants};
pub use render::audit;
