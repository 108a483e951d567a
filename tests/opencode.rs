//! OpenCode's side of the contract, through the built binary (issue #43): what the plugin sends
//! (`save` with an excerpt of the session, `restore` naming the compaction and giving its
//! summary) and what it reads back; the context bound to its compaction on disk (D052), given
//! again to every ask and kept past the snapshot's TTL; `install-opencode` and `status`.

use crate::common::*;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

/// An excerpt line as the plugin writes it (its kind first).
fn line(v: Value) -> String {
    let mut o = v.as_object().cloned().unwrap();
    let kind = o.remove("opencode").unwrap();
    let rest = Value::Object(o).to_string();
    format!("{{\"opencode\":{kind},{}", rest.trim_start_matches('{'))
}

/// The scenario: a todo list, a failing test, a latest instruction, then a compaction.
fn scenario() -> Vec<String> {
    vec![
        line(
            json!({"opencode":"session","version":1,"session":"ses_Contract1","directory":"/w/p","complete":true}),
        ),
        line(
            json!({"opencode":"user","message":"msg_1","text":"TODO: plan the billing work","synthetic":false}),
        ),
        line(
            json!({"opencode":"tool","message":"msg_2","call":"c1","tool":"todowrite","status":"completed","input":{"todos":[{"content":"write renderer","status":"in_progress"},{"content":"billing tests","status":"pending"}]},"output":"[]"}),
        ),
        line(
            json!({"opencode":"user","message":"msg_3","text":"FAIL: run the billing tests","synthetic":false}),
        ),
        line(
            json!({"opencode":"tool","message":"msg_4","call":"c2","tool":"bash","status":"completed","input":{"command":"pytest -q tests/test_billing.py"},"output":"1 failed","exit":1}),
        ),
        line(json!({"opencode":"assistant","message":"msg_5","text":"The billing test fails."})),
        line(
            json!({"opencode":"user","message":"msg_6","text":"please fix the parser next","synthetic":false}),
        ),
        line(json!({"opencode":"compaction","message":"msg_7","auto":false})),
        line(
            json!({"opencode":"todos","todos":[{"content":"write renderer","status":"in_progress","priority":"high"},{"content":"billing tests","status":"pending","priority":"medium"}]}),
        ),
    ]
}

const SESSION: &str = "ses_Contract1";
const SUMMARY: &str = "## Work State\n### Completed\n- All tasks are completed.\n- All tests pass.";

fn save_input(excerpt: &Path) -> String {
    json!({"session_id":SESSION,"transcript_path":excerpt,"cwd":"/w/p","hook_event_name":"PreCompact","trigger":"manual"}).to_string()
}

fn ask(compaction: &str, excerpt: Option<&Path>) -> String {
    let mut v = json!({"session_id":SESSION,"client":"opencode","hook_event_name":"SessionStart","source":"compact","compaction_id":compaction,"compact_summary":SUMMARY});
    if let Some(p) = excerpt {
        v["transcript_path"] = json!(p);
    }
    v.to_string()
}

/// The plugin's ask, and its answer as JSON.
fn restore(sb: &Sandbox, input: &str) -> (Run, Value) {
    let run = sb.cmd(&["restore"]).stdin(input).run();
    run.assert_fail_open();
    let answer = serde_json::from_str(run.stdout.trim()).unwrap_or(Value::Null);
    (run, answer)
}

fn context(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
}

/// The bound context's file in the snapshot folder.
fn bound_file(sb: &Sandbox) -> PathBuf {
    let name = compact_guardian::store::file_name(SESSION);
    let id = name
        .trim_start_matches("compact-snapshot-")
        .trim_end_matches(".md");
    sb.store
        .join(format!(".compact-snapshot-context-{id}.json"))
}

/// The environment naming `home` as the home folder (`USERPROFILE` is Windows' one).
fn home_env(home: &Path) -> Vec<(String, String)> {
    let home = home.display().to_string();
    vec![("HOME".into(), home.clone()), ("USERPROFILE".into(), home)]
}

#[test]
fn opencode_save_steers_and_restore_binds_the_context_to_its_compaction() {
    let sb = Sandbox::new();
    let excerpt = sb.transcript("excerpt.jsonl", &scenario());
    let save = sb.save(&save_input(&excerpt));
    save.assert_fail_open();
    // OpenCode appends what save prints to its summarizer's prompt.
    assert!(
        save.stdout.starts_with("compact-guardian: in the summary"),
        "{}",
        save.stdout
    );
    assert_has_all(&save.stdout, &["please fix the parser next"]);

    let (first, answer) = restore(&sb, &ask("msg_7", None));
    let ctx = context(&answer);
    assert!(
        ctx.starts_with("# [compact-guardian snapshot]"),
        "{}",
        first.stdout
    );
    assert_has_all(
        ctx,
        &[
            "## Corrections to the compaction summary",
            "[in progress] write renderer",
            "> please fix the parser next",
            "Bash: pytest -q tests/test_billing.py  [FAILED]",
            "> The billing test fails.",
            "before a manual compaction",
        ],
    );
    let line = answer["systemMessage"].as_str().unwrap();
    assert!(
        line.starts_with("compact-guardian restored 2 open tasks"),
        "{line}"
    );
    assert!(
        !sb.snapshot_path(SESSION).exists(),
        "the snapshot was taken"
    );

    // Every later request of the stretch, in this process or a new one: the same text, and
    // nothing for the user (told once).
    for _ in 0..2 {
        let (_, again) = restore(&sb, &ask("msg_7", None));
        assert_eq!(context(&again), ctx);
        assert!(again.get("systemMessage").is_none(), "{again}");
    }
    let history = fs::read_to_string(sb.store.join("compact-guardian-history.json")).unwrap();
    let entries: Value = serde_json::from_str(&history).unwrap();
    let e = &entries[0];
    assert_eq!(e["restored"], "snapshot");
    assert_eq!(e["audited"], true);
    assert!(e["corrections"].as_u64().unwrap() >= 2, "{e}");
}

#[test]
fn a_compaction_without_a_snapshot_asks_for_the_session_then_rebuilds() {
    let sb = Sandbox::new();
    let excerpt = sb.transcript("excerpt.jsonl", &scenario());
    // No save ran (the plugin was installed mid-session): nothing is taken before the session
    // is there to rebuild from.
    let (_, answer) = restore(&sb, &ask("msg_7", None));
    assert_eq!(answer, json!({"needTranscript": true}));
    let mut with_summary = scenario();
    with_summary.push(line(
        json!({"opencode":"summary","message":"msg_8","text":SUMMARY}),
    ));
    let excerpt2 = sb.transcript("excerpt2.jsonl", &with_summary);
    let (_, answer) = restore(&sb, &ask("msg_7", Some(&excerpt2)));
    let ctx = context(&answer);
    assert_has_all(
        ctx,
        &[
            "Rebuilt by the compact-guardian plugin",
            "> please fix the parser next",
        ],
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("rebuilt"),
        "{answer}"
    );
    // Bound like a saved one.
    let (_, again) = restore(&sb, &ask("msg_7", None));
    assert_eq!(context(&again), ctx);
    drop(excerpt);
}

#[test]
fn a_new_compaction_gets_its_own_context() {
    let sb = Sandbox::new();
    let excerpt = sb.transcript("excerpt.jsonl", &scenario());
    sb.save(&save_input(&excerpt)).assert_fail_open();
    let (_, first) = restore(&sb, &ask("msg_7", None));
    // The next compaction: a new save, a new compaction id.
    let mut later = scenario();
    later.insert(
        7,
        line(json!({"opencode":"user","message":"msg_9","text":"now the importer","synthetic":false})),
    );
    let excerpt = sb.transcript("later.jsonl", &later);
    sb.save(&save_input(&excerpt)).assert_fail_open();
    let (_, second) = restore(&sb, &ask("msg_10", None));
    assert!(context(&second).contains("> now the importer"), "{second}");
    assert_ne!(context(&first), context(&second));
}

#[test]
fn the_bound_context_outlives_the_snapshot_ttl_but_not_a_month() {
    let sb = Sandbox::new();
    let excerpt = sb.transcript("excerpt.jsonl", &scenario());
    sb.save(&save_input(&excerpt)).assert_fail_open();
    restore(&sb, &ask("msg_7", None));
    let bound = bound_file(&sb);
    assert!(bound.is_file());
    // A day old: any hook's sweep of stale files (another session's save) leaves it.
    let sweep = |sb: &Sandbox| {
        let other = sb.transcript("other.jsonl", &small_session());
        sb.save(&hook("other-session", &other)).assert_fail_open();
    };
    set_old(&bound, 24 * 3600);
    sweep(&sb);
    assert!(bound.is_file(), "a day-old context was swept");
    let (_, again) = restore(&sb, &ask("msg_7", None));
    assert!(context(&again).starts_with("# [compact-guardian snapshot]"));
    set_old(&bound, 31 * 24 * 3600);
    sweep(&sb);
    assert!(!bound.exists(), "a month-old context is removed");
}

#[test]
fn a_damaged_or_planted_context_is_never_given() {
    let sb = Sandbox::new();
    fs::create_dir_all(&sb.store).unwrap();
    for planted in [
        "not json".to_owned(),
        json!({"compaction":"msg_7","snapshot":"rm -rf / please","corrections":null}).to_string(),
        json!({"compaction":"msg_7","snapshot":"# [compact-guardian snapshot] x\n\n(End of snapshot.)\n","corrections":"## Not corrections\n\n"}).to_string(),
    ] {
        fs::write(bound_file(&sb), &planted).unwrap();
        let (_, answer) = restore(&sb, &ask("msg_7", None));
        assert_eq!(answer, json!({"needTranscript": true}), "{planted}");
    }
}

#[test]
fn an_ask_without_a_compaction_id_fails_open() {
    let sb = Sandbox::new();
    let input = json!({"session_id":SESSION,"client":"opencode","source":"compact"}).to_string();
    let run = sb.cmd(&["restore"]).stdin(input).run();
    run.assert_fail_open();
    assert_eq!(run.stdout, "");
    assert_has_all(&run.stderr, &["compaction_id"]);
}

#[test]
fn run_by_opencode_the_folder_is_under_opencode_data() {
    let sb = Sandbox::new();
    let excerpt = sb.transcript("excerpt.jsonl", &scenario());
    let home = sb.path("home");
    let mut c = Cmd::new(&["save"]).stdin(save_input(&excerpt));
    c.env = home_env(&home);
    c.env.push(("OPENCODE".into(), "1".into()));
    c.run().assert_fail_open();
    let folder = home.join(".local/share/opencode/compact-guardian");
    assert!(
        folder
            .join(compact_guardian::store::file_name(SESSION))
            .is_file()
    );
    assert!(
        !home.join(".claude").exists(),
        "an OpenCode user gets no ~/.claude"
    );
}

#[test]
fn install_opencode_writes_the_plugin_naming_this_binary_and_status_finds_it() {
    let sb = Sandbox::new();
    let home = sb.path("home");
    let status = |home: &Path| {
        let mut c = Cmd::new(&["status"]);
        c.env = home_env(home);
        c.env.push(("OPENCODE".into(), "1".into()));
        c.run().stdout
    };
    assert!(
        status(&home).contains("OpenCode plugin: NOT found in "),
        "{}",
        status(&home)
    );
    let mut c = Cmd::new(&["install-opencode"]);
    c.env = home_env(&home);
    let run = c.run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let plugin = [".config", "opencode", "plugins", "compact-guardian.js"]
        .iter()
        .fold(home.clone(), |p, c| p.join(c));
    let text = fs::read_to_string(&plugin).unwrap();
    // (Under Wine the binary sees its own path as a Windows one.)
    #[cfg(unix)]
    assert!(
        text.contains(&format!("const INSTALLED_BINARY = {}\n", json!(bin()))),
        "the plugin names the binary that installed it"
    );
    assert!(!text.contains("const INSTALLED_BINARY = null\n"));
    assert_has_all(&run.stdout, &[&plugin.display().to_string()]);
    let s = status(&home);
    assert_has_all(
        &s,
        &[
            &format!("OpenCode plugin: {}\n", plugin.display()),
            "Plugin last ran: save (before a summary) never",
        ],
    );
    // --dir: a project's plugins folder.
    let project = sb.path("project/.opencode/plugins");
    let run = Cmd::new(&["install-opencode", "--dir", project.to_str().unwrap()]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(project.join("compact-guardian.js").is_file());
}

/// A folder holding a stand-in `opencode` that answers `--version` with `version`, as each line's
/// does ("1.18.33"; OpenCode 2 prints "opencode v2.0.24"). `None`: an empty folder, no OpenCode.
#[cfg(unix)]
fn opencode_on_path(root: &Path, version: Option<&str>) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = root.join("path");
    fs::create_dir_all(&dir).unwrap();
    if let Some(v) = version {
        let exe = dir.join("opencode");
        fs::write(&exe, format!("#!/bin/sh\necho '{v}'\n")).unwrap();
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// `compact-guardian <args>` with `home` as the home folder, `path` as PATH and `more` set.
#[cfg(unix)]
fn in_home(home: &Path, path: &Path, args: &[&str], more: &[(&str, &Path)]) -> Run {
    let mut c = Cmd::new(args);
    c.env = home_env(home);
    c.env.push(("PATH".into(), path.display().to_string()));
    for (k, v) in more {
        c.env.push((k.to_string(), v.display().to_string()));
    }
    c.run()
}

#[cfg(unix)]
fn global_plugin(home: &Path, sub: &str) -> PathBuf {
    home.join(".config/opencode")
        .join(sub)
        .join("compact-guardian.js")
}

#[cfg(unix)]
#[test]
fn install_opencode_names_the_line_found_and_status_says_which_export_it_runs() {
    for (answer, version, export) in [
        ("1.18.33", "1.18.33", "server"),
        ("opencode v2.3.1", "2.3.1", "setup"),
    ] {
        let sb = Sandbox::new();
        let home = sb.path("home");
        let path = opencode_on_path(sb.path("bin").as_path(), Some(answer));
        let run = in_home(&home, &path, &["install-opencode"], &[]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let plugin = global_plugin(&home, "plugins");
        assert!(plugin.is_file());
        assert_has_all(
            &run.stdout,
            &[&format!(
                "OpenCode {version} found (`opencode --version`): it runs the plugin's `{export}`."
            )],
        );
        let status = in_home(&home, &path, &["status"], &[("OPENCODE", Path::new("1"))]);
        assert_has_all(
            &status.stdout,
            &[
                &format!("OpenCode plugin: {}\n", plugin.display()),
                &format!(
                    "OpenCode found: OpenCode {version} (`opencode --version`), which runs the plugin's `{export}`"
                ),
            ],
        );
        let json = in_home(
            &home,
            &path,
            &["status", "--json"],
            &[("OPENCODE", Path::new("1"))],
        );
        let v: Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(v["opencode"]["line"]["version"], version, "{v}");
        assert_eq!(v["opencode"]["plugin"], json!(plugin.display().to_string()));
    }
}

#[cfg(unix)]
#[test]
fn without_opencode_on_path_the_config_shows_the_line() {
    let sb = Sandbox::new();
    let home = sb.path("home");
    let path = opencode_on_path(sb.path("bin").as_path(), None);
    let config = home.join(".config/opencode");
    fs::create_dir_all(&config).unwrap();
    // OpenCode 2's key for plugins with options; JSONC, with a comment.
    fs::write(
        config.join("opencode.jsonc"),
        "{\n  // mine\n  \"plugins\": [\"opencode-other\"]\n}\n",
    )
    .unwrap();
    let run = in_home(&home, &path, &["install-opencode"], &[]);
    assert_has_all(
        &run.stdout,
        &[&format!(
            "OpenCode 2 found (the \"plugins\" key in {}): it runs the plugin's `setup`.",
            config.join("opencode.jsonc").display()
        )],
    );
    fs::remove_file(config.join("opencode.jsonc")).unwrap();
    let run = in_home(&home, &path, &["install-opencode"], &[]);
    assert_has_all(
        &run.stdout,
        &[
            "No OpenCode found (no `opencode` on PATH, no OpenCode config): OpenCode 1 and 2 both load plugins from that folder.",
        ],
    );
}

/// A sandbox, its home and an `$OPENCODE_CONFIG_DIR` of its own (not made yet).
#[cfg(unix)]
fn config_dir_sandbox() -> (Sandbox, PathBuf, PathBuf) {
    let sb = Sandbox::new();
    let (home, own) = (sb.path("home"), sb.path("oc-config"));
    (sb, home, own)
}

/// `status` inside OpenCode (`OPENCODE=1`) with `own` as `$OPENCODE_CONFIG_DIR`.
#[cfg(unix)]
fn status_in(home: &Path, path: &Path, own: &Path) -> Run {
    let env = [("OPENCODE", Path::new("1")), ("OPENCODE_CONFIG_DIR", own)];
    in_home(home, path, &["status"], &env)
}

#[cfg(unix)]
#[test]
fn with_opencode_config_dir_the_plugin_goes_there_and_one_copy_is_kept() {
    // OpenCode 2 reads only $OPENCODE_CONFIG_DIR when it is set; OpenCode 1 reads it beside
    // ~/.config/opencode, and would run a copy in each.
    let (sb, home, own) = config_dir_sandbox();
    let path = opencode_on_path(sb.path("bin").as_path(), Some("opencode v2.0.24"));
    let older = global_plugin(&home, "plugins");
    let run = in_home(&home, &path, &["install-opencode"], &[]);
    assert!(older.is_file(), "{}", run.stderr);
    let status = status_in(&home, &path, &own);
    assert_has_all(
        &status.stdout,
        &[
            &format!(
                "OpenCode plugin: NOT found in {}",
                own.join("plugins").display()
            ),
            &format!(
                "OpenCode plugin: also {} (a folder this OpenCode does not read;",
                older.display()
            ),
        ],
    );
    let run = in_home(
        &home,
        &path,
        &["install-opencode"],
        &[("OPENCODE_CONFIG_DIR", &own)],
    );
    let placed = own.join("plugins/compact-guardian.js");
    assert!(placed.is_file(), "{}", run.stdout);
    assert!(!older.exists(), "the older copy is removed: {}", run.stdout);
    assert_has_all(
        &run.stdout,
        &[&format!("Removed an older copy: {}", older.display())],
    );
    let status = status_in(&home, &path, &own);
    assert_has_all(
        &status.stdout,
        &[&format!("OpenCode plugin: {}\n", placed.display())],
    );
}

#[cfg(unix)]
#[test]
fn install_opencode_remove_leaves_neither_lines_copy_behind() {
    let (sb, home, own) = config_dir_sandbox();
    let path = opencode_on_path(sb.path("bin").as_path(), Some("1.18.33"));
    let with_dir = [("OPENCODE_CONFIG_DIR", own.as_path())];
    // A copy in each folder either line loads from, and someone else's file of that name.
    in_home(&home, &path, &["install-opencode"], &with_dir);
    let plugin = own.join("plugins/compact-guardian.js");
    for copy in [
        global_plugin(&home, "plugins"),
        global_plugin(&home, "plugin"),
        own.join("plugin/compact-guardian.js"),
    ] {
        fs::create_dir_all(copy.parent().unwrap()).unwrap();
        fs::copy(&plugin, &copy).unwrap();
    }
    let foreign = sb.path("project/.opencode/plugins/compact-guardian.js");
    fs::create_dir_all(foreign.parent().unwrap()).unwrap();
    fs::write(&foreign, "export default {}\n").unwrap();
    let config = home.join(".config/opencode/opencode.json");
    fs::write(
        &config,
        r#"{"plugin": [["file:///x/compact-guardian.js", {"binary": "/x/cg"}]]}"#,
    )
    .unwrap();
    let project = foreign.parent().unwrap().to_str().unwrap();
    let run = in_home(
        &home,
        &path,
        &["install-opencode", "--remove", "--dir", project],
        &with_dir,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout.matches("Removed the OpenCode plugin: ").count(),
        4,
        "{}",
        run.stdout
    );
    assert!(foreign.is_file(), "a file that is not ours stays");
    assert_has_all(
        &run.stdout,
        &[&format!("Still named in {}: \"plugin\"", config.display())],
    );
    fs::remove_file(&config).unwrap();
    let status = in_home(
        &home,
        &path,
        &["status", "--json"],
        &[("OPENCODE", Path::new("1")), ("OPENCODE_CONFIG_DIR", &own)],
    );
    let v: Value = serde_json::from_str(&status.stdout).unwrap();
    let opencode = v["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == "OpenCode")
        .unwrap();
    assert_eq!(opencode["installed"], json!([]), "{v}");
    assert_eq!(opencode["config_entries"], json!([]), "{v}");
    assert_eq!(v["opencode"]["plugin"], Value::Null, "{v}");
}
