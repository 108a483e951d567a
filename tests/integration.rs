//! Integration tests: the built binary driven through stdin exactly as Claude Code runs it, the
//! library on the real transcripts in `../shared/transcripts/`, property tests, and the end-to-end
//! suite in the real Claude Code CLI.

mod common;

mod contract;
mod e2e;
mod hostile;
mod launcher;
mod props;
mod real_transcripts;
