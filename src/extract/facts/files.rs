//! What the session did to each file: every write an edit tool attempted and how it ended
//! (applied, failed, rejected), the writes of commands that name the file (`sed -i`, `mv`, a
//! redirect), and the reads. Beside the newest files in full, the names of every file touched or
//! read are kept as a bounded set of hashes, so that "this file was never written" can be said
//! of a session however many files it touched, and is not said once the set is full.

use super::super::calls::Ended;
use super::outcome::never_ran;
use crate::extract::checks::{INTERPRETERS, Simple, check_of, program};
use serde::{Deserialize, Serialize};

/// How an edit tool's write of a file ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteEnd {
    /// It was applied.
    Applied,
    /// The tool reported an error (`old_string` not found, a patch that did not apply).
    Failed,
    /// The user rejected it, or the client blocked it.
    Rejected,
    /// Its result was not read.
    Unknown,
}

/// An edit tool's newest write of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    /// The tool (`Edit`, `Write`, `apply_patch`).
    pub tool: String,
    /// How it ended.
    pub end: WriteEnd,
    /// Why it failed, as the tool said (one line), when it did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// How many calls back it was made.
    pub age: u32,
}

/// What the record shows of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFact {
    /// Its path as the record names it.
    pub path: String,
    /// The newest write an edit tool attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Write>,
    /// How many calls back the newest write that applied was made (an edit tool's, or a
    /// command's that names the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<u32>,
}

/// A bounded set of file base names (lowercased, hashed): every file the session touched, or
/// read. Once full it answers nothing ([`Names::holds`] is `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    hashes: Vec<u32>,
    full: bool,
}

/// The most names a set keeps (16 KB).
const MAX_NAMES: usize = 4_096;

impl Names {
    /// Adds the base name of `path`.
    pub fn add(&mut self, path: &str) {
        let h = name_hash(base_name(path));
        if let Err(at) = self.hashes.binary_search(&h) {
            if self.hashes.len() >= MAX_NAMES {
                self.full = true;
                return;
            }
            self.hashes.insert(at, h);
        }
    }

    /// Whether a file with the base name of `path` is in the set: `None` when the set was full
    /// and cannot tell. A hash shared by two names says yes: the set errs towards "touched".
    pub fn holds(&self, path: &str) -> Option<bool> {
        let h = name_hash(base_name(path));
        match self.hashes.binary_search(&h) {
            Ok(_) => Some(true),
            Err(_) if self.full => None,
            Err(_) => Some(false),
        }
    }
}

/// FNV-1a of a lowercased name.
fn name_hash(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.to_lowercase().bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The final path component of a path-like text, quotes and punctuation around it dropped.
pub fn base_name(p: &str) -> &str {
    p.trim_matches(|c: char| matches!(c, '`' | '\'' | '"' | ',' | ':' | ';' | '(' | ')'))
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(p)
}

/// How an edit tool's call ended.
pub(super) fn write_end(e: &Ended) -> (WriteEnd, String) {
    if !e.read {
        return (WriteEnd::Unknown, String::new());
    }
    if never_ran(e) {
        return (WriteEnd::Rejected, String::new());
    }
    // A Codex patch states no exit status when it did not apply ("apply_patch verification
    // failed: ..."); one that applied says "Success.".
    if e.failed || (e.unstated && !e.head.contains("Success")) {
        let first = e.head.lines().map(str::trim).find(|l| !l.is_empty());
        let why = first
            .unwrap_or_default()
            .trim_start_matches("<tool_use_error>")
            .trim_end_matches("</tool_use_error>");
        return (WriteEnd::Failed, crate::text::folded_line(why, 120));
    }
    (WriteEnd::Applied, String::new())
}

/// What a shell command line does to files: the files it may write and names, the files it
/// reads, and whether it may write files it does not name (a script, a checkout).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ShellFiles {
    pub writes: Vec<String>,
    pub reads: Vec<String>,
    pub opaque: bool,
}

/// Reads a command line's simple commands for what they do to files.
pub(super) fn shell_files(cmd: &str, simple: &[Simple]) -> ShellFiles {
    let mut out = ShellFiles::default();
    // A redirect writes the file after it (`> out.txt`, `>> log`), never `2>&1`.
    let redirected = cmd.replace("2>&1", "").replace("&>", ">");
    for part in redirected.split('>').skip(1) {
        if let Some(target) = part.trim_start_matches('>').split_whitespace().next()
            && file_like(target)
            && target != "/dev/null"
        {
            out.writes.push(target.to_owned());
        }
    }
    // A command cut where the transcript reader bounds it may name what it writes past the cut.
    let cut = cmd.ends_with('…');
    for s in simple {
        let (prog, args) = program(&s.words);
        let named = || args.iter().filter(|a| file_like(a)).cloned();
        match effect(prog, args, &s.words) {
            Effect::Writes if cut => out.opaque = true,
            Effect::Writes => out.writes.extend(named()),
            Effect::Installs => out.writes.extend(MANIFESTS.iter().map(|m| (*m).to_owned())),
            Effect::Reads => out.reads.extend(named()),
            Effect::Opaque => out.opaque = true,
            Effect::None => {}
        }
    }
    out
}

/// What one simple command does to the files it names.
enum Effect {
    /// A package manager's install: the manifest and lock files.
    Installs,
    Writes,
    Reads,
    /// It may write files it does not name.
    Opaque,
    None,
}

fn effect(prog: &str, args: &[String], words: &[String]) -> Effect {
    let first = args.first().map(String::as_str).unwrap_or("");
    let flag = |f: &str| args.iter().any(|a| a.starts_with(f));
    match prog {
        "sed" | "perl" if flag("-i") || flag("-pi") => Effect::Writes,
        "tee" | "mv" | "cp" | "rm" | "touch" | "truncate" | "dd" | "ln" | "install" | "chmod"
        | "patch" => Effect::Writes,
        "cat" | "head" | "tail" | "less" | "more" | "bat" | "nl" | "wc" | "sed" | "awk"
        | "grep" | "rg" | "diff" | "view" | "jq" | "file" | "stat" => Effect::Reads,
        "git" => match first {
            "apply" | "am" | "checkout" | "restore" | "stash" | "reset" | "merge" | "rebase"
            | "pull" | "cherry-pick" | "revert" | "switch" | "clean" => Effect::Opaque,
            "mv" | "rm" => Effect::Writes,
            "diff" | "show" | "log" | "blame" => Effect::Reads,
            _ => Effect::None,
        },
        "unzip" | "tar" | "rsync" | "cargo-fix" | "black" | "prettier" | "gofmt" | "rustfmt"
        | "isort" | "autopep8" | "make" | "just" | "cmake" => opaque_unless_check(words),
        "cargo" if matches!(first, "fmt" | "fix") => Effect::Opaque,
        // A package install writes the manifest and its lock file, named or not.
        "npm" | "yarn" | "pnpm" | "bun" if matches!(first, "install" | "i" | "ci" | "add") => {
            Effect::Installs
        }
        // A package script that checks or runs the app (`npm run dev`) writes no source.
        "npm" | "yarn" | "pnpm" | "npx" | "bun" if check_of(words).is_some() => Effect::None,
        "npm" | "yarn" | "pnpm" | "npx" | "bun" => Effect::Opaque,
        "ruff" | "eslint" if flag("--fix") || first == "format" => Effect::Opaque,
        p if INTERPRETERS.contains(&p) => opaque_unless_check(words),
        _ => Effect::None,
    }
}

/// A command that may write anything unless it runs a check (a test run, a build): a script
/// run to see it work may write anything too.
fn opaque_unless_check(words: &[String]) -> Effect {
    match check_of(words) {
        Some((check, _)) if check != crate::extract::checks::Check::Run => Effect::None,
        _ => Effect::Opaque,
    }
}

/// The files a package install writes without naming them.
const MANIFESTS: &[&str] = &[
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
];

/// Whether a command argument names a file: a name with an extension, or a path.
fn file_like(a: &str) -> bool {
    if a.starts_with('-') || a.contains(['=', '*', '$', '{', '|', '<', '>']) || a.len() > 300 {
        return false;
    }
    let name = base_name(a);
    let ext = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    ext || (a.contains('/') && !a.starts_with("s/") && !a.starts_with("y/") && a.len() > 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::checks::simple_commands;

    fn files(cmd: &str) -> ShellFiles {
        shell_files(cmd, &simple_commands(cmd))
    }

    #[test]
    fn commands_write_read_or_may_write_anything() {
        let f = files("sed -i 's/a/b/' src/calc.py && cat README.md");
        assert_eq!(f.writes, ["src/calc.py"]);
        assert_eq!(f.reads, ["README.md"]);
        assert!(!f.opaque);
        assert_eq!(files("echo x > notes.txt 2>&1").writes, ["notes.txt"]);
        assert!(files("cargo test 2>&1 | tail -5").writes.is_empty());
        assert!(files("python3 fix_imports.py").opaque);
        assert!(
            !files("python3 tests/test_calc.py").opaque,
            "a test run writes nothing"
        );
        assert!(files("git stash pop").opaque);
        assert!(!files("git status").opaque);
    }

    #[test]
    fn a_full_set_of_names_answers_nothing() {
        let mut n = Names::default();
        n.add("/p/src/Main.rs");
        assert_eq!(n.holds("main.rs"), Some(true));
        assert_eq!(n.holds("src/other.rs"), Some(false));
        for i in 0..=MAX_NAMES {
            n.add(&format!("f{i}.rs"));
        }
        assert_eq!(n.holds("never.rs"), None);
    }
}
