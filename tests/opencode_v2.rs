//! OpenCode 2 (issue #56), against its published contract: OpenCode 2 cannot be installed from
//! the registries this project reaches (npm's `opencode-ai` ends at 1.18.33), so
//! `tests/fixtures/opencode/v2-host.mjs` stands in for its plugin host. It loads
//! `opencode/compact-guardian.js` as V2's loader does (the schema check of the default export)
//! and drives the `compaction` and `context` hooks the plugin registers with events shaped as
//! V2's `session.ts` defines them; its header names the source files and commits it follows.
//! The host runs in Node, and in Bun (OpenCode 1.18.33's binary as Bun, the runtime OpenCode
//! runs plugins in) when that is installed. The same file's OpenCode 1 side is tested in the
//! real OpenCode 1.18.33 (`tests/e2e_opencode.rs`).

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "# [compact-guardian snapshot]";
const STEER: &str = "compact-guardian: in the summary";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn plugin() -> PathBuf {
    repo().join("opencode/compact-guardian.js")
}

/// The JavaScript runtime the host runs in.
enum Runtime {
    Node,
    /// OpenCode 1.18.33's binary, as Bun (`BUN_BE_BUN=1`).
    Bun(PathBuf),
}

/// The host's report of `scenario` (`session` or `load`) on `plugin`, with `bin` as the binary.
fn host(runtime: &Runtime, plugin: &Path, scenario: &str, bin: &str, store: &Path) -> Value {
    let mut c = match runtime {
        Runtime::Node => Command::new("node"),
        Runtime::Bun(cli) => {
            let mut c = Command::new(cli);
            c.env("BUN_BE_BUN", "1");
            c
        }
    };
    c.arg(repo().join("tests/fixtures/opencode/v2-host.mjs"))
        .arg(plugin)
        .arg(scenario)
        .env("COMPACT_GUARDIAN_BIN", bin)
        .env("COMPACT_GUARDIAN_DIR", store)
        .env("HOME", store.join("home"))
        .env_remove("COMPACT_GUARDIAN_DEBUG");
    let o = c.output().expect("the host runs");
    assert!(o.status.success(), "the host failed: {o:?}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("no report: {o:?}"))
}

fn texts(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The whole V2 session: the directive reaches the summarizer, the snapshot and the corrections
/// of the summary reach the model after it, once per request and restored once per compaction;
/// a second compaction's summarizer also gets the first stretch's context.
fn a_session_through_the_v2_host(runtime: &Runtime) {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let r = host(runtime, &plugin(), "session", bin(), &store);
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(r["loaded"]["kind"], "setup", "{r}");
    assert_eq!(r["loaded"]["id"], "compact-guardian", "{r}");
    assert_eq!(texts(&r["registered"]), ["compaction", "context"], "{r}");
    assert_eq!(
        r["failures"],
        serde_json::json!([]),
        "no hook may fail a request: {r}"
    );

    // Before the first compaction: the directive, and nothing else, in the summarizer's system.
    let c1 = &r["compactions"][0];
    let added = texts(&c1["added"]);
    assert_eq!(added.len(), 1, "{c1}");
    assert!(added[0].starts_with(STEER), "{c1}");
    assert!(added[0].contains("please fix the parser next"), "{c1}");
    assert_eq!(
        c1["system_shapes"][0], "text,type",
        "a plain system part: {c1}"
    );
    assert_eq!(c1["messages_unchanged"], true, "{c1}");
    assert_eq!(c1["result_set"], false, "OpenCode writes the summary: {c1}");

    // Its end binds the context at once (no request needed: a manual compaction may wait).
    assert_eq!(r["bound_at_the_end"], true, "{r}");

    // Every request after it: the snapshot with the summary's corrections at its top, once.
    let first = texts(&r["requests"][0]["added"]);
    assert_eq!(first.len(), 1, "{r}");
    let context = &first[0];
    assert!(context.starts_with(MARKER), "{context}");
    assert_has_all(
        context,
        &[
            "## Corrections to the compaction summary",
            "[in progress] write renderer",
            "> please fix the parser next",
            "Bash: pytest -q tests/test_billing.py  [FAILED]",
        ],
    );
    assert_eq!(
        texts(&r["requests"][1]["added"]),
        std::slice::from_ref(context),
        "the same context, once, in the next request"
    );
    for req in r["requests"].as_array().unwrap() {
        assert_eq!(req["messages_unchanged"], true, "{req}");
    }

    // The second compaction's summarizer rewrites the first summary: it gets that stretch's
    // context beside the new directive.
    let c2 = texts(&r["compactions"][1]["added"]);
    assert_eq!(c2.len(), 2, "{r}");
    assert_eq!(&c2[0], context, "the first stretch's context");
    assert!(c2[1].starts_with(STEER), "{}", c2[1]);
    assert!(c2[1].contains("now the importer"), "{}", c2[1]);

    // After it, its own context.
    let third = texts(&r["requests"][2]["added"]);
    assert_eq!(third.len(), 1, "{r}");
    assert!(third[0].starts_with(MARKER), "{}", third[0]);
    assert!(third[0].contains("now the importer"), "{}", third[0]);
    // The todo list was written before the first compaction, behind the context OpenCode 2
    // lists now: the plugin carries it forward.
    assert!(
        third[0].contains("[in progress] write renderer"),
        "{}",
        third[0]
    );
    assert!(
        third[0].contains("Bash: pytest -q tests/test_parser.py  [FAILED]"),
        "{}",
        third[0]
    );
    assert!(
        third[0].contains("## Corrections to the compaction summary"),
        "{}",
        third[0]
    );
    assert_ne!(&third[0], context);

    // Each compaction restored once: the user's line once each, one history entry each.
    let lines: Vec<String> = texts(&r["logs"])
        .into_iter()
        .filter(|l| l.starts_with("compact-guardian restored"))
        .collect();
    assert_eq!(lines.len(), 2, "{r}");
    let history = std::fs::read_to_string(store.join("compact-guardian-history.json")).unwrap();
    let entries: Value = serde_json::from_str(&history).unwrap();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 2, "{history}");
    for e in entries {
        assert_eq!(e["restored"], "snapshot", "{e}");
        assert_eq!(e["audited"], true, "{e}");
        assert!(e["corrections"].as_u64().unwrap() >= 1, "{e}");
    }
}

#[test]
#[cfg_attr(cg_no_node, ignore = "needs node on PATH")]
fn opencode_2_host_loads_the_plugin_and_a_session_gets_the_directive_then_the_snapshot_once() {
    a_session_through_the_v2_host(&Runtime::Node);
}

#[test]
#[cfg_attr(
    cg_no_opencode,
    ignore = "needs OpenCode (its Bun): .ci/run installs it (npm install --prefix .e2e/opencode opencode-ai@1.18.33)"
)]
fn opencode_2_host_in_bun_gets_the_same() {
    let Some(cli) = crate::e2e::opencode::opencode() else {
        return;
    };
    a_session_through_the_v2_host(&Runtime::Bun(cli));
}

#[test]
#[cfg_attr(cg_no_node, ignore = "needs node on PATH")]
fn opencode_2_fails_open_without_a_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let r = host(
        &Runtime::Node,
        &plugin(),
        "session",
        "/nonexistent/compact-guardian",
        &store,
    );
    assert_eq!(r["failures"], serde_json::json!([]), "{r}");
    for step in r["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .chain(r["requests"].as_array().unwrap())
    {
        assert_eq!(step["added"], serde_json::json!([]), "{r}");
        assert_eq!(step["messages_unchanged"], true, "{r}");
    }
    let logs = texts(&r["logs"]);
    assert!(
        logs.iter()
            .any(|l| l.contains("could not run /nonexistent/compact-guardian")),
        "{r}"
    );
    assert!(logs.iter().all(|l| !l.contains('\n')), "one line each: {r}");
}

#[test]
#[cfg_attr(cg_no_node, ignore = "needs node on PATH")]
fn the_host_refuses_a_v1_only_plugin_as_opencode_2_does() {
    // The plugin as it was before issue #56: a V1 plugin function, no default definition. The
    // host's check is V2's, so it must refuse it with V2's words.
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.js");
    std::fs::write(
        &old,
        "export const CompactGuardian = async () => ({ event: async () => {} })\n",
    )
    .unwrap();
    let r = host(&Runtime::Node, &old, "load", bin(), &tmp.path().join("s"));
    assert_eq!(
        r["error"],
        "PluginModule.LoadError: Plugin must export a default definition with an id and an effect or setup function.",
        "{r}"
    );
    let r = host(
        &Runtime::Node,
        &plugin(),
        "load",
        bin(),
        &tmp.path().join("s"),
    );
    assert_eq!(r["loaded"]["kind"], "setup", "{r}");
}
