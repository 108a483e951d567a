//! Stage 2, reading: a transcript's tail as lines ([`tail`], with `shrink` for huge lines), read
//! backwards until the fold is satisfied ([`transcript`]), each line to one [`record`] (Claude
//! Code's and Codex's formats); [`wants`] is the table of what may be looked for far back, and
//! `tools` the one list of tool names; [`reported`] reads a tool call as the hooks report it, into
//! the records the transcript may not hold yet. Nothing here knows what is kept: that is `extract`.

pub mod record;
pub mod reported;
mod shrink;
pub mod tail;
pub(crate) mod tools;
pub mod transcript;
pub mod wants;
