//! One test in a real CLI, written once (in the spirit of ripgrep's `rgtest!`): the `#[test]`,
//! the `ignore` with what the test needs when the build found no such CLI (`build.rs`'s cfgs;
//! cargo's summary shows the reason), and the session the test runs in, from the CLI's own
//! constructor (which fails the test, never passes it, when the CLI is gone since the build).
//!
//! `claude_test!(name, |s| { .. })` runs the body with `s` a fresh Claude Code `Session` (`|mut
//! s|` to change it first); `claude_test!(name, Session::with_own_store(), |(s, dir)| { .. })`
//! with what another constructor gives (an `Option`); `claude_test!(name, || { .. })` only marks
//! the test, for a body that builds its sessions itself. `codex_test!` (a `Codex` home) and
//! `opencode_test!` (an `OpenCode` home) are the same for the other CLIs. The arguments read as
//! a closure so that rustfmt formats the body.

/// The shape the CLIs' macros share: the ignore, and the session bound to `$s` (made by the
/// CLI's `$default` constructor or the test's own `$session`, an `Option`) or none. The arms are
/// told apart by their first tokens (`||`, `|`, anything else) before any expression is parsed.
macro_rules! e2e_test {
    ($cfg:ident, $reason:literal, $session:expr; $name:ident, || $body:block) => {
        #[test]
        #[cfg_attr($cfg, ignore = $reason)]
        fn $name() $body
    };
    ($cfg:ident, $reason:literal, $session:expr; $name:ident, |$s:pat_param| $body:block) => {
        e2e_test!($cfg, $reason, $session; $name, $session, |$s| $body);
    };
    ($cfg:ident, $reason:literal, $default:expr; $name:ident, $session:expr, |$s:pat_param| $body:block) => {
        #[test]
        #[cfg_attr($cfg, ignore = $reason)]
        fn $name() {
            let Some($s) = $session else { return };
            $body
        }
    };
}

/// A test in the real Claude Code CLI (see the module's doc).
macro_rules! claude_test {
    ($($test:tt)*) => {
        e2e_test!(
            cg_no_claude,
            "needs the Claude Code CLI: .ci/run installs it (npm install --prefix .e2e @anthropic-ai/claude-code@2.1.328)",
            Session::new(&[]);
            $($test)*
        );
    };
}

/// A test in the real Codex CLI (see the module's doc).
macro_rules! codex_test {
    ($($test:tt)*) => {
        e2e_test!(
            cg_no_codex,
            "needs the Codex CLI: .ci/run installs it (npm install --prefix .e2e/codex @openai/codex@0.169.0)",
            Codex::new();
            $($test)*
        );
    };
}

/// A test in the real OpenCode (see the module's doc).
macro_rules! opencode_test {
    ($($test:tt)*) => {
        e2e_test!(
            cg_no_opencode,
            "needs OpenCode: .ci/run installs it (npm install --prefix .e2e/opencode opencode-ai@1.18.33)",
            OpenCode::new();
            $($test)*
        );
    };
}
