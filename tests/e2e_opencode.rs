//! End to end in the real OpenCode (`opencode-ai`, pinned and installed by `.ci/run` into
//! `.e2e/opencode/`), issue #43: the plugin is installed as the README says
//! (`compact-guardian install-opencode` into an isolated home), sessions run offline against a
//! local stand-in for an OpenAI-compatible chat completions API (`@ai-sdk/openai-compatible` with
//! a loopback `baseURL`), through a manual compaction (`POST /session/:id/summarize` on
//! `opencode serve`, what the TUI's `/compact` calls) and an automatic one (the stand-in reports
//! a nearly full context). Assertions are on what the model receives: the summarizer's request
//! (the steering, no snapshot), and every request after the compaction (the snapshot, once, right
//! after the summary), in the process that compacted and in a new one.
//!
//! Built ignored, with what it needs, when OpenCode is not installed (`build.rs`);
//! `COMPACT_GUARDIAN_REQUIRE_E2E=1` (set by `.ci/run`) builds it to run, and its absence fails.
//! `COMPACT_GUARDIAN_OPENCODE=<path>` runs another
//! build (the newest, say).

use super::mock_api::{StandIn, read_message};
use crate::common::assert_has_all;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

const MARKER: &str = "# [compact-guardian snapshot]";
/// The steering's first words, as `save` prints them for the summarizer.
const STEER: &str = "compact-guardian: in the summary";
/// Input tokens the stand-in reports for a `BIG` prompt: over the 100,000-token context minus
/// the 4,000-token output limit the test's model has, so OpenCode compacts before its next step.
const BIG_USAGE: u64 = 99_000;
/// The summary the stand-in writes, in OpenCode's template, wrong on purpose: the todo list is
/// open, the last test run failed, and the latest instruction is missing.
const FALSE_SUMMARY: &str = "## Objective\n- Finish the billing work.\n\n## Work State\n### Completed\n- All tasks are completed.\n- All tests pass.\n\n### Active\n- (none)\n\n## Next Move\n1. (none)";
/// The user's latest instruction before each compaction.
const LATEST: &str = "please fix the parser next and keep the public API stable";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real OpenCode's native binary, if installed.
pub(crate) fn opencode() -> Option<PathBuf> {
    super::installed(
        "COMPACT_GUARDIAN_OPENCODE",
        &[".e2e/opencode/node_modules/opencode-linux-x64/bin/opencode"],
        "OpenCode is not installed (run .ci/run, or: npm install --prefix .e2e/opencode opencode-ai@1.18.33)",
    )
}

/// A request's messages as (role, text) pairs, text parts joined.
fn messages(req: &Value) -> Vec<(String, String)> {
    req["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default().to_owned();
            (role, super::mock_api::message_text(m))
        })
        .collect()
}

fn system(req: &Value) -> String {
    messages(req)
        .into_iter()
        .filter(|(role, _)| role == "system")
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("\n")
}

/// OpenCode's summarizer: its own agent prompt, no tools.
fn is_summarizer(req: &Value) -> bool {
    system(req).starts_with("You are a context summarization agent")
}

fn is_title(req: &Value) -> bool {
    system(req).starts_with("You are a title generator")
}

/// The scripted model. The latest user message decides: `TODO` makes a `todowrite` call, `WRITE`
/// a `write` call, `FAIL` a failing test run (`bash`), `BIG` reports a nearly full context; the
/// summarizer gets [`FALSE_SUMMARY`]. Returns the reply (a text, or a tool call) and the input
/// tokens reported.
fn answer(req: &Value, project: &Path) -> (Result<String, (String, Value)>, u64) {
    if is_summarizer(req) {
        return (Ok(FALSE_SUMMARY.to_owned()), 1_000);
    }
    if is_title(req) {
        return (Ok("Billing work".to_owned()), 100);
    }
    let msgs = messages(req);
    let last_user = msgs
        .iter()
        .rposition(|(role, _)| role == "user")
        .unwrap_or(0);
    let prompt = msgs.get(last_user).map(|m| m.1.clone()).unwrap_or_default();
    // A tool's result follows the prompt: the call was made, the turn ends with text.
    let answered = req["messages"].as_array().is_some_and(|all| {
        all[last_user..]
            .iter()
            .any(|m| m["role"] == "tool" || m["tool_calls"].is_array())
    });
    let usage = if prompt.contains("BIG") {
        BIG_USAGE
    } else {
        1_000
    };
    let call = |name: &str, args: Value| Err((name.to_owned(), args));
    let reply = if prompt.contains("TODO") && !answered {
        call(
            "todowrite",
            json!({"todos":[
                {"content":"write parser","status":"completed","priority":"high"},
                {"content":"write renderer","status":"in_progress","priority":"high"},
                {"content":"billing tests","status":"pending","priority":"medium"}]}),
        )
    } else if prompt.contains("WRITE") && !answered {
        call(
            "write",
            json!({"filePath": project.join("notes.txt"), "content": "parser notes\n"}),
        )
    } else if prompt.contains("FAIL") && !answered {
        call(
            "bash",
            // A test run that fails on its own exit status (127 without pytest, 4 with it: no such
            // file); a status of its own is what the corrections count (D055).
            json!({"command":"pytest -q tests/test_billing.py","description":"Run the billing tests"}),
        )
    } else {
        Ok(format!(
            "Done: {}",
            prompt.chars().take(40).collect::<String>()
        ))
    };
    (reply, usage)
}

/// A stand-in for an OpenAI-compatible chat completions API on a loopback port:
/// `POST /v1/chat/completions` answered with server-sent events (chunks, then one with the
/// finish reason and usage, then `[DONE]`); anything else `{"data":[]}`. Keeps every request.
fn chat_api(project: PathBuf) -> StandIn {
    StandIn::start(
        "/chat/completions",
        br#"{"data":[]}"#,
        Duration::from_secs(120),
        Arc::new(move |n, req| ("text/event-stream", chunks(n, req, &project).into_bytes())),
    )
}

/// The server-sent events answering request `n`.
fn chunks(n: usize, req: &Value, project: &Path) -> String {
    let (reply, usage) = answer(req, project);
    let chunk = |delta: Value, finish: Value| json!({"id":format!("chatcmpl-{n}"),"object":"chat.completion.chunk","created":1,"model":"mock-model","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
    let (first, finish) = match reply {
        Ok(text) => (
            chunk(json!({"role":"assistant","content":text}), Value::Null),
            "stop",
        ),
        Err((name, args)) => (
            chunk(
                json!({"role":"assistant","tool_calls":[{"index":0,"id":format!("call_{n}"),"type":"function","function":{"name":name,"arguments":args.to_string()}}]}),
                Value::Null,
            ),
            "tool_calls",
        ),
    };
    let mut last = chunk(json!({}), json!(finish));
    last["usage"] = json!({"prompt_tokens":usage,"completion_tokens":10,"total_tokens":usage + 10});
    format!("data: {first}\n\ndata: {last}\n\ndata: [DONE]\n\n")
}

/// One HTTP request to `opencode serve` (loopback, `Connection: close`): the response's body.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // A turn of the scripted model takes seconds; OpenCode's first request boots its project.
    s.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let (status, bytes) =
        read_message(&mut BufReader::new(s), true).expect("an answer from opencode serve");
    assert!(
        status.contains(" 200 "),
        "{method} {path}: {status} {}",
        String::from_utf8_lossy(&bytes)
    );
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// An isolated home with the plugin installed as the README says and OpenCode configured for the
/// stand-in provider.
struct OpenCode {
    cli: PathBuf,
    tmp: tempfile::TempDir,
    api: StandIn,
}

impl OpenCode {
    fn new() -> Option<OpenCode> {
        let cli = opencode()?;
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let oc = OpenCode {
            cli,
            api: chat_api(project),
            tmp,
        };
        let config = json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": format!("http://127.0.0.1:{}/v1", oc.api.port), "apiKey": "test"},
                "models": {"mock-model": {"name": "Mock", "tool_call": true, "limit": {"context": 100_000, "output": 4_000}}},
            }},
            "model": "mock/mock-model",
            "autoupdate": false,
            "share": "disabled",
        });
        let dir = oc.home().join(".config/opencode");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("opencode.json"), config.to_string()).unwrap();
        // The README's one step.
        let o = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
            .arg("install-opencode")
            .env_clear()
            .env("HOME", oc.home())
            .output()
            .unwrap();
        assert!(o.status.success(), "install-opencode: {o:?}");
        assert!(
            oc.home()
                .join(".config/opencode/plugins/compact-guardian.js")
                .is_file()
        );
        Some(oc)
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    /// OpenCode with the isolated home and nothing of this machine's: offline, no updates, no
    /// downloads. The plugin finds the binary the way a user's finds it (the one that installed
    /// it), not through COMPACT_GUARDIAN_BIN.
    fn command(&self) -> Command {
        let mut c = Command::new(&self.cli);
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .current_dir(self.project())
            .stdin(Stdio::null());
        c
    }

    /// `opencode serve` on a free port, ended when dropped.
    fn serve(&self) -> Server {
        let mut child = self
            .command()
            .args(["serve", "--port", "0", "--hostname", "127.0.0.1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut port = None;
        let mut line = String::new();
        while port.is_none() && out.read_line(&mut line).unwrap_or(0) > 0 {
            port = line
                .rsplit_once("http://127.0.0.1:")
                .and_then(|(_, p)| p.trim().parse::<u16>().ok());
            line.clear();
        }
        // The rest of its output is drained, so that it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Server {
            child,
            port: port.expect("opencode serve said where it listens"),
            directory: self.project(),
        }
    }

    /// A session in one `opencode serve` process (ended afterwards): the work every scenario
    /// starts with ([`Server::work`]), then `more`. Returns the session's id.
    fn worked(&self, more: impl FnOnce(&Server, &str)) -> String {
        let server = self.serve();
        let session = server.work();
        more(&server, &session);
        session
    }

    /// `opencode run --session <id> <prompt>`: a new OpenCode process for one prompt.
    fn run(&self, session: &str, prompt: &str) -> Output {
        let o = self
            .command()
            .args(["run", "--session", session, prompt])
            .output()
            .unwrap();
        assert!(o.status.success(), "opencode run: {o:?}");
        o
    }

    /// The plugin's folder for OpenCode sessions (under OpenCode's data folder).
    fn store(&self) -> PathBuf {
        self.home().join(".local/share/opencode/compact-guardian")
    }

    /// `compact-guardian status` as an OpenCode user runs it (from OpenCode's shell).
    fn status(&self) -> String {
        let o = Command::new(env!("CARGO_BIN_EXE_compact-guardian"))
            .arg("status")
            .env_clear()
            .env("HOME", self.home())
            .env("OPENCODE", "1")
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

struct Server {
    child: Child,
    port: u16,
    directory: PathBuf,
}

impl Server {
    fn at(&self, path: &str) -> String {
        let dir = self.directory.to_str().unwrap();
        format!("{path}?directory={}", dir.replace('/', "%2F"))
    }

    fn new_session(&self) -> String {
        let s = http(self.port, "POST", &self.at("/session"), Some(&json!({})));
        s["id"].as_str().expect("a session id").to_owned()
    }

    /// A new session and the work each scenario starts with: a todo list, a file written, a
    /// failing test run. Returns the session's id.
    fn work(&self) -> String {
        let session = self.new_session();
        self.prompt(&session, "TODO: plan the billing work");
        self.prompt(&session, "WRITE: note what the parser does");
        self.prompt(&session, "FAIL: run the billing tests");
        session
    }

    /// One prompt, answered (the turn's steps all ran).
    fn prompt(&self, session: &str, text: &str) {
        let body = json!({"parts":[{"type":"text","text":text}]});
        http(
            self.port,
            "POST",
            &self.at(&format!("/session/{session}/message")),
            Some(&body),
        );
    }

    /// What the TUI's `/compact` sends.
    fn compact(&self, session: &str) {
        let body = json!({"providerID":"mock","modelID":"mock-model"});
        http(
            self.port,
            "POST",
            &self.at(&format!("/session/{session}/summarize")),
            Some(&body),
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The snapshot in a request to the main agent: the text of the one user message right after
/// the summary that holds it (and proof it is there once).
fn snapshot_in(req: &Value) -> Option<String> {
    let msgs = messages(req);
    let holding: Vec<usize> = msgs
        .iter()
        .enumerate()
        .filter(|(_, (_, t))| t.contains(MARKER))
        .map(|(i, _)| i)
        .collect();
    let &[at] = holding.as_slice() else {
        assert!(
            holding.is_empty(),
            "the snapshot is in {} messages",
            holding.len()
        );
        return None;
    };
    assert_eq!(msgs[at].0, "user", "the snapshot travels as a user message");
    assert!(
        at > 0 && msgs[at - 1].0 == "assistant" && msgs[at - 1].1.contains("All tests pass."),
        "the snapshot follows the summary: {msgs:?}"
    );
    Some(msgs[at].1.clone())
}

/// What the model must have been told after the scenario's compaction.
fn assert_whole(snapshot: &str, latest: &str) {
    if let Some(dir) = std::env::var_os("COMPACT_GUARDIAN_E2E_KEEP") {
        let _ = std::fs::write(PathBuf::from(dir).join("opencode-snapshot.md"), snapshot);
    }
    assert_has_all(
        snapshot,
        &[
            "[in progress] write renderer",
            "[pending] billing tests",
            "Completed: write parser",
            &format!("> {latest}"),
            "Bash: pytest -q tests/test_billing.py  [FAILED]",
            "## Files changed",
            // Grouped by folder, base names (D073).
            ": notes.txt\n",
            "Last reply from the agent",
            // The summary's false claims, corrected under the same rules as in the other clients.
            "## Corrections to the compaction summary",
            "the record still has 2 open tasks: \"write renderer\" (in progress), \"billing tests\" (pending)",
            "the last test run in the record, `pytest -q tests/test_billing.py`, exited",
            "(End of snapshot.)",
        ],
    );
    assert!(snapshot.encode_utf16().count() <= 10_000);
}

/// The requests to the main agent (not the summarizer, not the title generator).
fn agent_requests(all: &[Value]) -> Vec<&Value> {
    all.iter()
        .filter(|r| !is_summarizer(r) && !is_title(r))
        .collect()
}

/// Where OpenCode's summarizer request is among `requests` (the test fails without one).
fn summarizer_at(requests: &[Value]) -> usize {
    requests
        .iter()
        .position(is_summarizer)
        .expect("OpenCode ran its summarizer")
}

/// The requests to the main agent among `requests` (those after a compaction): the prompt each
/// answers and the snapshot it carries (the test fails on a request without one).
fn after_compaction(requests: &[Value]) -> (Vec<String>, Vec<String>) {
    agent_requests(requests)
        .into_iter()
        .map(|r| {
            let prompt = prompt_of(r);
            let snapshot = snapshot_in(r)
                .unwrap_or_else(|| panic!("no snapshot in the request for {prompt:?}"));
            (prompt, snapshot)
        })
        .unzip()
}

/// The user's prompt a request answers.
fn prompt_of(req: &Value) -> String {
    messages(req)
        .into_iter()
        .rev()
        .find(|(role, t)| role == "user" && !t.contains(MARKER))
        .map(|m| m.1)
        .unwrap_or_default()
}

opencode_test!(
    opencode_manual_compaction_keeps_the_snapshot_in_every_later_request,
    |oc| {
        let session = oc.worked(|server, session| {
            server.prompt(session, LATEST);
            server.compact(session);
            server.prompt(session, "what is next? FAIL: run them again");
            server.prompt(session, "and after that?");
        });
        // A new OpenCode process on the same session: the snapshot is still in the model's context.
        {
            let server = oc.serve();
            server.prompt(&session, "one more step");
        }
        let all = oc.api.requests();
        let summarizer = summarizer_at(&all);
        let summarizer_text = all[summarizer].to_string();
        assert!(summarizer_text.contains(STEER), "the summarizer is steered");
        assert!(
            !summarizer_text.contains(MARKER),
            "the summarizer's own request is no request after a compaction"
        );
        let before = agent_requests(&all[..summarizer]);
        assert!(before.iter().all(|r| snapshot_in(r).is_none()));
        // Every step of every later turn: the next one, the tool step of the turn after it, the
        // turn after that, and the first one of a new process.
        let (prompts, snapshots) = after_compaction(&all[summarizer + 1..]);
        assert!(prompts.len() >= 4, "{prompts:?}");
        for snapshot in &snapshots {
            assert_whole(snapshot, LATEST);
        }
        assert!(prompts.iter().any(|p| p == "one more step"), "{prompts:?}");
        // Issue #43: `status` speaks of OpenCode to an OpenCode user.
        let status = oc.status();
        assert_has_all(
            &status,
            &[
                "OpenCode plugin: ",
                "Plugin last ran: save (before a summary)",
                "snapshot restored",
                "(manual)",
            ],
        );
        assert!(oc.store().is_dir());
    }
);

opencode_test!(
    opencode_automatic_compaction_restores_then_a_new_process_keeps_it,
    |oc| {
        let session = oc.worked(|server, session| {
            // Reports a nearly full context: OpenCode compacts right after this turn and
            // continues on its own.
            server.prompt(session, &format!("BIG {LATEST}"));
            server.prompt(session, "go on");
        });
        // The next prompt in a new process (`opencode run`, as a script would send it).
        oc.run(&session, "and now?");
        let all = oc.api.requests();
        let summarizer = summarizer_at(&all);
        assert!(all[summarizer].to_string().contains(STEER));
        let (prompts, snapshots) = after_compaction(&all[summarizer + 1..]);
        let first = prompts.first().map_or("", String::as_str);
        assert!(
            first.starts_with("Continue if you have next steps"),
            "OpenCode continued on its own after the compaction: {prompts:?}"
        );
        // `opencode run` quotes a prompt that has spaces.
        assert!(
            prompts.iter().any(|p| p.contains("and now?")),
            "{prompts:?}"
        );
        assert!(prompts.iter().any(|p| p == "go on"), "{prompts:?}");
        for snapshot in &snapshots {
            assert_whole(snapshot, &format!("BIG {LATEST}"));
            assert_has_all(snapshot, &["before an automatic compaction"]);
        }
        let status = oc.status();
        assert_has_all(&status, &["(auto)"]);
    }
);

/// Runs the plugin in OpenCode's own runtime (`BUN_BE_BUN=1` makes the OpenCode binary Bun) with
/// a stand-in `client`: the compaction hook, the `session.compacted` event and two requests after
/// the compaction, as OpenCode calls them. Prints what reached the summarizer's prompt, the
/// length of each request's message list, and what the user and the log were told.
const HARNESS: &str = r#"
const { CompactGuardian } = await import(process.argv[2])
const logs = [], toasts = []
const unknown = process.argv[3] === "unknown"
const client = {
  app: { log: async ({ body }) => { logs.push(body.message) } },
  tui: { showToast: async ({ body }) => { toasts.push(body.message) } },
  session: {
    messages: async () => unknown
      ? { data: { rows: "a storage format nobody knows" } }
      : { data: [{ info: { id: "msg_1", sessionID: "ses_1", role: "user", time: { created: 1 } }, parts: [{ type: "text", text: "fix the parser" }] }], response: { headers: new Headers() } },
    todo: async () => ({ data: [] }),
  },
}
const compacted = () => [
  { info: { id: "msg_c", sessionID: "ses_1", role: "user", time: { created: 1 } }, parts: [{ type: "compaction", auto: false }] },
  { info: { id: "msg_s", sessionID: "ses_1", role: "assistant", summary: true, parentID: "msg_c", finish: "stop", time: { created: 2 } }, parts: [{ type: "text", text: "All done." }] },
  { info: { id: "msg_u", sessionID: "ses_1", role: "user", time: { created: 3 } }, parts: [{ type: "text", text: "next" }] },
]
const hooks = await CompactGuardian({ client, directory: "/tmp" })
const output = { context: [], prompt: undefined }
await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, output)
await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } })
const lengths = []
for (let i = 0; i < 2; i++) {
  const messages = compacted()
  await hooks["experimental.chat.messages.transform"]({}, { messages })
  lengths.push(messages.length)
}
console.log(JSON.stringify({ context: output.context, lengths, logs, toasts }))
"#;

/// What the harness saw, with `bin` as the binary (`None`: none anywhere).
fn plugin_in_bun(bin: Option<&str>, storage: &str) -> Value {
    let cli = opencode().expect("checked by the caller");
    let tmp = tempfile::tempdir().unwrap();
    let harness = tmp.path().join("harness.mjs");
    std::fs::write(&harness, HARNESS).unwrap();
    let mut c = Command::new(cli);
    c.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", tmp.path())
        .env("BUN_BE_BUN", "1")
        .arg(&harness)
        .arg(repo().join("opencode/compact-guardian.js"))
        .arg(storage);
    if let Some(bin) = bin {
        c.env("COMPACT_GUARDIAN_BIN", bin);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "the plugin threw: {o:?}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{o:?}"))
}

opencode_test!(
    opencode_plugin_fails_open_without_a_binary_a_known_format_or_a_sane_answer,
    || {
        if opencode().is_none() {
            return;
        }
        // It works: the directive reaches the summarizer, each request gets the snapshot once.
        let ok = plugin_in_bun(Some(env!("CARGO_BIN_EXE_compact-guardian")), "known");
        assert!(
            ok["context"][0]
                .as_str()
                .is_some_and(|c| c.starts_with(STEER)),
            "{ok}"
        );
        assert_eq!(ok["lengths"], json!([4, 4]), "{ok}");
        // Whatever fails, the session is left as OpenCode made it, and the user is told why, in one
        // line each time (a toast in the TUI; the binary missing: once per process).
        for (bin, storage, said) in [
            (None, "known", "no binary found"),
            (
                Some("/nonexistent/compact-guardian"),
                "known",
                "could not run /nonexistent/compact-guardian",
            ),
            (
                Some(env!("CARGO_BIN_EXE_compact-guardian")),
                "unknown",
                "this compaction was NOT protected: OpenCode did not list the session's messages",
            ),
            // Another program at the binary's path: what it prints never reaches the model.
            (Some("/bin/echo"), "known", ""),
        ] {
            let got = plugin_in_bun(bin, storage);
            assert_eq!(got["context"], json!([]), "{bin:?}: {got}");
            assert_eq!(got["lengths"], json!([3, 3]), "{bin:?}: {got}");
            let toasts: Vec<&str> = got["toasts"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            if said.is_empty() {
                assert!(toasts.is_empty(), "{got}");
            } else {
                assert!(toasts[0].contains(said), "{said}: {got}");
                assert!(
                    toasts.iter().all(|t| !t.contains('\n')),
                    "one line each: {got}"
                );
            }
        }
    }
);
