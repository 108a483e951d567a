//! End to end in the real Codex CLI (`@openai/codex`, pinned and installed by `.ci/run` into
//! `.e2e/codex/`), issues #17, #28 and #47: the plugin is installed from a git marketplace as a
//! Codex user does (git's `insteadOf` serves a local repository for the GitHub URL), its hooks
//! trusted by Codex's own app-server as the TUI's review trusts them (`config/batchWrite` of each
//! hook's current hash, which holds the plugin's content hash too, checked through `hooks/list`),
//! sessions run offline against a local stand-in
//! for the Responses API. An automatic compaction (`codex exec`) and a manual one (the
//! app-server's `thread/compact/start`, which the TUI's `/compact` sends) followed by a quit and
//! `codex exec resume` must each hand the snapshot to the model's next request.
//!
//! Built ignored, with what it needs, when the CLI is not installed (`build.rs`);
//! `COMPACT_GUARDIAN_REQUIRE_E2E=1` (set by `.ci/run`) builds it to run, and its absence fails.
//! `COMPACT_GUARDIAN_CODEX=<path>` runs another build.

use super::mock_api::StandIn;
use crate::common::{assert_has_all, assert_lacks_all, succeeded};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real Codex CLI's native binary, if installed.
fn codex() -> Option<PathBuf> {
    super::installed(
        "COMPACT_GUARDIAN_CODEX",
        &[
            ".e2e/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        ],
        "the real Codex CLI is not installed (run .ci/run, or: npm install --prefix .e2e/codex @openai/codex@0.169.0)",
    )
}

/// Input tokens the stand-in reports on a `BIG` turn: over the compaction limit the test sets.
const BIG_USAGE: u64 = 200_000;
const COMPACT_LIMIT: u64 = 50_000;
/// A summary the record agrees with (written before the prompt that triggered the compaction,
/// which Codex has not recorded yet: the latest instruction is the one before it).
const RIGHT_SUMMARY: &str = "The plan's steps write renderer (in progress) and billing tests (pending) are still open; the last test run failed. The user last asked to read the whole repository (BIG).";
/// Wrong three ways (issue #27): the plan's steps are open, the last test run failed, and the
/// latest instruction is not in it.
const FALSE_SUMMARY: &str = "All tasks are completed. All tests pass. Nothing remains to be done.";

/// A Codex handoff that says the billing tests pass after the project's own test script failed
/// (issue #38).
const BILLING_CLAIM: &str = "## Current progress\n- Ran the billing tests with `sh run_tests.sh billing`: all billing tests pass.\n\n## Remaining\n- Write the changelog.";
/// The same handoff, true to the record.
const BILLING_TRUE: &str = "## Current progress\n- Ran `sh run_tests.sh billing`: it exited 101, 3 passed and 1 failed (half_goes_to_even).\n\n## Remaining\n- Fix the failing billing test, then run the script again.";
/// The project's own test script: cargo's report for a failing suite, exit 101.
const RUN_TESTS_SH: &str = "#!/bin/sh\necho \"running 4 tests\"\necho \"test billing::rounding::half_goes_to_even ... FAILED\"\necho \"test result: FAILED. 3 passed; 1 failed; 0 ignored\"\nexit 101\n";

/// The scripted model. The prompt decides: `PLAN` makes an `update_plan` call, `PATCH` an
/// `apply_patch`, `FAIL` a failing command, `BIG` reports a nearly full context; Codex's
/// compaction request gets a deliberately false summary.
fn answer(req: &Value, n: usize) -> (Vec<Value>, u64) {
    let input = req["input"].as_array().cloned().unwrap_or_default();
    let text_of = |it: &Value| -> String {
        it["content"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    };
    let last_user = input
        .iter()
        .rposition(|it| it["role"] == "user")
        .unwrap_or(0);
    let prompt = text_of(&input[last_user.min(input.len().saturating_sub(1))]);
    let steps = input[last_user..]
        .iter()
        .filter(|it| {
            matches!(
                it["type"].as_str(),
                Some("function_call_output" | "custom_tool_call_output")
            )
        })
        .count();
    let message = |t: &str| json!({"type":"message","role":"assistant","id":format!("msg_{n}"),"content":[{"type":"output_text","text":t}]});
    if prompt.contains("CONTEXT CHECKPOINT COMPACTION") {
        // A session that asked for it (RIGHTSUMMARY) gets a summary that is right; one that ran
        // the project's test script (SCRIPT) a handoff that says its tests pass, or (TRUEBILLING)
        // one true to the record.
        let asked = req.to_string();
        let summary = if asked.contains("SCRIPT") && asked.contains("TRUEBILLING") {
            BILLING_TRUE
        } else if asked.contains("SCRIPT") {
            BILLING_CLAIM
        } else if asked.contains("RIGHTSUMMARY") {
            RIGHT_SUMMARY
        } else {
            FALSE_SUMMARY
        };
        return (vec![message(summary)], 1_000);
    }
    let usage = if prompt.contains("BIG") {
        BIG_USAGE
    } else {
        1_000
    };
    let call = |name: &str, args: Value| json!({"type":"function_call","id":format!("fc_{n}"),"call_id":format!("call_{n}"),"name":name,"arguments":args.to_string()});
    let item = if prompt.contains("PLAN") && steps == 0 {
        call(
            "update_plan",
            json!({"plan":[{"step":"write parser","status":"completed"},{"step":"write renderer","status":"in_progress"},{"step":"billing tests","status":"pending"}]}),
        )
    } else if prompt.contains("PATCH") && steps == 0 {
        json!({"type":"custom_tool_call","id":format!("ctc_{n}"),"call_id":format!("call_{n}"),"name":"apply_patch","input":"*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"})
    } else if prompt.contains("COMMIT") && steps == 0 {
        // A real commit of the patched file: git's own report is in the command's output.
        call(
            "exec_command",
            json!({"cmd":"git -c init.defaultBranch=main init -q . && git add notes.txt && git -c user.name=t -c user.email=t@example.com commit -m 'Add the notes file'"}),
        )
    } else if prompt.contains("SCRIPT") && steps == 0 {
        // The project's own test script (the test writes it): cargo's failing report, exit 101.
        call("exec_command", json!({"cmd":"sh run_tests.sh billing"}))
    } else if prompt.contains("FAIL") && steps == 0 {
        // A test run that fails whether or not pytest is installed.
        call(
            "exec_command",
            json!({"cmd":"pytest -q tests/billing; exit 3"}),
        )
    } else {
        message(&format!(
            "Done: {}",
            prompt.chars().take(40).collect::<String>()
        ))
    };
    (vec![item], usage)
}

/// A stand-in for the Responses API on a loopback port: `POST /v1/responses` answered with
/// server-sent events (`response.created`, one `response.output_item.done` per item,
/// `response.completed` with usage); anything else `{}`. Keeps every request body.
fn responses_api() -> StandIn {
    StandIn::start(
        "/responses",
        br#"{"data":[],"models":[]}"#,
        Duration::from_secs(60),
        Arc::new(|n, req| ("text/event-stream", events(n, req).into_bytes())),
    )
}

/// The server-sent events answering request `n`.
fn events(n: usize, req: &Value) -> String {
    let (items, usage) = answer(req, n);
    let mut events = vec![json!({"type":"response.created","response":{"id":format!("resp_{n}")}})];
    events.extend(
        items
            .into_iter()
            .map(|item| json!({"type":"response.output_item.done","item":item})),
    );
    events.push(json!({"type":"response.completed","response":{"id":format!("resp_{n}"),"usage":{"input_tokens":usage,"input_tokens_details":{"cached_tokens":0},"output_tokens":10,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":usage + 10}}}));
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

/// A model the CLI knows nothing of, described so that it offers `apply_patch` (freeform) and,
/// with `tools.update_plan.enabled`, `update_plan`: the tools of Codex's own models.
const MODEL_CATALOG: &str = r#"{"models":[{"slug":"mock-model","display_name":"Mock","description":"mock","supported_reasoning_levels":[],"shell_type":"shell_command","visibility":"list","supported_in_api":true,"priority":1,"upgrade":null,"base_instructions":"You are a coding agent.","supports_reasoning_summaries":false,"support_verbosity":false,"default_verbosity":null,"apply_patch_tool_type":"freeform","truncation_policy":{"mode":"bytes","limit":10000},"supports_parallel_tool_calls":false,"context_window":200000,"experimental_supported_tools":[]}]}"#;

/// The README's route 4, as the tests run it: the marketplace as users add it, then the plugin.
const CODEX_INSTALL: &[&[&str]] = &[
    &[
        "plugin",
        "marketplace",
        "add",
        "compact-guardian/compact-guardian",
    ],
    &["plugin", "add", "compact-guardian@compact-guardian"],
];

/// Issue #55: the README's Codex install block is what these tests run, word for word: it runs
/// as pasted (with `--ref release` it failed while no release branch exists).
#[test]
fn the_readme_gives_the_codex_install_the_tests_run() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let block: String = CODEX_INSTALL
        .iter()
        .map(|args| format!("codex {}\n", args.join(" ")))
        .collect();
    let route = &readme[readme.find("### 4. In the Codex CLI").unwrap()..];
    let first = &route[route.find("```sh\n").unwrap() + 6..];
    assert_eq!(
        &first[..first.find("```").unwrap()],
        block,
        "README.md's Codex install differs"
    );
}

/// The marketplace as users add it (`codex plugin marketplace add compact-guardian/compact-guardian`,
/// a git marketplace): a git repository laid out as this one is (D076). Codex refuses `file://`
/// URLs and bare paths for git marketplaces, so git's `insteadOf` in the test HOME's gitconfig
/// serves this repository for the GitHub URL ([`Codex::new`]).
fn marketplace(dir: &Path) {
    crate::common::marketplace_copy(dir);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "plugin"]);
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {o:?}");
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

codex_test!(
    codex_auto_compaction_restores_prompts_plan_patch_and_failing_command,
    |c| {
        // Hooks trusted as a user trusts them in the TUI's review.
        c.trust_hooks();
        let exec = |extra: &[&str]| c.exec(extra);
        exec(&["PLAN: make the importer retry failed batches"]);
        let id = &c.session_id();
        exec(&["resume", id, "PATCH: add the notes file"]);
        exec(&["resume", id, "COMMIT: commit the notes file"]);
        exec(&["resume", id, "FAIL: run the tests"]);
        exec(&["resume", id, "BIG: read the whole repository"]);
        let last = exec(&[
            "resume",
            id,
            "continue with the renderer, then the billing tests",
        ]);

        let requests = c.api.requests();
        let compaction = compaction_at(&requests);
        let restored = snapshots_in(&requests[compaction + 1..]);
        let snapshot = restored.first().unwrap_or_else(|| {
            panic!(
                "no snapshot in the request after compaction; hook output:\n{}",
                text(&last.stderr)
            )
        });
        assert_has_all(
            snapshot,
            &[
                "> PLAN: make the importer retry failed batches",
                "> PATCH: add the notes file",
                "> FAIL: run the tests",
                "> BIG: read the whole repository",
                "[in progress] write renderer",
                "[pending] billing tests",
                "Completed: write parser", // Files grouped by folder, base names (D073).
                "- ./: notes.txt",
                "exec_command: pytest -q tests/billing; exit 3  [FAILED]",
                "## Last commit (as git reported it)\n- [main (root-commit) ",
            ],
        );
        assert!(snapshot.encode_utf16().count() <= 10_000);
        // Issue #27: the audit ran before this restore (Codex's order) and read the summary from the
        // rollout; its corrections lead the snapshot.
        let corrections = snapshot
            .find("## Corrections to the compaction summary")
            .unwrap_or_else(|| panic!("no corrections in the snapshot:\n{snapshot}"));
        assert!(
            corrections < snapshot.find("## The user").unwrap_or(usize::MAX),
            "{snapshot}"
        );
        assert_has_all(
            snapshot,
            &[
                "the record still has 2 open tasks: \"write renderer\" (in progress), \"billing tests\" (pending)",
            ],
        );
        // `pytest -q tests/billing; exit 3` exits with `exit`'s status, not pytest's, and prints no
        // runner's report: the record does not say how the tests went, so nothing is said (#38).
        assert_lacks_all(snapshot, &["pytest -q tests/billing; exit 3`,"]);
        assert!(
            !snapshot.contains(FALSE_SUMMARY),
            "the summarizer's answer is never taken for the agent's reply"
        );
        // Codex does not hand PreCompact output to its summarizer: nothing is printed for it.
        let summarizer = &requests[compaction].to_string();
        assert_lacks_all(summarizer, &["compact-guardian"]);
    }
);

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A Codex home with the plugin installed from a marketplace, talking to its own stand-in API.
struct Codex {
    cli: PathBuf,
    tmp: tempfile::TempDir,
    api: StandIn,
    /// Run the test build through `COMPACT_GUARDIAN_BIN` (the usual case), or let the installed
    /// launcher find its binary as a user's does ([`Codex::as_a_user`]).
    bin_override: bool,
    env: Vec<(String, String)>,
}

impl Codex {
    fn new() -> Option<Codex> {
        let cli = codex()?;
        let tmp = tempfile::tempdir().unwrap();
        let c = Codex {
            cli,
            tmp,
            api: responses_api(),
            bin_override: true,
            env: Vec::new(),
        };
        for d in [c.home().join(".codex"), c.project(), c.path("market")] {
            std::fs::create_dir_all(d).unwrap();
        }
        marketplace(&c.path("market"));
        std::fs::write(c.path("models.json"), MODEL_CATALOG).unwrap();
        // Codex clones <url>.git: that name is the marketplace's repository.
        std::os::unix::fs::symlink(c.path("market/.git"), c.path("market.git")).unwrap();
        std::fs::write(
            c.home().join(".gitconfig"),
            format!(
                "[url \"{}\"]\n\tinsteadOf = https://github.com/compact-guardian/compact-guardian\n",
                c.path("market").display()
            ),
        )
        .unwrap();
        for args in CODEX_INSTALL {
            let o = c.command().args(*args).output().unwrap();
            assert!(o.status.success(), "{args:?}: {o:?}");
        }
        Some(c)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    fn home(&self) -> PathBuf {
        self.path("home")
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.cli);
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("CODEX_HOME", self.home().join(".codex"))
            .env("MOCK_KEY", "test")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(self.project())
            .stdin(Stdio::null());
        if self.bin_override {
            c.env(
                "COMPACT_GUARDIAN_BIN",
                env!("CARGO_BIN_EXE_compact-guardian"),
            );
        }
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// From now on the hooks run as a user's do: no `COMPACT_GUARDIAN_BIN`, no cargo on PATH, and
    /// this version's release (what `scripts/dist` makes of the test build) served from loopback,
    /// so the binary is the one the startup hook downloads into the data folder. Returns that
    /// server (it stops when dropped).
    fn as_a_user(&mut self) -> crate::common::Server {
        crate::common::dist(&self.path("dist"));
        let server = crate::common::Server::new(self.path("dist"));
        let tools = self.path("tools");
        crate::common::tools_without_rust(&tools);
        self.bin_override = false;
        self.env = vec![
            ("PATH".into(), tools.display().to_string()),
            ("COMPACT_GUARDIAN_RELEASE_URL".into(), server.url.clone()),
        ];
        server
    }

    /// An update of the plugin as a user gets one: an upstream commit that changes a file of the
    /// plugin, installed by Codex's own upgrade, so every hook is `modified`. A file written
    /// into Codex's copy only is no update: Codex re-installs that copy from its clone at some
    /// starts (on 0.169, 3 of 9 runs of the status test below, each with three starts, saw it), and
    /// the hooks then run again.
    fn update_plugin(&self) {
        let script = "plugin/lib/provision.sh";
        let mut text = std::fs::read_to_string(self.path("market").join(script)).unwrap();
        text.push_str("# an update\n");
        self.upstream_commit(script, &text, "an update");
        let installed = std::fs::read_to_string(self.plugin_folder().join("lib/provision.sh"));
        assert!(
            installed.unwrap().ends_with("# an update\n"),
            "not installed"
        );
    }

    /// A commit in the marketplace's repository that writes `text` to `file` (a path in it),
    /// installed as users get it: by Codex's own `plugin marketplace upgrade`.
    fn upstream_commit(&self, file: &str, text: &str, message: &str) {
        let market = self.path("market");
        std::fs::write(market.join(file), text).unwrap();
        git(&market, &["commit", "-qam", message]);
        let o = self
            .command()
            .args(["plugin", "marketplace", "upgrade", "compact-guardian"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    }

    /// The installed plugin's folder (Codex's copy of it).
    fn plugin_folder(&self) -> PathBuf {
        self.home()
            .join(".codex/plugins/cache/compact-guardian/compact-guardian")
            .join(env!("CARGO_PKG_VERSION"))
    }

    /// The plugin's data folder, as Codex names it in `CLAUDE_PLUGIN_DATA`.
    fn data_folder(&self) -> PathBuf {
        self.home()
            .join(".codex/plugins/data/compact-guardian-compact-guardian")
    }

    /// Where the plugin keeps its files when Codex runs it and nothing else is set (issue #30
    /// point 9: under Codex's home, not in a ~/.claude a Codex user may not have).
    fn store(&self) -> PathBuf {
        self.home().join(".codex/compact-guardian")
    }

    /// The `-c` settings that point the CLI at the stand-in.
    fn config(&self) -> Vec<String> {
        let provider = format!(
            "model_providers.mock={{name=\"mock\",base_url=\"http://127.0.0.1:{}/v1\",wire_api=\"responses\",env_key=\"MOCK_KEY\"}}",
            self.api.port
        );
        [
            "model_provider=mock".to_owned(),
            provider,
            format!("model_catalog_json={}", self.path("models.json").display()),
            "tools.update_plan.enabled=true".to_owned(),
            format!("model_auto_compact_token_limit={COMPACT_LIMIT}"),
            "model=mock-model".to_owned(),
        ]
        .into_iter()
        .flat_map(|c| ["-c".to_owned(), c])
        .collect()
    }

    /// `codex exec [extra]`, with hooks as the user trusted them (no bypass).
    fn exec(&self, extra: &[&str]) -> Output {
        let mut c = self.command();
        c.arg("exec").args(self.config()).args([
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
        ]);
        succeeded(c.args(extra), &format!("codex exec {extra:?}"))
    }

    fn session_id(&self) -> String {
        let rollout = walk(&self.home().join(".codex/sessions"))
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .expect("a rollout");
        let name = rollout.file_stem().unwrap().to_string_lossy().into_owned();
        name[name.len() - 36..].to_owned()
    }

    fn app_server(&self) -> AppServer {
        let mut child = self
            .command()
            .arg("app-server")
            .args(self.config())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut s = AppServer {
            child,
            stdin,
            stdout,
            next: 0,
        };
        s.request(
            "initialize",
            json!({"clientInfo": {"name": "compact-guardian-tests", "title": "t", "version": "1"}}),
        );
        s.notify("initialized");
        s
    }

    /// Trusts the plugin's hooks as the TUI's review does ("Trust all and continue"): Codex's own
    /// app-server writes each hook's current hash, the hook's and the plugin contents' (Codex
    /// splits it into `trusted_hash` and `trusted_content_hash`), so a plugin whose files change
    /// afterwards is refused as Codex refuses it. Returns each hook's event and its status before.
    fn trust_hooks(&self) -> Vec<(String, String)> {
        let mut server = self.app_server();
        let listed = server.request("hooks/list", json!({"cwds": [self.project()]}));
        let hooks = listed["data"][0]["hooks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let edits: Vec<Value> = hooks
            .iter()
            .map(|h| {
                let key = serde_json::to_string(h["key"].as_str().unwrap()).unwrap();
                json!({
                    "keyPath": format!("hooks.state.{key}.trusted_hash"),
                    "value": h["currentHash"],
                    "mergeStrategy": "upsert",
                })
            })
            .collect();
        server.request("config/batchWrite", json!({ "edits": edits }));
        let before = hooks
            .iter()
            .map(|h| {
                (
                    h["eventName"].as_str().unwrap().to_owned(),
                    h["trustStatus"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let config = std::fs::read_to_string(self.home().join(".codex/config.toml")).unwrap();
        assert_eq!(
            config.matches("trusted_content_hash = \"sha256:").count(),
            hooks.len(),
            "{config}"
        );
        for h in self.hooks() {
            assert_eq!(h["trustStatus"], "trusted", "{h}");
        }
        before
    }

    /// The plugin's hooks as Codex lists them now (a new app-server: what the next start sees).
    fn hooks(&self) -> Vec<Value> {
        let mut server = self.app_server();
        let listed = server.request("hooks/list", json!({"cwds": [self.project()]}));
        listed["data"][0]["hooks"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The history as `compact-guardian status --json` shows it.
    fn status(&self) -> Value {
        let o = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
            .args(["status", "--json"])
            .env("COMPACT_GUARDIAN_DIR", self.store())
            .output()
            .unwrap();
        serde_json::from_slice(&o.stdout).unwrap()
    }
}

/// `codex app-server` on stdio (what the TUI and the IDE extensions drive): JSON-RPC, one message
/// a line. Killed when dropped.
struct AppServer {
    child: Child,
    stdin: ChildStdin,
    stdout: std::io::BufReader<ChildStdout>,
    next: u64,
}

impl AppServer {
    fn notify(&mut self, method: &str) {
        writeln!(self.stdin, "{}", json!({"method": method})).unwrap();
    }

    /// Sends a request and returns its result, passing over notifications (and failing the test
    /// on an error or after 60 s of silence).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        writeln!(
            self.stdin,
            "{}",
            json!({"method": method, "id": id, "params": params})
        )
        .unwrap();
        loop {
            let m = self
                .message()
                .unwrap_or_else(|| panic!("{method}: no answer"));
            if m["id"] == id && m.get("method").is_none() {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
        }
    }

    fn message(&mut self) -> Option<Value> {
        let mut line = String::new();
        self.stdout.read_line(&mut line).ok().filter(|n| *n > 0)?;
        serde_json::from_str(&line).ok()
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// Issue #28: a manual compaction (the app-server's `thread/compact/start`, what the TUI's
// `/compact` sends), the session quit, then resumed with `codex exec resume`: Codex starts the
// resumed session with SessionStart(`resume`), never `compact`, and the snapshot it saved must
// reach the model there. Hooks run as the user trusted them (no bypass): six are listed.
codex_test!(
    codex_manual_compact_then_quit_and_resume_hands_the_snapshot_over,
    |c| {
        let before = c.trust_hooks();
        let mut events: Vec<&str> = before.iter().map(|(e, _)| e.as_str()).collect();
        events.sort();
        assert_eq!(
            events,
            [
                "postCompact",
                "postToolUse",
                "preCompact",
                "sessionStart",
                "sessionStart",
                "userPromptSubmit"
            ],
            "the hooks the README tells Codex users to trust"
        );
        assert!(before.iter().all(|(_, s)| s == "untrusted"), "{before:?}");
        c.exec(&["PLAN: make the importer retry failed batches"]);
        let id = c.session_id();
        c.exec(&["resume", &id, "FAIL: run the tests"]);
        let compacted = {
            let mut server = c.app_server();
            server.request("thread/resume", json!({"threadId": id}));
            server.request("thread/compact/start", json!({"threadId": id}));
            // Codex runs PreCompact, writes the summary, runs PostCompact; then the user quits.
            let waited = std::time::Instant::now();
            loop {
                let v = c.status();
                if v["compactions"][0]["audited"] == true {
                    break v;
                }
                assert!(waited.elapsed() < Duration::from_secs(60), "no audit: {v}");
                std::thread::sleep(Duration::from_millis(100));
            }
        };
        let last = &compacted["compactions"][0];
        assert_eq!(last["saved"], true, "{compacted}");
        assert!(
            last["restored"].is_null(),
            "nothing restored yet: {compacted}"
        );
        let before_resume = c.api.requests().len();
        c.exec(&[
            "resume",
            &id,
            "continue with the renderer, then the billing tests",
        ]);
        let snapshot = snapshots_in(&c.api.requests()[before_resume..])
            .into_iter()
            .next()
            .expect("the resumed session's first request carries the snapshot");
        assert_has_all(
            &snapshot,
            &[
                "> PLAN: make the importer retry failed batches",
                "[in progress] write renderer",
                "## Corrections to the compaction summary",
            ],
        );
        assert_eq!(c.status()["compactions"][0]["restored"], "snapshot");
        assert!(
            !c.home().join(".claude").exists(),
            "a Codex user gets no ~/.claude folder"
        );
    }
);

// Issue #28: after installing a newer version of the plugin, every hook is "modified since last
// trusted" and runs no more until trusted again (the README says so and how).
codex_test!(codex_plugin_update_needs_the_hooks_trusted_again, |c| {
    c.trust_hooks();
    // A newer version in the marketplace, installed as a user updates.
    let market = c.path("market");
    for f in [
        "plugin/.claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
    ] {
        let p = market.join(f);
        let body =
            std::fs::read_to_string(&p)
                .unwrap()
                .replacen(env!("CARGO_PKG_VERSION"), "99.0.0", 1);
        std::fs::write(&p, body).unwrap();
    }
    git(&market, &["commit", "-qam", "newer"]);
    for args in [
        &["plugin", "marketplace", "upgrade", "compact-guardian"][..],
        &["plugin", "add", "compact-guardian@compact-guardian"],
    ] {
        let o = c.command().args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {o:?}");
    }
    let hooks = c.hooks();
    assert_eq!(hooks.len(), 6, "{hooks:?}");
    for h in hooks {
        assert_eq!(h["trustStatus"], "modified", "{h}");
    }
});

// Issue #47: installed from a git marketplace as the README says, Codex re-installs the plugin
// from a fresh clone at a start after the user trusted it, and installs upstream commits by
// itself. When the plugin was the whole repository (`source: "./"`), that re-install changed
// `.git/` and wrote `.codex-marketplace-install.json` into the plugin folder, so the trust taken
// at the review no longer matched and every hook of the first session failed ("plugin contents
// changed; hook approval required"). The plugin is now `./plugin`, only what runs (D076): the
// trust holds over two starts and over an upstream commit outside the plugin, and the folder
// Codex hashes holds only the shipped files. A file written into it is refused, as Codex does.
codex_test!(
    codex_trust_holds_over_the_git_marketplace_reinstall_and_a_commit_outside_the_plugin,
    |c| {
        c.trust_hooks();
        for prompt in ["first start", "second start"] {
            let o = c.exec(&[prompt]);
            let err = text(&o.stderr);
            assert!(!err.contains("Failed"), "{prompt}: {err}");
            assert!(
                err.contains("hook: SessionStart Completed"),
                "{prompt}: {err}"
            );
        }
        c.upstream_commit(
            "README.md",
            "an upstream change outside the plugin\n",
            "docs",
        );
        c.exec(&["third start"]);
        for h in c.hooks() {
            assert_eq!(h["trustStatus"], "trusted", "{h}");
        }
        let mut shipped: Vec<String> = walk(&c.plugin_folder())
            .iter()
            .map(|p| {
                let rel = p.strip_prefix(c.plugin_folder()).unwrap();
                rel.display().to_string()
            })
            .collect();
        shipped.sort();
        assert_eq!(
            shipped,
            [
                ".claude-plugin/plugin.json",
                "bin/compact-guardian",
                "bin/compact-guardian-provision",
                "hooks/hooks.json",
                "lib/provision-job.sh",
                "lib/provision.sh",
            ]
        );
        std::fs::write(c.plugin_folder().join("stray"), "x").unwrap();
        for h in c.hooks() {
            assert_eq!(h["trustStatus"], "modified", "{h}");
        }
    }
);

// Issue #27: a summary the record agrees with brings no corrections section.
codex_test!(codex_a_right_summary_brings_no_corrections, |c| {
    c.trust_hooks();
    c.exec(&["PLAN: make the importer retry failed batches RIGHTSUMMARY"]);
    let id = c.session_id();
    c.exec(&["resume", &id, "FAIL: run the tests"]);
    c.exec(&["resume", &id, "BIG: read the whole repository"]);
    c.exec(&[
        "resume",
        &id,
        "continue with the renderer, then the billing tests",
    ]);
    let all = c.api.requests();
    let after: String = all[compaction_at(&all) + 1..]
        .iter()
        .map(Value::to_string)
        .collect();
    assert!(
        after.contains("# [compact-guardian snapshot]"),
        "the snapshot arrived"
    );
    let at = after.find("## Corrections to the compaction summary");
    assert!(
        at.is_none(),
        "{}",
        &after[at.unwrap_or(0)..][..900.min(after.len() - at.unwrap_or(0))]
    );
});

// Issue #39 (critical): Codex trusts a plugin's hooks by a hash of the plugin's contents, so a
// hook that writes into the installed plugin folder (the launcher's old `bin/.found`) made Codex
// refuse every later hook. Installed from a clone through the real CLI, hooks trusted once, the
// binary downloaded by the startup hook from a loopback release (no `COMPACT_GUARDIAN_BIN`, no
// cargo): three automatic compactions each run save, audit and restore through the installed
// launcher, and the plugin folder is byte-identical afterwards.
codex_test!(
    codex_runs_the_installed_launcher_at_every_compaction_and_its_folder_stays_byte_identical,
    |mut c| {
        let server = c.as_a_user();
        c.trust_hooks();
        let folder = c.plugin_folder();
        let before = crate::common::tree(&folder);
        assert!(
            before.keys().any(|p| p.ends_with("bin/compact-guardian")),
            "{}",
            folder.display()
        );
        c.exec(&["PLAN: make the importer retry failed batches"]);
        let id = c.session_id();
        let binary = c
            .data_folder()
            .join("bin")
            .join(env!("CARGO_PKG_VERSION"))
            .join("compact-guardian");
        let waited = std::time::Instant::now();
        while !binary.is_file() {
            let log = std::fs::read_to_string(c.data_folder().join("provision.log"));
            assert!(
                waited.elapsed() < Duration::from_secs(60),
                "the startup hook installed no binary: {log:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut outputs = Vec::new();
        for n in 1..=3 {
            c.exec(&[
                "resume",
                &id,
                &format!("BIG: read part {n} of the repository"),
            ]);
            let before_turn = c.api.requests().len();
            let o = c.exec(&["resume", &id, &format!("continue with step {n}")]);
            let requests = c.api.requests();
            let turn = &requests[before_turn..];
            assert!(
                turn.iter().any(is_compaction),
                "compaction {n} did not happen"
            );
            let restored = snapshots_in(turn)
                .iter()
                .any(|t| t.contains(&format!("> BIG: read part {n} of the repository")));
            assert!(
                restored,
                "compaction {n}: no snapshot reached the model; hooks said:\n{}",
                text(&o.stderr)
            );
            outputs.push(text(&o.stderr));
        }
        for (n, err) in outputs.iter().enumerate() {
            for refused in ["approval required", "Failed", "not trusted"] {
                assert!(!err.contains(refused), "compaction {}: {err}", n + 1);
            }
        }
        let status = c.status();
        let compactions = status["compactions"].as_array().unwrap();
        assert_eq!(compactions.len(), 3, "{status}");
        for e in compactions {
            assert_eq!(
                (&e["saved"], &e["audited"], &e["restored"]),
                (&json!(true), &json!(true), &json!("snapshot")),
                "{status}"
            );
        }
        let after = crate::common::tree(&folder);
        let changed = crate::common::tree_changes(&before, &after);
        assert!(
            changed.is_empty(),
            "the installed plugin changed: {changed:?}"
        );
        // The fast path's memory is in the data folder, which is Codex's to give and not hashed.
        assert!(c.data_folder().join("launcher-found").is_file());
        drop(server);
    }
);

/// The README's uninstall for Codex, after `codex plugin remove` and `codex plugin marketplace
/// remove`: the folders Codex leaves and the hooks' trust records in config.toml.
const CODEX_CLEANUP: &str = r#"rm -rf ~/.codex/compact-guardian ~/.codex/plugins/data/compact-guardian-* ~/.codex/plugins/cache/compact-guardian
cp ~/.codex/config.toml ~/.codex/config.toml.bak &&
  awk '/^\[/ { if (held != "") { if (kept) printf "%s", held; held = "" } skip = /^\[hooks\.state\."compact-guardian@/ }
    $0 == "[hooks.state]" { held = $0 "\n"; kept = 0; next }
    held != "" { held = held $0 "\n"; if ($0 !~ /^[ \t]*(#|$)/) kept = 1; next }
    !skip; END { if (kept) printf "%s", held }' ~/.codex/config.toml.bak > ~/.codex/config.toml"#;

#[test]
fn the_readme_gives_the_codex_uninstall_the_tests_run() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains(CODEX_CLEANUP),
        "README.md's Codex uninstall differs"
    );
}

// Issue #39: `status`, run by a Codex user, speaks of Codex: its folder, whether Codex trusts
// the hooks (installed but untrusted: nothing is protected, exit 1), and, after an uninstall,
// everything left; the README's uninstall leaves nothing.
codex_test!(codex_status_tells_trust_and_what_an_uninstall_leaves, |c| {
    // The `codex` status asks is the one on PATH (D077): none at first, then this CLI.
    let tools = c.path("status-path");
    std::fs::create_dir_all(&tools).unwrap();
    let status = |path: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
            .arg("status")
            .env_clear()
            .env("HOME", c.home())
            .env("PATH", path)
            .output()
            .unwrap();
        (o.status.code(), text(&o.stdout))
    };
    let (code, out) = status(&tools);
    assert_eq!(code, Some(1), "installed, untrusted: not protected\n{out}");
    let home = c.home().display().to_string();
    for said in [
        format!("Snapshot folder: {home}/.codex/compact-guardian"),
        "Codex: installed (compact-guardian@compact-guardian)".to_owned(),
        "hooks with a trust record: 0 of 6: NOT trusted".to_owned(),
        "Trust all and continue".to_owned(),
        "Codex's own hook list: not known".to_owned(),
    ] {
        assert!(out.contains(&said), "{said}:\n{out}");
    }
    assert!(
        !out.contains(".claude"),
        "Claude Code's folders to a Codex user:\n{out}"
    );
    c.trust_hooks();
    c.exec(&["PLAN: make the importer retry failed batches"]);
    std::os::unix::fs::symlink(&c.cli, tools.join("codex")).unwrap();
    let (code, out) = status(&tools);
    assert_eq!(code, Some(0), "{out}");
    // Codex's own answer, not the records' count beside it (issue #55).
    assert_lacks_all(&out, &["hooks with a trust record"]);
    assert_has_all(&out, &["Codex's own hook list: all 6 trusted"]);
    // Issue #47: a record that no longer matches the plugin's files looks like any other in
    // config.toml; Codex refuses the hooks, and status says so and exits 1.
    c.update_plugin();
    let (code, out) = status(&tools);
    assert_eq!(code, Some(1), "{out}");
    assert_has_all(
        &out,
        &[
            "6 changed since trusted and 0 never trusted, of 6: NOT protected: Codex refuses the hooks until you approve them again",
        ],
    );
    // A compaction while Codex refuses the hooks leaves only Codex's own record of it: status
    // finds it in the rollout and says it was not protected.
    let id = c.session_id();
    c.exec(&["resume", &id, "BIG: read the whole repository"]);
    c.exec(&["resume", &id, "continue with the renderer"]);
    assert!(
        c.api.requests().iter().any(is_compaction),
        "Codex compacted"
    );
    let (code, out) = status(&tools);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("Codex compacted session {id} at "))
            && out.contains("none of the plugin's hooks ran: that compaction was NOT protected"),
        "{out}"
    );
    // The TUI's review writes an empty `[hooks.state]` header before the records (0.171,
    // measured); the README's uninstall removes it too.
    let config_path = c.home().join(".codex/config.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    let first = config.find("[hooks.state.").unwrap();
    let with_header = format!("{}[hooks.state]\n\n{}", &config[..first], &config[first..]);
    std::fs::write(&config_path, with_header).unwrap();
    // Uninstalled as Codex's own commands do it: what is left is named.
    for args in [
        &["plugin", "remove", "compact-guardian@compact-guardian"][..],
        &["plugin", "marketplace", "remove", "compact-guardian"],
    ] {
        let o = c.command().args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {o:?}");
    }
    let (_, out) = status(&tools);
    assert_has_all(
        &out,
        &[
            "Codex: not installed; left behind",
            "config.toml: [hooks.state.\"compact-guardian@compact-guardian:",
        ],
    );
    super::sh_in_home(CODEX_CLEANUP, &c.home());
    let (_, out) = status(&tools);
    assert!(
        !out.contains("Codex:"),
        "left behind after the README's uninstall:\n{out}"
    );
    let config = std::fs::read_to_string(c.home().join(".codex/config.toml")).unwrap();
    assert_lacks_all(&config, &["compact-guardian", "[hooks.state]"]);
});

/// The id of the newest session other than `not`, from its rollout's name.
fn other_session(c: &Codex, not: &str) -> String {
    let mut rollouts: Vec<(std::time::SystemTime, String)> =
        walk(&c.home().join(".codex/sessions"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .filter_map(|p| {
                let name = p.file_stem()?.to_string_lossy().into_owned();
                let id = name.get(name.len().checked_sub(36)?..)?.to_owned();
                Some((std::fs::metadata(&p).ok()?.modified().ok()?, id))
            })
            .filter(|(_, id)| id != not)
            .collect();
    rollouts.sort();
    rollouts.pop().expect("another session").1
}

// Issue #55: `status` as a Codex user from the marketplace has it (the installed launcher, by
// hand: nothing on PATH but `codex`), in each state Codex's own hook list puts the plugin in:
// never trusted, trusted before the first prompt, every hook changed (an update) with no binary
// for it yet, a compaction while refused, approved again; and, without `codex` to ask, green
// again once a later compaction of another session was protected. Each says what is true and
// the one thing to do, and exits 0 once the user is protected.
codex_test!(
    codex_status_from_the_installed_launcher_in_each_state_of_trust,
    |mut c| {
        let server = c.as_a_user();
        let ask = c.path("status-path");
        std::fs::create_dir_all(&ask).unwrap();
        std::os::unix::fs::symlink(&c.cli, ask.join("codex")).unwrap();
        let launcher = c.plugin_folder().join("bin/compact-guardian");
        // `status` by hand, with or without `codex` on PATH; it must exit with `code`.
        let status = |with_codex: bool, code: i32| {
            let tools = c.path("tools").display().to_string();
            let path = if with_codex {
                format!("{}:{tools}", ask.display())
            } else {
                tools
            };
            let o = Command::new("sh")
                .arg(&launcher)
                .arg("status")
                .env_clear()
                .env("HOME", c.home())
                .env("PATH", path)
                .env("COMPACT_GUARDIAN_RELEASE_URL", &server.url)
                .current_dir(c.project())
                .output()
                .unwrap();
            let out = format!("{}{}", text(&o.stdout), text(&o.stderr));
            assert!(
                !out.contains("installed at the next session start"),
                "false while Codex refuses the hooks:\n{out}"
            );
            assert_eq!(o.status.code(), Some(code), "{out}");
            out
        };
        let binary = c
            .data_folder()
            .join("bin")
            .join(env!("CARGO_PKG_VERSION"))
            .join("compact-guardian");
        // Never trusted: no hook has run, so no binary; `status` fetches it and Codex says.
        let out = status(true, 1);
        assert!(binary.is_file(), "status fetched no binary");
        assert_has_all(
            &out,
            &[
                "Codex's own hook list: 6 of 6 never trusted: NOT protected",
                "choose \"Trust all and continue\"",
            ],
        );
        assert_lacks_all(&out, &["hooks with a trust record"]);
        // Trusted before the first prompt.
        c.trust_hooks();
        let out = status(true, 0);
        assert!(
            out.contains("Codex's own hook list: all 6 trusted") && !out.contains("NOT protected"),
            "{out}"
        );
        // An update: every hook changed since trusted, and no binary for it yet.
        c.update_plugin();
        std::fs::remove_dir_all(c.data_folder().join("bin")).unwrap();
        let out = status(true, 1);
        assert_has_all(
            &out,
            &[
                "6 changed since trusted and 0 never trusted, of 6: NOT protected: Codex refuses the hooks until you approve them again",
                "Trust all and continue",
            ],
        );
        assert_lacks_all(&out, &["hooks with a trust record: 6 of 6"]);
        // A compaction while Codex refuses the hooks.
        c.exec(&["PLAN: make the importer retry failed batches"]);
        let id = c.session_id();
        c.exec(&["resume", &id, "BIG: read the whole repository"]);
        c.exec(&["resume", &id, "continue with the renderer"]);
        let out = status(true, 1);
        let unhooked = format!("Codex compacted session {id} at ");
        assert_has_all(
            &out,
            &[&unhooked, "Codex refuses the hooks until you approve them"],
        );
        // Approved again: Codex runs the hooks, the compaction is history, nothing to do.
        c.trust_hooks();
        let out = status(true, 0);
        assert!(
            out.contains(&unhooked)
                && out.contains("nothing to do")
                && !out.contains("NOT protected:"),
            "{out}"
        );
        // Without `codex` to ask, the records cannot say the cause is gone: until a later compaction,
        // of another session here, is protected.
        let out = status(false, 1);
        assert_has_all(&out, &["Codex's own hook list: not known"]);
        c.exec(&["BIG: start on the billing report"]);
        let other = other_session(&c, &id);
        c.exec(&["resume", &other, "continue with the report"]);
        let out = status(false, 0);
        assert_has_all(&out, &[&unhooked, "nothing to do"]);
        drop(server);
    }
);

// Issue #39: Codex 0.169 forks a thread (`thread/fork`, what `codex fork` does) with the
// parent's history, in which the snapshot restored after its compaction already is; the fork's
// first request carries that one and no second (D034).
codex_test!(
    codex_a_forked_thread_keeps_the_snapshot_it_inherits_and_gets_no_second,
    |c| {
        c.trust_hooks();
        c.exec(&["PLAN: make the importer retry failed batches"]);
        let id = c.session_id();
        c.exec(&["resume", &id, "BIG: read the whole repository"]);
        c.exec(&["resume", &id, "continue with the renderer"]);
        let before = c.api.requests().len();
        let mut server = c.app_server();
        let forked = server.request("thread/fork", json!({"threadId": id}));
        let fork_id = forked["thread"]["id"]
            .as_str()
            .expect("a forked thread")
            .to_owned();
        assert_ne!(fork_id, id);
        server.request(
            "turn/start",
            json!({"threadId": fork_id, "input": [{"type": "text", "text": "continue in the fork"}]}),
        );
        let waited = std::time::Instant::now();
        while c.api.requests().len() == before {
            assert!(
                waited.elapsed() < Duration::from_secs(60),
                "the fork sent nothing"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let first = c.api.requests()[before].to_string();
        assert_eq!(
            first.matches("# [compact-guardian snapshot]").count(),
            1,
            "the fork's first request: the inherited snapshot, and only it"
        );
    }
);

/// Where Codex's first compaction request is among `requests` (the test fails without one).
fn compaction_at(requests: &[Value]) -> usize {
    requests
        .iter()
        .position(is_compaction)
        .expect("Codex compacted")
}

/// Whether a request is Codex's compaction (its summarizer's).
fn is_compaction(req: &Value) -> bool {
    req.to_string().contains("CONTEXT CHECKPOINT COMPACTION")
}

/// The snapshots the model was handed in `requests`: the developer messages that are one.
fn snapshots_in(requests: &[Value]) -> Vec<String> {
    requests
        .iter()
        .flat_map(|r| r["input"].as_array().cloned().unwrap_or_default())
        .filter(|it| it["role"] == "developer")
        .flat_map(|it| it["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .filter(|t| t.starts_with("# [compact-guardian snapshot]"))
        .collect()
}

/// The snapshot text in the requests after the first compaction request.
fn snapshot_after_compaction(c: &Codex) -> String {
    let all = c.api.requests();
    snapshots_in(&all[compaction_at(&all) + 1..])
        .into_iter()
        .next()
        .expect("the snapshot after the compaction")
}

// Issue #38 in Codex: the project's own test script fails, the handoff says the billing tests
// pass; after the automatic compaction the snapshot leads with the run's evidence. A handoff
// true to the record gets nothing.
codex_test!(
    codex_project_script_claim_is_corrected_after_an_automatic_compaction,
    || {
        for truthful in [false, true] {
            let Some(c) = Codex::new() else { return };
            c.trust_hooks();
            std::fs::write(c.project().join("run_tests.sh"), RUN_TESTS_SH).unwrap();
            let tag = if truthful { " TRUEBILLING" } else { "" };
            c.exec(&[&format!("SCRIPT: run the billing tests{tag}")]);
            let id = c.session_id();
            c.exec(&["resume", &id, "BIG: read the whole repository"]);
            c.exec(&["resume", &id, "continue"]);
            let snapshot = snapshot_after_compaction(&c);
            assert_has_all(
                &snapshot,
                &["exec_command: sh run_tests.sh billing  [FAILED]"],
            );
            let corrected = snapshot.contains("`sh run_tests.sh billing`, exited 101");
            assert_eq!(corrected, !truthful, "{snapshot}");
            assert_eq!(
                snapshot.contains("## Corrections to the compaction summary"),
                !truthful,
                "{snapshot}"
            );
        }
    }
);

// The same after a manual compaction (the app-server's `thread/compact/start`): the restore at
// the next turn carries the correction.
codex_test!(
    codex_project_script_claim_is_corrected_after_a_manual_compaction,
    |c| {
        c.trust_hooks();
        std::fs::write(c.project().join("run_tests.sh"), RUN_TESTS_SH).unwrap();
        c.exec(&["SCRIPT: run the billing tests"]);
        let id = c.session_id();
        {
            let mut server = c.app_server();
            server.request("thread/resume", json!({"threadId": id}));
            server.request("thread/compact/start", json!({"threadId": id}));
            let waited = std::time::Instant::now();
            while c.status()["compactions"][0]["audited"] != true {
                assert!(waited.elapsed() < Duration::from_secs(60), "no audit");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        c.exec(&["resume", &id, "continue"]);
        let snapshot = snapshot_after_compaction(&c);
        assert_has_all(
            &snapshot,
            &["The summary says", "`sh run_tests.sh billing`, exited 101"],
        );
    }
);
