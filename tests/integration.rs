//! Integration tests: the built binary driven through stdin exactly as Claude Code runs it (and as
//! the OpenCode plugin runs it), the library on the real transcripts in `../shared/transcripts/`,
//! property tests, and the end-to-end suites in the real Claude Code, Codex and OpenCode CLIs.

#[macro_use]
mod common;

// Unix-only suites: file modes, symlinks, the sh launcher, the real CLI (Linux). On Windows the
// library's unit tests, the property tests and the corpus run; the CI matrix runs them.
mod contract;
mod corrections;
// The record's facts as the snapshot, the directive and the judge read them (issue #54).
#[cfg(unix)]
mod e2e;
#[cfg(unix)]
mod facts;
// The evaluation set's runner is python3 and spawns the binary with POSIX paths; the Linux and
// macOS legs of CI run it.
#[cfg(unix)]
mod eval_corrections;
mod goldens;
// Not a behaviour: the source's shape (issue #42).
#[cfg(unix)]
mod hostile;
#[cfg(unix)]
mod hostile_round4;
#[cfg(unix)]
mod hostile_round6;
#[cfg(unix)]
mod hostile_round7;
mod house;
#[cfg(unix)]
mod launcher;
#[cfg(unix)]
mod long_sessions;
mod opencode;
// OpenCode 2 against its published contract, through a stand-in host run by node (issue #56).
#[cfg(unix)]
mod opencode_v2;
mod props;
mod readme;
mod real_transcripts;
mod survives;
