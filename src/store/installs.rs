//! Where the plugin is installed and what it keeps on disk, client by client, for `status`
//! (issue #39): whether Claude Code and Codex list it as installed (and whether OpenCode's
//! plugins folder holds its plugin, issue #43), the copies of it in each
//! client's plugin cache, its data folders (the binary, the provisioning log, a source build's
//! caches), the snapshot folder, Codex's `config.toml` entries and how many of its hooks Codex
//! trusts. Reads only; every file may be missing, damaged or planted, and then counts as absent.

use crate::input::config::FOLDER;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The plugin's name in both clients' registries, caches and data folders.
const PLUGIN: &str = "compact-guardian";
/// The most files counted for one folder's size: status stays quick on a built `target/`.
const MAX_FILES: usize = 200_000;
/// The most read of a client's registry or config file.
const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// What one client (Claude Code, Codex, OpenCode) has of the plugin: the status report's row
/// (named apart from `input::client::Client`, the client that runs a hook).
#[derive(Debug, Default)]
pub struct Install {
    /// "Claude Code", "Codex" or "OpenCode".
    pub name: &'static str,
    /// Its config root (`~/.claude`, `$CLAUDE_CONFIG_DIR`; `~/.codex`, `$CODEX_HOME`).
    pub root: PathBuf,
    /// The plugin's ids the client lists as installed (`compact-guardian@<marketplace>`).
    pub installed: Vec<String>,
    /// Everything of the plugin's on disk under that root, with its size in bytes.
    pub files: Vec<(String, PathBuf, u64)>,
    /// Entries naming the plugin in the client's own config files, by table or key (Codex's
    /// `config.toml`: `plugins."compact-guardian@m"`, `marketplaces.compact-guardian`,
    /// `hooks.state."compact-guardian@m:..."`).
    pub config_entries: Vec<String>,
    /// Codex only: hooks of the installed plugin, and how many of them have a trust record.
    pub hooks: Option<(usize, usize)>,
    /// Claude Code only: the plugin folder it loads the plugin from with `--plugin-dir` (a
    /// checkout, README route 3), not installed from a marketplace ([`loaded_from_a_folder`]).
    pub loaded_from: Option<PathBuf>,
}

impl Install {
    /// Whether anything of the plugin is left under this client's root.
    pub fn anything(&self) -> bool {
        !self.installed.is_empty() || !self.files.is_empty() || !self.config_entries.is_empty()
    }

    /// Whether the client runs the plugin: installed, or loaded from a folder.
    pub fn in_use(&self) -> bool {
        !self.installed.is_empty() || self.loaded_from.is_some()
    }
}

/// Claude Code's view, under its config root.
pub fn claude(root: &Path) -> Install {
    let plugins = root.join("plugins");
    let installed = read_json(&plugins.join("installed_plugins.json"))
        .and_then(|v| v.get("plugins").and_then(Value::as_object).cloned())
        .map(|m| m.keys().filter(|k| ours(k)).cloned().collect())
        .unwrap_or_default();
    let mut files = Vec::new();
    cached_copies(&plugins, &mut files);
    data_folders(&plugins, &mut files);
    let clone = plugins.join("marketplaces").join(PLUGIN);
    if clone.is_dir() {
        files.push(("marketplace clone".into(), clone.clone(), size(&clone)));
    }
    snapshot_folder(root, &mut files);
    let mut config_entries = Vec::new();
    if read_json(&plugins.join("known_marketplaces.json")).is_some_and(|v| v.get(PLUGIN).is_some())
    {
        config_entries.push(format!("known_marketplaces.json: {PLUGIN}"));
    }
    let settings = read_json(&root.join("settings.json"));
    let table = |name: &str| {
        settings
            .as_ref()
            .and_then(|v| v.get(name).and_then(Value::as_object).cloned())
            .unwrap_or_default()
    };
    for key in table("enabledPlugins").keys().filter(|k| ours(k)) {
        config_entries.push(format!("settings.json: enabledPlugins.{key}"));
    }
    if table("extraKnownMarketplaces").contains_key(PLUGIN) {
        config_entries.push(format!("settings.json: extraKnownMarketplaces.{PLUGIN}"));
    }
    Install {
        name: "Claude Code",
        root: root.to_path_buf(),
        installed,
        files,
        config_entries,
        hooks: None,
        loaded_from: loaded_from_a_folder(&plugins),
    }
}

/// The plugin folder Claude Code loads the plugin from with `--plugin-dir`, if it still does:
/// such a plugin is `compact-guardian@inline`, its data folder `<plugins>/data/compact-guardian-
/// inline`, where the launcher remembers the root it ran from (`launcher-found`, its first
/// line); that root must still hold this plugin's manifest. A folder deleted since leaves the
/// data folder behind, and is reported so.
fn loaded_from_a_folder(plugins: &Path) -> Option<PathBuf> {
    let data = plugins.join("data").join(format!("{PLUGIN}-inline"));
    let memory = read_text(&data.join("launcher-found"))?;
    let root = PathBuf::from(memory.lines().next()?);
    let manifest = read_json(&root.join(".claude-plugin/plugin.json"))?;
    (manifest.get("name")?.as_str()? == PLUGIN).then_some(root)
}

/// Codex's view, under its home.
pub fn codex(home: &Path) -> Install {
    let plugins = home.join("plugins");
    let config = read_text(&home.join("config.toml")).unwrap_or_default();
    let tables = toml_tables(&config);
    let mut installed = Vec::new();
    let mut config_entries = Vec::new();
    let mut trusted = 0;
    for (table, keys) in &tables {
        let ours_table = match table.as_slice() {
            [p, id] if p == "plugins" && ours(id) => {
                if keys.iter().any(|(k, v)| k == "enabled" && v == "true") {
                    installed.push(id.clone());
                }
                true
            }
            [m, name] if m == "marketplaces" && name == PLUGIN => true,
            [h, s, key] if h == "hooks" && s == "state" && ours(key) => {
                if keys.iter().any(|(k, _)| k == "trusted_hash") {
                    trusted += 1;
                }
                true
            }
            _ => false,
        };
        if ours_table {
            config_entries.push(format!("config.toml: [{}]", shown_table(table)));
        }
    }
    let mut files = Vec::new();
    cached_copies(&plugins, &mut files);
    data_folders(&plugins, &mut files);
    snapshot_folder(home, &mut files);
    // The hooks Codex lists for the installed copy: one per handler in its hooks.json, for the
    // events Codex has (it ignores the others).
    let hooks = installed.first().and_then(|id| {
        let (_, marketplace) = id.split_once('@')?;
        let copies = plugins.join("cache").join(marketplace).join(PLUGIN);
        let newest = std::fs::read_dir(copies)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("hooks/hooks.json").is_file())
            .max_by_key(|p| {
                std::fs::metadata(p)
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH)
            })?;
        let n = codex_hooks(&read_json(&newest.join("hooks/hooks.json"))?);
        Some((n, trusted))
    });
    Install {
        name: "Codex",
        root: home.to_path_buf(),
        installed,
        files,
        config_entries,
        hooks,
        loaded_from: None,
    }
}

/// The events Codex 0.169 runs hooks for (its own names for Claude Code's).
const CODEX_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
];

/// OpenCode's view: the plugin files in the `plugins/` and `plugin/` folders of its global config
/// folders (`configs`, the first where `install-opencode` writes: D054, D096), the config files
/// there that name the plugin (`opencode.json(c)`: OpenCode 1's `plugin` key, OpenCode 2's
/// `plugins`) and the snapshot folder under its data folder (`data_folder`, D053). OpenCode has
/// no registry of installed plugins: a file being in a folder it loads is what installs it.
pub fn opencode(configs: &[PathBuf], data_folder: &Path) -> Install {
    let mut installed = Vec::new();
    let mut files = Vec::new();
    for file in opencode_plugin_files(configs) {
        // Followed: a plugin file linked from elsewhere (stow, home-manager) is what OpenCode loads.
        if let Ok(meta) = std::fs::metadata(&file) {
            installed.push(file.display().to_string());
            files.push(("plugin".into(), file, meta.len()));
        }
    }
    if data_folder.is_dir() {
        files.push((
            "snapshot folder".into(),
            data_folder.to_path_buf(),
            size(data_folder),
        ));
    }
    let root = configs.first().cloned().unwrap_or_default();
    Install {
        name: "OpenCode",
        root,
        installed,
        files,
        config_entries: opencode_config_entries(configs),
        hooks: None,
        loaded_from: None,
    }
}

/// Every `compact-guardian.js` regular file (links followed) in `configs`' plugin folders.
pub fn opencode_plugin_files(configs: &[PathBuf]) -> Vec<PathBuf> {
    configs
        .iter()
        .flat_map(|c| ["plugins", "plugin"].map(|sub| c.join(sub).join(format!("{PLUGIN}.js"))))
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file()))
        .collect()
}

/// The global config files that name the plugin, with the key they name it under (`plugin`:
/// OpenCode 1's, `plugins`: OpenCode 2's). Read as text: the files are JSONC, and a name is
/// enough to tell the user where to look.
pub fn opencode_config_entries(configs: &[PathBuf]) -> Vec<String> {
    let mut entries = Vec::new();
    for file in configs
        .iter()
        .flat_map(|c| ["opencode.json", "opencode.jsonc"].map(|n| c.join(n)))
    {
        let Some(text) = read_text(&file).filter(|t| t.contains(&format!("{PLUGIN}.js"))) else {
            continue;
        };
        for key in ["plugins", "plugin"] {
            if json_key(&text, key) {
                entries.push(format!("{}: \"{key}\"", file.display()));
            }
        }
    }
    entries
}

/// Whether `text` has `"key"` followed by a colon (a key of that name, at any depth).
pub fn json_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(i, m)| text[i + m.len()..].trim_start().starts_with(':'))
}

/// How many hook handlers of a hooks.json Codex lists.
fn codex_hooks(hooks: &Value) -> usize {
    hooks
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(event, _)| CODEX_EVENTS.contains(&event.as_str()))
        .flat_map(|(_, groups)| groups.as_array().into_iter().flatten())
        .map(|g| g.get("hooks").and_then(Value::as_array).map_or(0, Vec::len))
        .sum()
}

/// Whether a registry id names this plugin (`compact-guardian@<marketplace>`, and a hook key
/// `compact-guardian@<marketplace>:<file>:<event>:...`).
fn ours(id: &str) -> bool {
    id.strip_prefix(PLUGIN).is_some_and(|r| r.starts_with('@'))
}

/// The plugin's copies in `<plugins>/cache/<marketplace>/compact-guardian/<version>`.
fn cached_copies(plugins: &Path, files: &mut Vec<(String, PathBuf, u64)>) {
    for market in dirs(&plugins.join("cache")) {
        for version in dirs(&market.join(PLUGIN)) {
            let what = if version.join(".orphaned_at").exists() {
                "plugin copy (orphaned)"
            } else {
                "plugin copy"
            };
            files.push((what.into(), version.clone(), size(&version)));
        }
    }
}

/// The plugin's data folders, `<plugins>/data/compact-guardian-<marketplace>`.
fn data_folders(plugins: &Path, files: &mut Vec<(String, PathBuf, u64)>) {
    for d in dirs(&plugins.join("data")) {
        if d.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("{PLUGIN}-")))
        {
            files.push(("data folder".into(), d.clone(), size(&d)));
        }
    }
}

/// The snapshot folder under a client's root, when it exists.
fn snapshot_folder(root: &Path, files: &mut Vec<(String, PathBuf, u64)>) {
    let folder = root.join(FOLDER);
    if folder.is_dir() {
        files.push(("snapshot folder".into(), folder.clone(), size(&folder)));
    }
}

/// The folders in `dir` (not links), sorted.
fn dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The bytes of the files under `dir`, links not followed, at most [`MAX_FILES`] counted.
fn size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut seen = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            seen += 1;
            if seen > MAX_FILES {
                return total;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

/// The text of a client's config file, at most [`MAX_CONFIG_BYTES`] of it: `None` unless it is a
/// regular file (a link to one counts: stow and home-manager link config files). Opened without
/// blocking and checked before reading: a FIFO planted there never hangs `status`, nor does a
/// link to `/dev/zero` fill its memory (issue #48).
pub(crate) fn read_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = crate::platform::open_nonblocking(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES).read_to_end(&mut bytes).ok()?;
    String::from_utf8(bytes).ok()
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&read_text(path)?).ok()
}

/// One table of a TOML file: its header's parts (quotes removed), its keys with their raw values.
type Table = (Vec<String>, Vec<(String, String)>);

/// The tables of a TOML file as Codex writes `config.toml` (`[a."b.c".d]` headers, `key =
/// value` lines). Enough to find the plugin's entries; anything else is skipped.
fn toml_tables(text: &str) -> Vec<Table> {
    let mut tables: Vec<Table> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if header.starts_with('[') {
                continue; // an array of tables: not one of ours
            }
            tables.push((header_parts(header), Vec::new()));
        } else if let Some((k, v)) = line.split_once('=')
            && let Some((_, keys)) = tables.last_mut()
        {
            keys.push((k.trim().trim_matches('"').to_owned(), v.trim().to_owned()));
        }
    }
    tables
}

/// `hooks.state."a.b:c"` -> `["hooks", "state", "a.b:c"]`.
fn header_parts(header: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = header.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' if quoted => cur.extend(chars.next()),
            '.' if !quoted => parts.push(std::mem::take(&mut cur).trim().to_owned()),
            _ => cur.push(c),
        }
    }
    parts.push(cur.trim().to_owned());
    parts
}

/// A table's header as written, its parts that need it quoted.
fn shown_table(parts: &[String]) -> String {
    parts
        .iter()
        .map(|p| {
            if p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                p.clone()
            } else {
                format!("\"{p}\"")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"
[marketplaces.compact-guardian]
source_type = "local"
source = "/home/u/src/compact-guardian"

[plugins."compact-guardian@compact-guardian"]
enabled = true

[plugins."other@market"]
enabled = true

[hooks.state."compact-guardian@compact-guardian:hooks/hooks.json:pre_compact:0:0"]
trusted_hash = "sha256:aa"

[hooks.state."compact-guardian@compact-guardian:hooks/hooks.json:post_compact:0:0"]
trusted_hash = "sha256:bb"

[hooks.state."other@market:hooks/hooks.json:pre_compact:0:0"]
trusted_hash = "sha256:cc"
"#;

    #[test]
    fn opencode_is_installed_by_its_plugin_file() {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("config/opencode");
        let plugins = config.join("plugins");
        let data = tmp.path().join("data/opencode/compact-guardian");
        let configs = [config.clone()];
        let c = opencode(&configs, &data);
        assert!(!c.anything(), "{c:?}");
        std::fs::create_dir_all(&plugins).unwrap();
        std::fs::write(plugins.join("compact-guardian.js"), "export const X = 1").unwrap();
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("compact-guardian-history.json"), "[]").unwrap();
        let c = opencode(&configs, &data);
        assert_eq!(c.installed.len(), 1);
        let what: Vec<&str> = c.files.iter().map(|(w, _, _)| w.as_str()).collect();
        assert_eq!(what, ["plugin", "snapshot folder"]);
        assert_eq!(c.root, config);
    }

    #[test]
    fn opencode_copies_in_either_folder_and_config_entries_of_either_line_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let first = tmp.path().join("oc");
        let second = tmp.path().join("config/opencode");
        for dir in [first.join("plugin"), second.join("plugins")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("compact-guardian.js"), "//").unwrap();
        }
        std::fs::write(
            second.join("opencode.jsonc"),
            "{ // mine\n \"plugin\": [[\"file:///p/compact-guardian.js\", {}]] }",
        )
        .unwrap();
        std::fs::write(
            first.join("opencode.json"),
            r#"{"plugins": [{"package": "file:///p/compact-guardian.js"}]}"#,
        )
        .unwrap();
        let c = opencode(&[first.clone(), second.clone()], &tmp.path().join("none"));
        assert_eq!(c.installed.len(), 2, "{c:?}");
        assert_eq!(
            c.config_entries,
            [
                format!("{}: \"plugins\"", first.join("opencode.json").display()),
                format!("{}: \"plugin\"", second.join("opencode.jsonc").display()),
            ]
        );
        assert!(json_key(r#"{"plugin" : []}"#, "plugin"));
        assert!(!json_key(r#"{"x": "plugin"}"#, "plugin"));
    }

    #[test]
    fn codex_config_entries_and_trust_are_read_as_codex_writes_them() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("config.toml"), CONFIG).unwrap();
        let copy = tmp
            .path()
            .join("plugins/cache/compact-guardian/compact-guardian/0.2.0");
        std::fs::create_dir_all(copy.join("hooks")).unwrap();
        std::fs::write(
            copy.join("hooks/hooks.json"),
            include_str!("../../plugin/hooks/hooks.json"),
        )
        .unwrap();
        let c = codex(tmp.path());
        assert_eq!(c.installed, ["compact-guardian@compact-guardian"]);
        assert_eq!(
            c.config_entries,
            [
                "config.toml: [marketplaces.compact-guardian]",
                "config.toml: [plugins.\"compact-guardian@compact-guardian\"]",
                "config.toml: [hooks.state.\"compact-guardian@compact-guardian:hooks/hooks.json:pre_compact:0:0\"]",
                "config.toml: [hooks.state.\"compact-guardian@compact-guardian:hooks/hooks.json:post_compact:0:0\"]",
            ]
        );
        // Codex lists six of the plugin's hooks (PostToolUseFailure is Claude Code's alone).
        assert_eq!(c.hooks, Some((6, 2)));
        assert_eq!(c.files.len(), 1);
    }

    #[test]
    fn a_damaged_or_missing_registry_counts_as_nothing_installed() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("plugins")).unwrap();
        std::fs::write(
            tmp.path().join("plugins/installed_plugins.json"),
            "{not json",
        )
        .unwrap();
        std::fs::write(tmp.path().join("config.toml"), "[[[\n= = =\n").unwrap();
        assert!(!claude(tmp.path()).anything());
        assert!(!codex(tmp.path()).anything());
        assert!(!claude(&tmp.path().join("missing")).anything());
    }

    #[test]
    fn header_parts_keep_dots_inside_quotes() {
        assert_eq!(
            header_parts(r#"hooks.state."a@b.c:hooks/hooks.json:x:0:0""#),
            ["hooks", "state", "a@b.c:hooks/hooks.json:x:0:0"]
        );
        assert!(!ours("compact-guardian-x@m") && ours("compact-guardian@m"));
    }
}
