//! compact-guardian: keeps a Claude Code session's open work across context compaction.
//!
//! `save` (PreCompact hook) reads the tail of the session transcript, extracts what the agent
//! needs to resume and writes a session-scoped snapshot; `restore` (SessionStart, matcher
//! `compact`) prints that snapshot once. Where things happen:
//!
//! | concern | module |
//! |---|---|
//! | command line, dispatch, exit policy | `cli`, `cmd`, `failopen` |
//! | settings from the environment | `config` |
//! | hook JSON on stdin | [`hook_input`] |
//! | reading a transcript's tail | [`tail`] (bytes to lines), [`transcript`] (backwards, until the fold is satisfied) |
//! | transcript to snapshot, for every command | [`pipeline`] |
//! | one line to one record | [`record`], on the lenient types of `json` |
//! | what is still wanted, and which lines far back can hold it (one table) | [`wants`] |
//! | what the user typed | `authorship` |
//! | what to keep | [`extract`], [`tasks`] |
//! | what the summary got wrong | [`corrections`] (the summary as a document, its claims, the record's evidence), [`audit`] (the user's line) |
//! | which tools run commands, edit files, keep the task list | `tools` |
//! | the text the model reads | [`render`], `steer`, on `text` (lengths, cuts, quoting, visible escapes) |
//! | the snapshot's format (marker, headings, limits, wholeness) | `snapshot` |
//! | snapshot files | [`store`], on the OS seam `platform` |
//! | where the plugin is installed, what it keeps on disk (`status`) | `installs` |

pub mod audit;
mod cli;
mod cmd;
#[cfg(test)]
mod proptesting;
pub use cmd::run;
mod authorship;
mod config;
pub mod corrections;
pub mod extract;
mod failopen;
mod history;
pub mod hook_input;
mod installs;
mod json;
pub mod pipeline;
mod platform;
pub mod record;
pub mod render;
mod shrink;
mod snapshot;
mod steer;
pub mod store;
pub mod tail;
pub mod tasks;
mod text;
mod tools;
pub mod transcript;
pub mod wants;
