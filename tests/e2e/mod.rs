//! End to end in the real Claude Code CLI (`@anthropic-ai/claude-code`, installed by `.ci/run`
//! into `.e2e/`): real sessions run offline against [`mock_api`], with this repository loaded by
//! `--plugin-dir`, so the hooks fire exactly as they do for users. Assertions are on what the CLI
//! sends to the model: the summarizer request (steering) and the first request after compaction
//! (the restored snapshot in the system prompt).
//!
//! Built ignored, with what it needs, when the CLI is not installed (`build.rs`);
//! `COMPACT_GUARDIAN_REQUIRE_E2E=1` (set by `.ci/run`) builds it to run, and its absence fails.

#[macro_use]
mod macros;
mod mock_api;
// The same in the real Codex CLI (issue #17); a child module, to share the mock's HTTP reader.
#[path = "../e2e_codex.rs"]
mod codex;
// And in OpenCode (issue #43), through its plugin.
#[path = "../e2e_opencode.rs"]
pub(crate) mod opencode;

use crate::common::assert_has_all;
use compact_guardian::render::utf16_len;
use mock_api::{Brain, MockApi, Reply, all_strings, current_prompt, is_summarizer};
use serde_json::{Value, json};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MARKER: &str = "# [compact-guardian snapshot]";
const END: &str = "(End of snapshot.)";
/// The summary the mock writes: wrong on purpose, as real summaries sometimes are.
const FALSE_SUMMARY: &str = "All of the user's requests are complete. There is no remaining work.";
/// A summary that calls an open item done and a failed test run passing (issue #27).
const CLAIMING_SUMMARY: &str = "The renderer is done. All billing tests pass.";
/// A summary in Claude Code's nine sections that says the billing tests pass after the project's
/// own test script failed (issue #38).
const BILLING_CLAIM: &str = "1. Primary Request and Intent:\n   The user asked to run the billing tests.\n\n2. Key Technical Concepts:\n   - the project's run_tests.sh\n\n3. Files and Code Sections:\n   - `run_tests.sh`\n\n4. Errors and fixes:\n   - none\n\n5. Problem Solving:\n   All billing tests pass.\n\n6. All user messages:\n   - \"run the billing tests\"\n\n7. Pending Tasks:\n   - none\n\n8. Current Work:\n   Ran `sh run_tests.sh billing`; everything is green.\n\n9. Optional Next Step:\n   Write the changelog.";
/// The same summary with its claim joined to another (issue #46): "... is fixed and all billing
/// tests pass" said nothing on 854bca9, while the claim alone was corrected.
const BILLING_JOINED: &str = "1. Primary Request and Intent:\n   The user asked to run the billing tests.\n\n2. Key Technical Concepts:\n   - the project's run_tests.sh\n\n3. Files and Code Sections:\n   - `run_tests.sh`\n\n4. Errors and fixes:\n   - none\n\n5. Problem Solving:\n   The rounding bug in src/invoice.rs is fixed (half-even rounding) and all billing tests pass.\n\n6. All user messages:\n   - \"run the billing tests\"\n\n7. Pending Tasks:\n   - none\n\n8. Current Work:\n   Ran `sh run_tests.sh billing`.\n\n9. Optional Next Step:\n   Write the changelog.";
/// The same summary, true to the record: the script failed.
/// The same false claim in the shapes the summarizer writes it: after a colon, and joined with
/// "and" (issue #54).
const BILLING_COLON: &str = "1. Primary Request and Intent:\n   The user asked to run the billing tests.\n\n2. Key Technical Concepts:\n   - the project's run_tests.sh\n\n3. Files and Code Sections:\n   - `run_tests.sh`\n\n4. Errors and fixes:\n   - none\n\n5. Problem Solving:\n   I ran the billing tests and all tests pass.\n\n6. All user messages:\n   - \"run the billing tests\"\n\n7. Pending Tasks:\n   - none\n\n8. Current Work:\n   Ran `sh run_tests.sh billing`: all tests pass.\n\n9. Optional Next Step:\n   Write the changelog.";
const BILLING_TRUE: &str = "1. Primary Request and Intent:\n   The user asked to run the billing tests.\n\n2. Key Technical Concepts:\n   - the project's run_tests.sh\n\n3. Files and Code Sections:\n   - `run_tests.sh`\n\n4. Errors and fixes:\n   - `sh run_tests.sh billing` exited 101: 3 passed, 1 failed (half_goes_to_even).\n\n5. Problem Solving:\n   The billing tests do not pass yet; one test fails.\n\n6. All user messages:\n   - \"run the billing tests\"\n\n7. Pending Tasks:\n   - Fix half_goes_to_even\n\n8. Current Work:\n   Investigating the failing billing test.\n\n9. Optional Next Step:\n   Fix the failing test, then run `sh run_tests.sh billing` again.";
/// The project's own test script: cargo's report for a failing suite, exit 101.
const RUN_TESTS_SH: &str = "#!/bin/sh\necho \"running 4 tests\"\necho \"test billing::rounding::half_goes_to_even ... FAILED\"\necho \"test result: FAILED. 3 passed; 1 failed; 0 ignored\"\nexit 101\n";

/// A summary that is right about the same session.
const RIGHT_SUMMARY: &str = "The renderer and the billing tests are still open; the last billing test run failed. The user asked never to call unwrap() in the importer code.";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real CLI's native binary, if installed.
fn claude() -> Option<PathBuf> {
    installed(
        "COMPACT_GUARDIAN_CLAUDE",
        &[
            ".e2e/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
            ".e2e/node_modules/.bin/claude",
        ],
        "the real Claude Code CLI is not installed (run .ci/run, or: npm install --prefix .e2e @anthropic-ai/claude-code@2.1.328)",
    )
}

/// A CLI's binary: the one the variable `var` names, else the first of `paths` (in this
/// checkout) that is a file. The test was built to run (`build.rs` found the CLI, or
/// COMPACT_GUARDIAN_REQUIRE_E2E is set): a CLI gone since fails it, saying `missing`; it never
/// passes without having run.
fn installed(var: &str, paths: &[&str], missing: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var)
        .map(PathBuf::from)
        .into_iter()
        .chain(paths.iter().map(|p| repo().join(p)))
        .find(|p| p.is_file());
    if found.is_none() {
        panic!("{missing}; `touch build.rs` so that the tests that need it show as ignored");
    }
    found
}

/// A last reply of 107 characters: under the ~118 below which no reply was ever shown (#40).
const SHORT_REPLY: &str = "Done: the parser handles nested quotes now; next I will wire it into the CLI and rerun the test suite here.";

/// The scripted model. Prompts carry directives: `WRITE:<file>`, `EDIT:<file>`, `FAILTEST`,
/// `BIGOUTPUT`; anything else gets a short text answer. The summarizer gets [`FALSE_SUMMARY`].
fn brain(project: PathBuf) -> Brain {
    Arc::new(move |req: &Value| {
        if is_summarizer(req) {
            // A session that ran PYTEST gets a summary that claims more than happened, or, with
            // RIGHTSUMMARY, one that tells it as it was.
            let asked = req.to_string();
            if asked.contains("RIGHTSUMMARY") {
                return Reply::Text(format!("<summary>{RIGHT_SUMMARY}</summary>"));
            }
            if asked.contains("PROJECTSCRIPT") {
                let summary = if asked.contains("TRUEBILLING") {
                    BILLING_TRUE
                } else if asked.contains("JOINEDCLAIM") {
                    BILLING_JOINED
                } else if asked.contains("COLONCLAIM") {
                    BILLING_COLON
                } else {
                    BILLING_CLAIM
                };
                return Reply::Text(format!(
                    "<analysis>Went through the session.</analysis>\n<summary>{summary}</summary>"
                ));
            }
            if asked.contains("PYTEST") {
                return Reply::Text(format!("<summary>{CLAIMING_SUMMARY}</summary>"));
            }
            return Reply::Text(format!("<summary>{FALSE_SUMMARY}</summary>"));
        }
        let (prompt, step) = current_prompt(req);
        let file = |directive: &str| {
            let name = prompt
                .split_whitespace()
                .find_map(|w| w.strip_prefix(directive))
                .unwrap_or("out.txt");
            project.join(name).display().to_string()
        };
        let tool = |name: &str, input: Value| Reply::Tool {
            name: name.into(),
            input,
        };
        let plan: Vec<Reply> = if prompt.contains("WRITE:") {
            vec![tool(
                "Write",
                json!({"file_path": file("WRITE:"), "content": "hello\n"}),
            )]
        } else if prompt.contains("EDIT:") {
            vec![
                tool("Read", json!({"file_path": file("EDIT:")})),
                tool(
                    "Edit",
                    json!({"file_path": file("EDIT:"), "old_string": "hello", "new_string": "hello\nsecond line"}),
                ),
            ]
        } else if prompt.contains("FAILTEST") {
            then_look_around(tool(
                "Bash",
                json!({"command": "echo running tests; exit 3", "description": "Run the tests"}),
            ))
        } else if prompt.contains("PROJECTSCRIPT") {
            // The project's own test script (written by the test), then a look around: the
            // second call is where `correct` hands over what the summary got wrong.
            then_look_around(tool(
                "Bash",
                json!({"command": "sh run_tests.sh billing", "description": "Run the billing tests"}),
            ))
        } else if prompt.contains("PYTEST") {
            // A test run that fails (exit 5 with no tests, 127 without pytest).
            vec![tool(
                "Bash",
                json!({"command": "pytest -q tests/billing", "description": "Run the billing tests"}),
            )]
        } else if prompt.contains("GITCOMMIT") {
            // A real commit in the project (git's own output in the Bash result), then one
            // that finds nothing to commit and fails.
            let commit = "git -c init.defaultBranch=main init -q . && echo notes > notes.txt && \
                          git add notes.txt && git -c user.name=t -c user.email=t@example.com \
                          commit -m 'Add the notes file'";
            vec![
                tool("Bash", json!({"command": commit, "description": "Commit"})),
                tool(
                    "Bash",
                    json!({"command": "git -c user.name=t -c user.email=t@example.com commit -m 'Nothing here'", "description": "Commit again"}),
                ),
            ]
        } else if prompt.contains("SHORTREPLY") {
            // The length of a real last reply the snapshot left out (#40).
            return Reply::Text(SHORT_REPLY.into());
        } else if prompt.contains("CHECKLIST") {
            // Task tools are disabled in `-p` sessions: the plan is a checklist reply.
            return Reply::Text("Plan:\n- [ ] renderer\n- [ ] billing tests".into());
        } else if prompt.contains("BIGOUTPUT") {
            let big = "x".repeat(1_200_000);
            (0..2).map(|i| tool("Write", json!({"file_path": project.join(format!("big{i}.txt")).display().to_string(), "content": big}))).collect()
        } else {
            vec![]
        };
        plan.get(step).cloned().unwrap_or_else(|| {
            Reply::Text(format!(
                "Finished step for: {}",
                prompt.chars().take(60).collect::<String>()
            ))
        })
    })
}

/// A tool call, then `ls`: a second call after it, where `correct` hands over what waits.
fn then_look_around(first: Reply) -> Vec<Reply> {
    let ls = json!({"command": "ls", "description": "List files"});
    vec![
        first,
        Reply::Tool {
            name: "Bash".into(),
            input: ls,
        },
    ]
}

/// One Claude Code session in a throwaway HOME, talking to its own mock API.
struct Session {
    cli: PathBuf,
    api: MockApi,
    home: tempfile::TempDir,
    project: PathBuf,
    id: String,
    started: Cell<bool>,
    env: Vec<(String, String)>,
    /// Load the plugin from this checkout with `--plugin-dir` and run the test build (the usual
    /// case), or rely on a plugin installed in the session's HOME (the install-route test).
    from_checkout: bool,
    /// With `from_checkout`: load the plugin from this folder instead, and let its launcher find
    /// its binary as it does in a built checkout (no `COMPACT_GUARDIAN_BIN`): README route 3.
    plugin_dir: Option<PathBuf>,
}

impl Session {
    fn new(env: &[(&str, &str)]) -> Option<Session> {
        let cli = claude()?;
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("project with space");
        std::fs::create_dir_all(&project).unwrap();
        let api = MockApi::start(brain(project.clone()));
        let id = format!(
            "00000000-0000-4000-8000-{:012x}",
            std::process::id() as u64 * 1000 + rand_suffix()
        );
        Some(Session {
            cli,
            api,
            home,
            project,
            id,
            started: Cell::new(false),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            from_checkout: true,
            plugin_dir: None,
        })
    }

    /// A session whose snapshot folder is a folder of its own (not the plugin's default under
    /// HOME), and that folder's path, for [`status_json`].
    fn with_own_store() -> Option<(Session, String)> {
        let mut s = Session::new(&[])?;
        let dir = s.home.path().join("store").display().to_string();
        s.env.push(("COMPACT_GUARDIAN_DIR".into(), dir.clone()));
        Some((s, dir))
    }

    /// The CLI with this session's environment (HOME, mock API, no inherited settings).
    fn command(&self) -> Command {
        let mut c = Command::new(&self.cli);
        for (k, _) in std::env::vars() {
            if k.starts_with("COMPACT_GUARDIAN_")
                || k.starts_with("CLAUDE")
                || k.starts_with("ANTHROPIC")
            {
                c.env_remove(k);
            }
        }
        c.env("HOME", self.home.path())
            .env("ANTHROPIC_BASE_URL", self.api.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
        if self.from_checkout && self.plugin_dir.is_none() {
            c.env(
                "COMPACT_GUARDIAN_BIN",
                env!("CARGO_BIN_EXE_compact-guardian"),
            );
        }
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Runs `claude <args>` (plugin management) and asserts it succeeded.
    fn cli(&self, args: &[&str]) {
        let out = self
            .command()
            .args(args)
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "claude {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn run(&self, prompt: &str) {
        let mut c = self.command();
        c.arg("-p").arg(prompt);
        if self.started.replace(true) {
            c.arg("--resume").arg(&self.id);
        } else {
            c.arg("--session-id").arg(&self.id);
        }
        if self.from_checkout {
            let dir = self.plugin_dir.clone();
            c.arg("--plugin-dir")
                .arg(dir.unwrap_or_else(|| repo().join("plugin")));
        }
        c.args([
            "--permission-mode",
            "acceptEdits",
            "--allowed-tools",
            "Bash Read Write Edit",
        ]);
        c.current_dir(&self.project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let start = Instant::now();
        let mut child = c.spawn().unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed() > Duration::from_secs(90) {
                let _ = child.kill();
                panic!("claude -p {prompt:?} hung");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "claude -p {prompt:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn requests(&self) -> Vec<Value> {
        self.api.requests()
    }

    /// The newest compaction (summarizer) request, as text.
    fn summarizer(&self) -> String {
        self.requests()
            .into_iter()
            .rfind(is_summarizer)
            .expect("a compaction request")
            .to_string()
    }

    /// A manual `/compact`, then the prompt `next`: the snapshot restored into that turn.
    fn compact_then(&self, next: &str) -> String {
        self.run("/compact");
        self.run(next);
        self.restored()
    }

    /// Installs the plugin through the CLI's own commands from a marketplace copy of this
    /// repository in the session's HOME, and runs on that install from then on (no
    /// `--plugin-dir`). Returns the marketplace's folder.
    fn install_from_marketplace(&mut self) -> PathBuf {
        let market = self.home.path().join("marketplace");
        crate::common::marketplace_copy(&market);
        self.from_checkout = false;
        self.cli(&["plugin", "marketplace", "add", market.to_str().unwrap()]);
        self.cli(&["plugin", "install", "compact-guardian@compact-guardian"]);
        market
    }

    /// The snapshot text in the newest request that carries one, as the SessionStart hook's
    /// `additionalContext` (2.1.328 places it in a system-role entry of `messages`).
    fn restored(&self) -> String {
        let hook_prefix = "SessionStart hook additional context: ";
        let reqs = self.requests();
        let sys = reqs
            .iter()
            .rev()
            .find_map(|r| {
                let mut strings = Vec::new();
                all_strings(r, &mut strings);
                strings.into_iter().find(|s| s.contains(MARKER))
            })
            .expect("no request carried the snapshot");
        assert!(
            sys.contains(&format!("{hook_prefix}{MARKER}")),
            "the snapshot arrives as the SessionStart hook's additional context, inlined:\n{}",
            sys.chars().take(400).collect::<String>()
        );
        let start = sys.find(MARKER).unwrap();
        let end = sys[start..]
            .find(END)
            .expect("snapshot inlined whole, not spilled to a file")
            + start
            + END.len();
        assert_eq!(
            sys.matches(MARKER).count(),
            1,
            "exactly one snapshot in the context"
        );
        sys[start..end].to_string()
    }

    fn transcript(&self) -> PathBuf {
        let projects = self.home.path().join(".claude/projects");
        for dir in std::fs::read_dir(&projects).unwrap() {
            let p = dir.unwrap().path().join(format!("{}.jsonl", self.id));
            if p.exists() {
                return p;
            }
        }
        panic!("no transcript for {}", self.id);
    }
}

impl Drop for Session {
    /// `COMPACT_GUARDIAN_E2E_KEEP=<dir>` keeps each session's transcript there: the freshest
    /// real-CLI data, for fixtures.
    fn drop(&mut self) {
        if let Some(dir) = std::env::var_os("COMPACT_GUARDIAN_E2E_KEEP") {
            let projects = self.home.path().join(".claude/projects");
            for d in std::fs::read_dir(projects).into_iter().flatten().flatten() {
                let p = d.path().join(format!("{}.jsonl", self.id));
                if p.exists() {
                    let _ = std::fs::copy(&p, Path::new(&dir).join(format!("{}.jsonl", self.id)));
                }
            }
        }
    }
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        % 1000
}

/// The section of a snapshot that lists the user's instructions.
fn instructions_section(snapshot: &str) -> &str {
    let start = snapshot
        .find("## The user's recent instructions")
        .expect("instructions section");
    let rest = &snapshot[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

claude_test!(
    snapshot_and_steering_survive_two_compactions_in_the_real_cli,
    |s| {
        s.run("WRITE:notes.txt Create notes.txt with a greeting — café ✓ 日本語");
        assert_eq!(
            std::fs::read_to_string(s.project.join("notes.txt")).unwrap(),
            "hello\n",
            "the real CLI ran Write"
        );
        s.run("EDIT:notes.txt Add a second line to notes.txt");
        assert!(
            std::fs::read_to_string(s.project.join("notes.txt"))
                .unwrap()
                .contains("second line"),
            "the real CLI ran Edit"
        );
        s.run("FAILTEST Run the test script and report");
        s.run("/compact keep the notes.txt work — focus ✓");

        // Steering: the PreCompact stdout reached the summarizer's instructions.
        let asked = s.summarizer();
        assert!(
            asked.contains("compact-guardian: in the summary, do not describe any task as done"),
            "directive missing from the summarizer request"
        );
        assert!(
            asked.contains("FAILTEST Run the test script and report"),
            "latest instruction missing from the directive"
        );

        s.run("What is next?");
        let snap = s.restored();
        assert!(utf16_len(&snap) <= 10_000, "{}", utf16_len(&snap));
        let instr = instructions_section(&snap);
        for p in [
            "Create notes.txt with a greeting — café ✓ 日本語",
            "EDIT:notes.txt Add a second line",
            "FAILTEST Run the test script and report",
        ] {
            assert!(instr.contains(p), "missing instruction {p:?} in:\n{snap}");
        }
        assert!(
            snap.contains("> keep the notes.txt work — focus ✓"),
            "focus text:\n{snap}"
        );
        assert!(snap.contains("before a manual compaction"));
        // Grouped by folder, base names (D073): the project's own folder is `./`.
        let files = &snap[snap.find("## Files changed").expect("files section")..];
        let files = &files[..files.find("\n\n").unwrap_or(files.len())];
        assert!(files.contains("notes.txt"), "{snap}");
        assert!(
            snap.contains("- Bash: echo running tests; exit 3  [FAILED]"),
            "{snap}"
        );
        assert!(snap.contains("- Edit: "), "{snap}");
        assert!(!snap.contains(FALSE_SUMMARY));

        // A second compaction: instructions from before the first one carry over; the first restored
        // snapshot, the summaries and the /compact command output are never taken for instructions.
        s.run("WRITE:todo.md Write the todo list");
        s.run("/compact");
        s.run("And now?");
        let snap2 = s.restored();
        let instr2 = instructions_section(&snap2);
        for p in [
            "FAILTEST Run the test script and report",
            "What is next?",
            "WRITE:todo.md Write the todo list",
        ] {
            assert!(
                instr2.contains(p),
                "missing {p:?} after the second compaction:\n{snap2}"
            );
        }
        for leaked in [
            "compact-guardian snapshot",
            "compact-guardian: in the summary",
            FALSE_SUMMARY,
            "This session is being continued",
            "/compact",
        ] {
            assert!(
                !instr2.contains(leaked),
                "{leaked:?} taken for an instruction:\n{snap2}"
            );
        }
        assert!(
            !snap2.contains("keep the notes.txt work"),
            "the first focus text belongs to the first compaction"
        );
    }
);

claude_test!(
    prompts_between_megabytes_of_tool_output_are_all_restored,
    |s| {
        for i in 1..=5 {
            s.run(&format!("BIGOUTPUT round {i}: write the big files"));
        }
        let body = std::fs::read(s.transcript()).unwrap();
        let at: Vec<usize> = (1..=5)
            .map(|i| {
                memchr::memmem::find(&body, format!("BIGOUTPUT round {i}:").as_bytes())
                    .expect("prompt recorded")
            })
            .collect();
        for w in at.windows(2) {
            assert!(
                w[1] - w[0] > 2 * 1024 * 1024,
                "prompts only {} bytes apart",
                w[1] - w[0]
            );
        }
        let snap = s.compact_then("Which rounds did I ask for?");
        let instr = instructions_section(&snap);
        for i in 1..=5 {
            assert!(
                instr.contains(&format!("BIGOUTPUT round {i}")),
                "round {i} missing:\n{snap}"
            );
        }
    }
);

claude_test!(last_commit_is_gits_report_through_the_real_cli, |s| {
    s.run("GITCOMMIT commit the notes");
    let snap = s.compact_then("What did you commit?");
    let at = snap
        .find("## Last commit (as git reported it)\n- [main (root-commit) ")
        .unwrap_or_else(|| panic!("no last commit:\n{snap}"));
    let line = snap[at..].lines().nth(1).unwrap();
    assert!(line.ends_with("] Add the notes file"), "{line}");
    // The second commit found nothing to commit and failed: it is an action, not the commit.
    assert!(!snap.contains("] Nothing here"), "{snap}");
    assert!(
        snap.contains("commit -m 'Nothing here'  [FAILED]"),
        "{snap}"
    );
});

// Issue #40: in a real Claude Code session a 107-character last reply was missing from the
// restored context (a reply's room was capped at its length and shown only past 120 units).
claude_test!(
    a_short_last_reply_reaches_the_model_after_compaction_in_the_real_cli,
    |s| {
        assert_eq!(SHORT_REPLY.chars().count(), 107);
        s.run("WRITE:parser.rs start the parser");
        s.run("SHORTREPLY where are you with the parser?");
        let snap = s.compact_then("go on");
        assert!(
            snap.contains(&format!(
                "## Agent progress\nLast reply from the agent (may be cut):\n> {SHORT_REPLY}\n"
            )),
            "{snap}"
        );
    }
);

// Issue #13: in the real CLI this came back as "/key to cmd_name. Never touch secrets.toml.".
claude_test!(
    typed_prompt_that_mentions_tags_comes_back_whole_in_the_real_cli,
    |s| {
        let words = "The old parser crashes on input like <system-reminder> tags in values, so escape them, and rename the <command-name> key to cmd_name. Never touch secrets.toml.";
        s.run("WRITE:notes.txt start the notes");
        s.run(words);
        s.run("API Error: 529 keeps killing the import job, add retries with backoff \u{202E}now");
        // The transcript records who wrote them (2.1.2xx+): that is what decides.
        let body = String::from_utf8_lossy(&std::fs::read(s.transcript()).unwrap()).into_owned();
        assert!(
            body.contains(r#""promptSource""#),
            "the CLI no longer records promptSource"
        );
        s.run("/compact");
        let summarizer = s.summarizer();
        let at = summarizer
            .find("compact-guardian: in the summary")
            .expect("the directive reached the summarizer");
        let directive: String = summarizer[at..].chars().take(1_500).collect();
        assert!(
            directive.contains("API Error: 529 keeps killing the import job"),
            "latest instruction in the directive: {directive}"
        );
        assert!(
            !directive.contains('\u{202E}') && directive.contains("<U+202E>"),
            "{directive}"
        );
        s.run("go on");
        let snap = s.restored();
        let instr = instructions_section(&snap);
        // The transcript has the words as typed; restore prints them exactly, and 2.1.328, when it
        // inlines hook output into the model's context, writes `<system-reminder>` as
        // `&lt;system-reminder>` (its own guard against a hook closing the reminder it is wrapped in).
        assert!(body.contains(words), "recorded whole");
        let as_model_sees_it = words.replace("<system-reminder>", "&lt;system-reminder>");
        assert!(instr.contains(&format!("> {as_model_sees_it}")), "{snap}");
        assert!(!instr.contains("> /key"), "{snap}");
        assert!(
            instr.contains(
                "API Error: 529 keeps killing the import job, add retries with backoff <U+202E>now"
            ),
            "{snap}"
        );
    }
);

// Issue #11, the way a user without Rust installs: a marketplace (a clean copy of the plugin
// files, no target/), the real CLI installing it, no cargo on PATH, and the release assets that
// scripts/dist builds served from a loopback server.
claude_test!(
    marketplace_install_without_cargo_downloads_verifies_and_protects_the_first_compaction,
    |mut s| {
        let root = s.home.path().to_path_buf();
        crate::common::dist(&root.join("dist"));
        let server = crate::common::Server::new(root.join("dist"));
        crate::common::tools_without_rust(&root.join("tools"));
        s.env
            .push(("COMPACT_GUARDIAN_RELEASE_URL".into(), server.url.clone()));
        s.env
            .push(("PATH".into(), root.join("tools").display().to_string()));
        let market = s.install_from_marketplace();
        // Issue #39: nothing is written inside the plugin, neither where Claude Code runs it from (a
        // local marketplace's own folder: CLAUDE_PLUGIN_ROOT) nor in its cache copy.
        let cache = root
            .join(".claude/plugins/cache/compact-guardian/compact-guardian")
            .join(env!("CARGO_PKG_VERSION"));
        let plugin_files = || {
            let mut all = crate::common::tree(&market);
            all.extend(crate::common::tree(&cache));
            // Claude Code's own bookkeeping in its cache (sessions using a version, its sweeps).
            all.retain(|p, _| {
                !p.file_name()
                    .is_some_and(|n| [".in_use", ".orphaned_at"].contains(&&*n.to_string_lossy()))
            });
            all
        };
        let before = plugin_files();
        assert!(
            before.keys().any(|p| p.starts_with(&cache)),
            "no cache copy at {}",
            cache.display()
        );
        let start = Instant::now();
        s.run("WRITE:notes.txt Create notes.txt, the first thing after installing");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the session waited for the download"
        );
        // The startup hook downloads, verifies and installs in the background.
        let data = root.join(".claude/plugins/data");
        let version = env!("CARGO_PKG_VERSION");
        let installed = || {
            std::fs::read_dir(&data)
                .into_iter()
                .flatten()
                .flatten()
                .map(|d| d.path().join("bin").join(version).join("compact-guardian"))
                .find(|p| p.is_file())
        };
        let waited = Instant::now();
        while installed().is_none() {
            assert!(
                waited.elapsed() < Duration::from_secs(60),
                "no binary was provisioned under {}",
                data.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(
            installed()
                .unwrap()
                .parent()
                .unwrap()
                .join("../../provision.log"),
        )
        .unwrap_or_default();
        assert!(log.contains("SHA-256 verified"), "{log}");
        // Issue #22: the data folder is where the launcher, run by hand from the installed plugin
        // (no CLAUDE_PLUGIN_DATA), looks for it: <plugins>/data/<plugin>-<marketplace>.
        assert_eq!(
            installed()
                .unwrap()
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .parent()
                .unwrap(),
            data.join("compact-guardian-compact-guardian")
        );
        let by_hand = Command::new("sh")
            .arg(
                root.join(".claude/plugins/cache/compact-guardian/compact-guardian")
                    .join(version)
                    .join("bin/compact-guardian"),
            )
            .arg("--version")
            .env_clear()
            .env("PATH", root.join("tools"))
            .env("HOME", &root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&by_hand.stdout),
            format!("compact-guardian {version}\n"),
            "{}",
            String::from_utf8_lossy(&by_hand.stderr)
        );
        s.run("EDIT:notes.txt Add a second line to notes.txt");
        let snap = s.compact_then("What is next?");
        assert!(
            snap.contains("Saved by the compact-guardian plugin"),
            "{snap}"
        );
        assert!(
            instructions_section(&snap)
                .contains("Create notes.txt, the first thing after installing"),
            "{snap}"
        );
        let after = plugin_files();
        let changed = crate::common::tree_changes(&before, &after);
        assert!(
            changed.is_empty(),
            "the installed plugin changed: {changed:?}"
        );
        assert!(
            data.join("compact-guardian-compact-guardian/launcher-found")
                .is_file(),
            "the fast path is remembered in the data folder"
        );
    }
);

claude_test!(expired_snapshot_is_rebuilt_from_the_transcript, || {
    // A snapshot past its TTL when restore runs: the fallback path. The hooks run the test build
    // through a wrapper that ages the snapshot two hours right after `save` (a TTL of zero did
    // it once; it is no longer a setting that can be used as given, issue #41).
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let wrapper = tmp.path().join("aging-wrapper");
    crate::common::write_executable(
            &wrapper,
            format!(
                "#!/bin/sh\n\"{}\" \"$@\"\nrc=$?\nif [ \"$1\" = save ]; then touch -d '2 hours ago' \"{}\"/compact-snapshot-*.md; fi\nexit $rc\n",
                env!("CARGO_BIN_EXE_compact-guardian"),
                store.display()
            )
            .as_bytes(),
        );
    let (wrapper, store) = (wrapper.display().to_string(), store.display().to_string());
    let Some(s) = Session::new(&[
        ("COMPACT_GUARDIAN_BIN", &wrapper),
        ("COMPACT_GUARDIAN_DIR", &store),
    ]) else {
        return;
    };
    s.run("WRITE:a.txt Make a.txt — ünïcode");
    let snap = s.compact_then("go on");
    assert!(
        snap.contains("Rebuilt by the compact-guardian plugin"),
        "{snap}"
    );
    assert!(snap.contains("WRITE:a.txt Make a.txt — ünïcode"), "{snap}");
});

claude_test!(plugin_validates_in_the_real_cli, || {
    let Some(cli) = claude() else { return };
    let home = tempfile::tempdir().unwrap();
    // The marketplace (the repository's root) and the plugin it serves from `./plugin` (D076).
    for dir in [repo(), repo().join("plugin")] {
        let out = Command::new(&cli)
            .args(["plugin", "validate"])
            .arg(&dir)
            .env("HOME", home.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {text}{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("Validation passed"), "{text}");
    }
});

#[test]
fn plugin_and_cargo_versions_agree() {
    let cargo = env!("CARGO_PKG_VERSION");
    for f in [
        "plugin/.claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
    ] {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(repo().join(f)).unwrap()).unwrap();
        let version = v["version"]
            .as_str()
            .or(v["plugins"][0]["version"].as_str());
        assert_eq!(version, Some(cargo), "{f}");
    }
}

// Issue #19: after a manual `/compact` whose summary claims everything is done, the user sees
// (in the `/compact` output) which open tasks the summary called done; the history and
// `compact-guardian status` in that HOME list the compaction.
claude_test!(
    post_compact_audit_tells_the_user_what_the_summary_called_done_in_the_real_cli,
    Session::with_own_store(),
    |(s, dir)| {
        s.run("CHECKLIST Plan the renderer and the billing tests");
        s.run("never call unwrap() in the importer");
        s.run("/compact");
        // The audit's message is what the /compact command shows: the CLI records it there.
        let transcript = std::fs::read_to_string(s.transcript()).unwrap();
        let said = "the summary called 'renderer' and 'billing tests' done";
        assert!(
            transcript.contains(said),
            "the audit message is not in the /compact output"
        );
        let v = status_json(&dir);
        let last = &v["compactions"][0];
        assert_eq!(last["trigger"], "manual", "{v}");
        assert_eq!(last["restored"], "snapshot", "{v}");
        assert_eq!(last["called_done"], 2, "{v}");
        assert_eq!(last["audited"], true, "{v}");
    }
);

// Issue #19: an automatic compaction runs the PostCompact hook too; it exits 0 (the session goes
// on) and the history records the compaction as automatic, saved, restored and audited.
claude_test!(
    automatic_compaction_is_audited_and_recorded_in_the_real_cli,
    Session::with_own_store(),
    |(s, dir)| {
        s.run("CHECKLIST Plan the renderer and the billing tests");
        s.run("FILLCONTEXT read the whole repository");
        // The compaction comes first in this turn; the model then writes a file: the corrections
        // (the summary called every item done) reach it after that tool call, or with the prompt.
        s.run("WRITE:renderer.txt continue with the renderer");
        let seen = corrections_seen(&s.requests());
        assert!(
            seen.first()
                .is_some_and(|t| t.contains("the record still has 2 unchecked checklist items")),
            "{seen:#?}"
        );
        let v = status_json(&dir);
        let last = &v["compactions"][0];
        assert_eq!(last["trigger"], "auto", "{v}");
        assert_eq!(last["saved"], true, "{v}");
        assert_eq!(last["restored"], "snapshot", "{v}");
        assert_eq!(last["audited"], true, "{v}");
        assert_eq!(last["open_items"], 2, "{v}");
        // The model got the snapshot after the automatic compaction.
        assert!(s.restored().contains("- [ ] renderer"));
    }
);

/// `compact-guardian status --json` for the snapshot folder `dir`.
fn status_json(dir: &str) -> Value {
    let status = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
        .args(["status", "--json"])
        .env("COMPACT_GUARDIAN_DIR", dir)
        .output()
        .unwrap();
    serde_json::from_slice(&status.stdout).unwrap()
}

/// The first corrections the model received after the compaction (the test fails without one).
fn corrections_given(requests: &[Value]) -> String {
    corrections_seen(requests)
        .into_iter()
        .next()
        .expect("no request carried the corrections")
}

/// The corrections text in the requests after the compaction request, as the model receives it.
fn corrections_seen(requests: &[Value]) -> Vec<String> {
    let compaction = requests
        .iter()
        .rposition(is_summarizer)
        .expect("a compaction");
    requests[compaction + 1..]
        .iter()
        .flat_map(|r| {
            let mut strings = Vec::new();
            all_strings(r, &mut strings);
            strings
        })
        .filter(|s| s.contains("## Corrections to the compaction summary"))
        .collect()
}

// Issue #27 in the real CLI: a summary that calls an open checklist item done, says the tests
// pass after a failing run, and leaves out the latest instruction; the first request after the
// compaction that follows a prompt carries a corrections section naming all three, once.
claude_test!(
    the_model_is_told_what_the_summary_got_wrong_in_the_real_cli,
    |s| {
        s.run("CHECKLIST Plan the renderer and the billing tests");
        s.run("PYTEST run the billing tests");
        s.run("never call unwrap() in the importer code, use the error type");
        s.run("/compact");
        s.run("What is next?");
        let text = corrections_given(&s.requests());
        for said in [
            "The summary calls \"renderer\" done",
            "the record still has it unchecked in the agent's checklist",
            "the last test run in the record, `pytest -q tests/billing`, exited",
        ] {
            assert!(text.contains(said), "{said}:\n{text}");
        }
        // Once: the same corrections are in later requests only as the history of that one.
        s.run("And then?");
        let reqs = s.requests();
        let last = reqs.last().unwrap().to_string();
        assert_eq!(
            last.matches("## Corrections to the compaction summary")
                .count(),
            1,
            "handed over once"
        );
    }
);

claude_test!(a_right_summary_brings_no_corrections_in_the_real_cli, |s| {
    s.run("CHECKLIST Plan the renderer and the billing tests RIGHTSUMMARY");
    s.run("PYTEST run the billing tests");
    s.run("never call unwrap() in the importer code, use the error type");
    s.run("/compact");
    s.run("What is next?");
    assert!(corrections_seen(&s.requests()).is_empty());
});

// Issue #39: Claude Code fires PostToolUseFailure, not PostToolUse, after a failed tool call.
// After an automatic compaction (the prompt's own UserPromptSubmit ran before it), the first tool
// call fails: its hook hands the corrections over, so the request carrying that failure carries
// them too, not only the one after the next call that succeeds.
claude_test!(
    a_failed_tool_call_hands_the_corrections_over_in_the_real_cli,
    |s| {
        s.run("CHECKLIST Plan the renderer and the billing tests");
        s.run("FILLCONTEXT read the whole repository");
        s.run("FAILTEST continue with the billing tests");
        let requests = s.requests();
        let compaction = requests
            .iter()
            .rposition(is_summarizer)
            .expect("an automatic compaction");
        let after_failure = requests[compaction + 1..]
            .iter()
            .find(|r| {
                let mut strings = Vec::new();
                all_strings(r, &mut strings);
                strings.iter().any(|t| t.contains("running tests"))
            })
            .expect("the failing call's result reached the model");
        let mut strings = Vec::new();
        all_strings(after_failure, &mut strings);
        assert!(
            strings
                .iter()
                .any(|t| t.contains("## Corrections to the compaction summary")),
            "the request after the failed call carries no corrections"
        );
    }
);

// Issue #39: what a manual `/compact` shows the user (Claude Code records that command's output
// in the transcript as `<local-command-stdout>`, exactly as shown): the PreCompact directive on
// one line, which still reaches the summarizer whole, and a PostCompact line that says something
// (before, a summary that kept everything left a bare "completed successfully").
claude_test!(
    a_manual_compact_shows_one_line_per_hook_in_the_real_cli,
    |s| {
        s.run("CHECKLIST Plan the renderer and the billing tests RIGHTSUMMARY");
        s.run("never call unwrap() in the importer code");
        s.run("/compact");
        let summarizer = s.summarizer();
        assert!(
            summarizer.contains("These checklist items are still open: renderer; billing tests.")
                && summarizer
                    .contains("verbatim: \\\"never call unwrap() in the importer code\\\""),
            "the summarizer's steering"
        );
        let shown: Vec<String> = std::fs::read_to_string(s.transcript())
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .flat_map(|v| {
                let mut strings = Vec::new();
                all_strings(&v, &mut strings);
                strings
            })
            .filter(|t| t.contains("<local-command-stdout>") && t.contains("PreCompact ["))
            .collect();
        let out = shown.last().expect("the /compact output was recorded");
        let lines: Vec<&str> = out.lines().collect();
        let pre: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("PreCompact ["))
            .collect();
        assert_eq!(pre.len(), 1, "{out}");
        assert!(
            pre[0].contains("completed successfully: compact-guardian: in the summary")
                && pre[0].contains("never call unwrap() in the importer code"),
            "the whole directive on the PreCompact line: {out}"
        );
        let at = lines
            .iter()
            .position(|l| l.contains("PreCompact ["))
            .unwrap();
        let next = lines.get(at + 1).copied().unwrap_or("");
        assert!(
            !next.starts_with("- ") && !next.starts_with("Keep the user"),
            "the directive goes on past its line: {out}"
        );
        let post = lines
            .iter()
            .find(|l| l.contains("PostCompact ["))
            .unwrap_or_else(|| panic!("no PostCompact line: {out}"));
        assert_has_all(
            post,
            &[
                "completed successfully: compact-guardian: ",
                "were checked against the record",
                "nothing in them contradicts it",
            ],
        );
    }
);

/// Runs the sh `script` (a README's uninstall) with `home` as HOME; it must succeed.
fn sh_in_home(script: &str, home: &Path) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("HOME", home)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
}

/// The README's uninstall for Claude Code, after `claude plugin uninstall` and `claude plugin
/// marketplace remove`: the snapshot folder and the cache copy Claude Code marks orphaned.
const CLAUDE_CLEANUP: &str =
    "rm -rf ~/.claude/compact-guardian ~/.claude/plugins/cache/compact-guardian";

// Issue #39: `status` says where the plugin is installed and, after an uninstall through the
// real CLI, everything of it left; the README's uninstall leaves nothing.
claude_test!(
    status_tells_what_an_uninstall_leaves_in_the_real_cli,
    |mut s| {
        s.install_from_marketplace();
        let root = s.home.path().to_path_buf();
        let status = || {
            let o = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
                .arg("status")
                .env_clear()
                .env("HOME", &root)
                .output()
                .unwrap();
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        let out = status();
        assert!(
            out.contains("Claude Code: installed (compact-guardian@compact-guardian)")
                && out.contains("- plugin copy: "),
            "{out}"
        );
        assert!(!out.contains("Codex"), "{out}");
        s.cli(&["plugin", "uninstall", "compact-guardian@compact-guardian"]);
        s.cli(&["plugin", "marketplace", "remove", "compact-guardian"]);
        let out = status();
        assert!(
            out.contains("Claude Code: not installed; left behind")
                && out.contains("- plugin copy (orphaned): "),
            "{out}"
        );
        sh_in_home(CLAUDE_CLEANUP, &root);
        let out = status();
        assert!(
            !out.contains("Claude Code:"),
            "left behind after the README's uninstall:\n{out}"
        );
    }
);

// Issue #55: README route 3, `claude --plugin-dir plugin` in a built checkout, is not installed
// from a marketplace, and `status` called it "not installed; left behind" while it was in use.
// Claude Code names such a plugin `compact-guardian@inline` and gives it the data folder
// `compact-guardian-inline` (2.1.328, checked here), where the launcher remembers its root.
claude_test!(
    a_built_checkout_loaded_with_plugin_dir_is_reported_in_use,
    |mut s| {
        let root = s.home.path().to_path_buf();
        let checkout = root.join("checkout");
        crate::common::marketplace_copy(&checkout);
        let built = checkout.join("target/release/compact-guardian");
        std::fs::create_dir_all(built.parent().unwrap()).unwrap();
        crate::common::copy_executable(Path::new(env!("CARGO_BIN_EXE_compact-guardian")), &built);
        s.plugin_dir = Some(checkout.join("plugin"));
        s.run("Say hello.");
        let data = root.join(".claude/plugins/data/compact-guardian-inline");
        assert!(
            data.join("launcher-found").is_file(),
            "no data folder of that name: {:?}",
            std::fs::read_dir(root.join(".claude/plugins/data"))
                .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
        );
        let o = Command::new(&built)
            .arg("status")
            .env_clear()
            .env("HOME", &root)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!(
                "Claude Code: loaded with --plugin-dir from {}",
                checkout.join("plugin").display()
            )),
            "{out}"
        );
        assert!(!out.contains("left behind"), "{out}");
    }
);

// Issue #39: a session forked from a compacted one (`--resume <id> --fork-session`, SessionStart
// source `fork`, a new session id) starts from the parent's context, which already holds the
// snapshot the parent was given after its compaction: it gets no second one (D034).
claude_test!(
    a_forked_session_keeps_the_snapshot_it_inherits_and_gets_no_second_in_the_real_cli,
    |s| {
        // A probe hook beside the plugin's, to see how the fork starts.
        let log = s.home.path().join("starts.log");
        let settings = s.home.path().join("probe-settings.json");
        std::fs::write(
            &settings,
            json!({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())}]}]}}).to_string(),
        )
        .unwrap();
        s.run("WRITE:notes.txt Create notes.txt");
        s.run("FAILTEST Run the test script and report");
        s.run("/compact");
        s.run("What is next?");
        let before = s.requests().len();
        let out = s
            .command()
            .args([
                "-p",
                "Continue in the fork",
                "--resume",
                &s.id,
                "--fork-session",
            ])
            .arg("--plugin-dir")
            .arg(repo().join("plugin"))
            .arg("--settings")
            .arg(&settings)
            .current_dir(&s.project)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let starts = std::fs::read_to_string(&log).unwrap();
        let fork: Value = starts
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["source"] == "fork")
            .unwrap_or_else(|| panic!("no SessionStart(fork): {starts}"));
        assert_ne!(
            fork["session_id"],
            s.id.as_str(),
            "a fork has an id of its own"
        );
        let first = s.requests()[before].to_string();
        assert_eq!(
            first.matches(MARKER).count(),
            1,
            "the fork's first request: the inherited snapshot, and only it"
        );
    }
);

/// The project's own test script in `s`'s project, failing.
fn with_run_tests(s: &Session) {
    std::fs::write(s.project.join("run_tests.sh"), RUN_TESTS_SH).unwrap();
}

/// The project's failing test script run by `prompt`, then, after a manual `/compact` if
/// `manual` (else the prompt fills the context), the next prompt: every request, a compaction
/// among them.
fn script_then_next(s: &Session, prompt: &str, manual: bool) -> Vec<Value> {
    with_run_tests(s);
    s.run(prompt);
    if manual {
        s.run("/compact");
    }
    s.run("What is next?");
    let reqs = s.requests();
    assert!(reqs.iter().any(is_summarizer), "{prompt}: no compaction");
    reqs
}

// Issue #38 in the real CLI: the project's own test script fails, the summary says the billing
// tests pass; after a manual `/compact` the next request carries the run's evidence.
claude_test!(
    a_project_test_script_claim_is_corrected_after_a_manual_compaction_in_the_real_cli,
    |s| {
        let reqs = script_then_next(&s, "PROJECTSCRIPT run the billing tests", true);
        assert_has_all(
            &corrections_given(&reqs),
            &[
                "`sh run_tests.sh billing`, exited 101",
                "All billing tests pass",
            ],
        );
    }
);

// The same session with a summary true to the record: nothing is said.
claude_test!(
    a_true_summary_of_a_failing_project_script_gets_nothing_in_the_real_cli,
    |s| {
        let prompt = "PROJECTSCRIPT TRUEBILLING run the billing tests";
        assert!(corrections_seen(&script_then_next(&s, prompt, true)).is_empty());
    }
);

// A pass claim joined to another claim ("the bug ... is fixed and all billing tests pass") is
// corrected as the claim alone is, after a manual compaction and after an automatic one right
// after the failing run (issue #46).
claude_test!(
    a_pass_claim_joined_to_another_is_corrected_after_manual_and_automatic_compactions_in_the_real_cli,
    || {
        for (prompt, manual) in [
            ("PROJECTSCRIPT JOINEDCLAIM run the billing tests", true),
            (
                "PROJECTSCRIPT JOINEDCLAIM FILLCONTEXT run the billing tests",
                false,
            ),
        ] {
            let Some(s) = Session::new(&[]) else { return };
            let text = corrections_given(&script_then_next(&s, prompt, manual));
            let said = ["`sh run_tests.sh billing`, exited 101", "all billing tests pass"];
            assert!(said.iter().all(|s| text.contains(s)), "{prompt}: {text}");
        }
    }
);

// The race of issue #38: the failing script is the last call when the context fills, so the CLI
// compacts right after it and PreCompact may run before its result is written. The restored
// snapshot shows the run failed (restore reads what the record gained after the save), and the
// summary's claim is corrected at the next tool call.
claude_test!(
    a_failing_script_right_before_an_automatic_compaction_is_restored_and_corrected_in_the_real_cli,
    |s| {
        // The turn ends after the compaction (the stand-in answers it with text): the corrections
        // go with the next prompt.
        let reqs = script_then_next(&s, "PROJECTSCRIPT FILLCONTEXT run the billing tests", false);
        let snap = s.restored();
        assert!(
            snap.contains("sh run_tests.sh billing  [FAILED]"),
            "the failing run in the restored snapshot:\n{snap}"
        );
        let text = corrections_given(&reqs);
        assert!(
            text.contains("`sh run_tests.sh billing`, exited 101"),
            "{text}"
        );
    }
);

// Issue #54 in the real CLI: an automatic compaction right after a failing test run, whose
// summary says "Ran `sh run_tests.sh billing`: all tests pass." and "I ran the billing tests and
// all tests pass.": the model is told the run failed, quoting the summary's words.
claude_test!(
    a_colon_or_joined_pass_claim_after_an_automatic_compaction_is_corrected_in_the_real_cli,
    |s| {
        let prompt = "PROJECTSCRIPT COLONCLAIM FILLCONTEXT run the billing tests";
        assert_has_all(
            &corrections_given(&script_then_next(&s, prompt, false)),
            &["`sh run_tests.sh billing`, exited 101", "all tests pass"],
        );
    }
);

// The same automatic compaction with a summary true to the record: nothing is said.
claude_test!(
    a_true_summary_after_an_automatic_compaction_gets_nothing_in_the_real_cli,
    |s| {
        let prompt = "PROJECTSCRIPT TRUEBILLING FILLCONTEXT run the billing tests";
        assert!(corrections_seen(&script_then_next(&s, prompt, false)).is_empty());
    }
);
