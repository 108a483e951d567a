//! Actions with a lasting effect outside the working tree, by kind: a commit, a push, a tag, a
//! pull request, a deploy, a package install, a restart, a migration, a publish, an environment
//! activated. Read from the command's structure (its program and subcommand, wrappers skipped),
//! so that `grep "git push" docs/` or a commit message naming `npm publish` attempts nothing.
//! A summary that claims one of these is held to the record's attempts, or to their absence.

use super::super::calls::Ended;
use super::outcome::{Outcome, by_status};
use crate::extract::checks::{Joiner, Simple, program};
use serde::{Deserialize, Serialize};

/// A kind of action with a lasting effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActKind {
    /// `git commit` (an amend included).
    Commit,
    /// `git push`.
    Push,
    /// `git tag <name>`.
    Tag,
    /// `gh pr create`, `glab mr create`.
    PullRequest,
    /// A deploy: `vercel`, `fly deploy`, `npm run deploy`, `./deploy.sh`, a deploy tool.
    Deploy,
    /// A package install: `npm install`, `pip install`, `cargo add`, ...
    Install,
    /// A service restarted or reloaded: `systemctl restart`, `pm2 reload`, ...
    Restart,
    /// A database migration run: `alembic upgrade`, `rails db:migrate`, `prisma migrate`, ...
    Migration,
    /// A package or release published: `npm publish`, `cargo publish`, `gh release create`, ...
    Publish,
    /// A virtual environment activated: `source .venv/bin/activate`, `conda activate`.
    Activate,
}

impl ActKind {
    /// Every kind, in order.
    pub const ALL: [ActKind; 10] = [
        ActKind::Commit,
        ActKind::Push,
        ActKind::Tag,
        ActKind::PullRequest,
        ActKind::Deploy,
        ActKind::Install,
        ActKind::Restart,
        ActKind::Migration,
        ActKind::Publish,
        ActKind::Activate,
    ];

    /// The noun a correction uses ("no `git push`", "the last deploy").
    pub fn noun(self) -> &'static str {
        match self {
            ActKind::Commit => "`git commit`",
            ActKind::Push => "`git push`",
            ActKind::Tag => "`git tag`",
            ActKind::PullRequest => "pull request created",
            ActKind::Deploy => "deploy",
            ActKind::Install => "package install",
            ActKind::Restart => "restart or reload",
            ActKind::Migration => "migration run",
            ActKind::Publish => "publish",
            ActKind::Activate => "environment activation",
        }
    }
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum ActEnd {
    /// It succeeded.
    Done,
    /// It had nothing to do ("nothing to commit", "Everything up-to-date"): what it would have
    /// done was done already.
    NothingToDo,
    /// It failed, and its status is its own.
    Failed {
        /// How ("exited 1").
        how: String,
    },
    /// It never ran: rejected by the user, or blocked before it started.
    NotRun,
    /// It was started in the background and had not ended.
    Running,
    /// The record cannot tell (another command's status, an interruption, no result).
    Unknown,
}

impl ActEnd {
    /// Whether what it would do is done.
    pub fn done(&self) -> bool {
        matches!(self, ActEnd::Done | ActEnd::NothingToDo)
    }
}

/// One attempt of an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// The command (or tool) as the record shows it, one line, bounded.
    pub command: String,
    /// How it ended.
    pub end: ActEnd,
    /// How many calls back it was made (0: the newest call).
    pub age: u32,
}

/// The attempts of one kind of action: the last, and when the newest that succeeded was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Act {
    /// The kind.
    pub kind: ActKind,
    /// How many attempts the record holds within the facts' reach.
    pub attempts: u32,
    /// The newest attempt.
    pub last: Attempt,
    /// How many calls back the newest attempt that succeeded was made.
    pub done: Option<u32>,
}

/// The kind of action a simple command attempts, if any.
pub(super) fn kind_of(words: &[String]) -> Option<ActKind> {
    let (prog, args) = program(words);
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let sub = git_sub(args);
    let kind = match prog {
        "git" | "hg" | "sl" | "jj" => match sub {
            "commit" => ActKind::Commit,
            "push" => ActKind::Push,
            "tag" if named_tag(args) => ActKind::Tag,
            _ => return None,
        },
        "gh" | "glab" | "hub" => match (arg(0), arg(1)) {
            ("pr" | "mr", "create") | ("pull-request", _) => ActKind::PullRequest,
            ("release", "create") => ActKind::Publish,
            _ => return None,
        },
        "source" | "." if arg(0).ends_with("activate") => ActKind::Activate,
        "conda" | "mamba" | "micromamba" if arg(0) == "activate" => ActKind::Activate,
        "workon" | "pyenv" if prog == "workon" || arg(0) == "activate" => ActKind::Activate,
        _ => return tool_kind(prog, args),
    };
    Some(kind)
}

/// The kinds package managers, service managers, migration tools and deploy tools attempt.
fn tool_kind(prog: &str, args: &[String]) -> Option<ActKind> {
    if let Some(decided) = package_kind(prog, args) {
        return decided;
    }
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let (a0, a1) = (arg(0), arg(1));
    let any_arg = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    Some(match prog {
        "docker" if a0 == "push" => ActKind::Publish,
        "docker" | "podman" if a0 == "restart" => ActKind::Restart,
        "docker" | "podman" if a0 == "compose" && matches!(a1, "restart" | "up") => {
            ActKind::Restart
        }
        "docker-compose" if matches!(a0, "restart" | "up") => ActKind::Restart,
        "systemctl" | "service" | "pm2" | "supervisorctl" | "launchctl" | "rc-service"
            if any_arg(&|a| matches!(a, "restart" | "reload" | "kickstart" | "try-restart")) =>
        {
            ActKind::Restart
        }
        "nginx" | "apachectl" if any_arg(&|a| a == "reload" || a == "graceful") => ActKind::Restart,
        "alembic" if a0 == "upgrade" => ActKind::Migration,
        "rails" | "rake" | "bin/rails" if a0.starts_with("db:migrate") => ActKind::Migration,
        "prisma" | "knex" | "sequelize" | "sequelize-cli" | "typeorm" | "drizzle-kit"
        | "diesel" | "sqlx" | "flyway" | "goose" | "migrate" | "dbmate"
            if any_arg(&|a| a.contains("migrat") || matches!(a, "up" | "push" | "deploy")) =>
        {
            ActKind::Migration
        }
        p if p.starts_with("python") && a0.ends_with("manage.py") && a1 == "migrate" => {
            ActKind::Migration
        }
        "php" if a0 == "artisan" && a1.starts_with("migrate") => ActKind::Migration,
        "vercel" | "netlify" | "fly" | "flyctl" | "firebase" | "wrangler" | "serverless"
        | "sls" | "heroku" | "railway" | "cap" | "eb" | "amplify"
            if a0.is_empty() || any_arg(&|a| a == "deploy" || a == "--prod" || a == "publish") =>
        {
            ActKind::Deploy
        }
        "gcloud" | "az" | "aws" if any_arg(&|a| a == "deploy") => ActKind::Deploy,
        "kubectl" | "helm" if matches!(a0, "apply" | "upgrade" | "install" | "rollout") => {
            ActKind::Deploy
        }
        "terraform" | "tofu" | "pulumi" if matches!(a0, "apply" | "up") => ActKind::Deploy,
        p if name_says(p, "deploy") => ActKind::Deploy,
        p if name_says(p, "migrat") => ActKind::Migration,
        p if name_says(p, "publish") || name_says(p, "release") => ActKind::Publish,
        // A script run by an interpreter: its name says what it does (`python deploy.py`).
        "sh" | "bash" | "zsh" | "python" | "python3" | "node" | "ruby" => {
            let script = args.iter().find(|a| !a.starts_with('-'))?;
            let name = script.rsplit(['/', '\\']).next().unwrap_or(script);
            return script_kind(name.split('.').next().unwrap_or(name));
        }
        _ => return None,
    })
}

/// What a package manager's command does: install, publish, or run a script whose name says
/// (`npm run deploy`). `Some(None)`: npm's or cargo's command that does none of these (`cargo
/// test`, decided here: no rule after this one is asked); `None`: not decided here.
fn package_kind(prog: &str, args: &[String]) -> Option<Option<ActKind>> {
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let (a0, a1) = (arg(0), arg(1));
    let kind = match prog {
        "npm" | "pnpm" | "yarn" | "bun" => {
            return Some(match a0 {
                "install" | "i" | "ci" | "add" => Some(ActKind::Install),
                // Bare `yarn` installs what the manifest names.
                "" if prog == "yarn" => Some(ActKind::Install),
                "publish" => Some(ActKind::Publish),
                "run" | "run-script" => script_kind(a1),
                s => script_kind(s),
            });
        }
        "cargo" => {
            return Some(match a0 {
                "add" | "install" => Some(ActKind::Install),
                "publish" => Some(ActKind::Publish),
                _ => None,
            });
        }
        "pip" | "pip3" | "pipx" | "gem" | "brew" | "apt" | "apt-get" | "dnf" | "yum" | "apk"
        | "conda" | "mamba" | "go" | "composer"
            if matches!(a0, "install" | "add" | "get" | "require") =>
        {
            ActKind::Install
        }
        "uv" if matches!(a0, "add" | "sync") || (a0 == "pip" && a1 == "install") => {
            ActKind::Install
        }
        // `python -m pip install x`: pip run by its interpreter.
        p if p.starts_with("python") && a0 == "-m" && a1 == "pip" && arg(2) == "install" => {
            ActKind::Install
        }
        "pipenv" | "pdm" | "deno" | "pixi" if matches!(a0, "install" | "add" | "sync") => {
            ActKind::Install
        }
        "bundle" if a0.is_empty() => ActKind::Install,
        "dotnet" if a0 == "restore" || (a0 == "add" && a1 == "package") => ActKind::Install,
        "mix" if a0 == "deps.get" => ActKind::Install,
        "uv" | "poetry" | "flit" | "hatch" | "twine" if matches!(a0, "publish" | "upload") => {
            ActKind::Publish
        }
        "poetry" | "bundle" if matches!(a0, "add" | "install") => ActKind::Install,
        _ => return None,
    };
    Some(Some(kind))
}

/// The kinds of action a word of a command says it may do ([`hinted`]): `release` may commit,
/// push, tag, deploy and publish. `word` is lowercase.
fn kinds_said(word: &str) -> &'static [ActKind] {
    use ActKind::*;
    match word {
        "commit" => &[Commit],
        "release" => &[Commit, Push, Tag, Deploy, Publish],
        "version" | "bump" => &[Commit, Tag],
        "ship" => &[Commit, Push, PullRequest, Deploy, Publish],
        "push" => &[Push],
        "publish" => &[Push, Publish],
        "sync" => &[Push, Install],
        "tag" => &[Tag],
        "pr" | "mr" | "pull" | "review" => &[PullRequest],
        "deploy" => &[Deploy, Publish],
        "rollout" | "provision" | "apply" => &[Deploy],
        "up" => &[Deploy, Restart],
        "install" | "setup" | "bootstrap" | "deps" | "dependencies" | "requirements"
        | "restore" | "vendor" | "init" => &[Install],
        // Ending a process by name is half of a restart done by hand (`pkill app; ./app &`).
        "restart" | "reload" | "start" | "serve" | "reboot" | "kill" | "pkill" | "killall" => {
            &[Restart]
        }
        "migrate" | "migration" | "migrations" | "db" | "schema" | "seed" => &[Migration],
        "upload" => &[Publish],
        "activate" | "venv" | "conda" | "workon" => &[Activate],
        _ => &[],
    }
}

/// The kinds of action a command may have done that no rule above names it for: its words say
/// so (`make install`, `./scripts/release.sh`, `just deploy`, `npm version patch`, which
/// commits and tags). The record's silence about such a kind is no evidence (D106).
pub(super) fn hinted(words: &[String]) -> Vec<ActKind> {
    // A program that only reads or prints does none, whatever its arguments name.
    const INERT: &[&str] = &[
        "cat", "head", "tail", "less", "more", "grep", "rg", "ag", "ls", "find", "fd", "echo",
        "printf", "awk", "wc", "diff", "file", "stat", "tree", "pwd", "cd", "which", "type", "jq",
        "git", "bat", "nl", "sort", "uniq", "cut", "tr", "du", "df", "ps", "env", "test", "[",
        "true", "false", "sleep", "date", "whoami", "uname", "man",
    ];
    let (prog, args) = program(words);
    let reads = prog == "sed" && !args.iter().any(|a| a.starts_with("-i"));
    if prog.is_empty() || reads || INERT.contains(&prog) {
        return Vec::new();
    }
    // One pass over the words' parts, each lowercased into a buffer on the stack: this runs for
    // most commands, and a part longer than any word [`kinds_said`] knows says none.
    const LONGEST: usize = "requirements".len();
    let mut kinds = Vec::new();
    let mut buf = [0u8; LONGEST];
    // A flag is how, not what: `cargo build --release` releases nothing.
    let parts = std::iter::once(prog)
        .chain(
            args.iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-')),
        )
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|p| (2..=LONGEST).contains(&p.len()));
    for part in parts {
        let lower = &mut buf[..part.len()];
        lower.copy_from_slice(part.as_bytes());
        lower.make_ascii_lowercase();
        for kind in kinds_said(std::str::from_utf8(lower).unwrap_or_default()) {
            if !kinds.contains(kind) {
                kinds.push(*kind);
            }
        }
    }
    kinds
}

/// The kind a package script or a script file's name says ("deploy", "db:migrate",
/// "publish-docs"); `None` for any other.
fn script_kind(name: &str) -> Option<ActKind> {
    if name_says(name, "deploy") {
        Some(ActKind::Deploy)
    } else if name_says(name, "migrat") {
        Some(ActKind::Migration)
    } else if name_says(name, "publish") {
        Some(ActKind::Publish)
    } else {
        None
    }
}

/// Whether a program's or a script's name (its base name) holds `word` as one of its parts
/// (`deploy.sh`, `deploy_to_github`, `db:migrate`), not inside another word.
fn name_says(name: &str, word: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    // Compared in place (`word` is lowercase): this runs for most commands.
    base.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| {
            part.get(..word.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(word))
        })
}

/// The kind a tool other than the shell attempts by its name (an MCP server's
/// `mcp__vercel__deploy`, a `deploy_to_github` tool): deploys and publishes only.
pub(super) fn tool_named(tool: &str) -> Option<ActKind> {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    if name_says(name, "deploy") {
        Some(ActKind::Deploy)
    } else if name_says(name, "publish") {
        Some(ActKind::Publish)
    } else {
        None
    }
}

/// The git subcommand, after global options (`git -C dir commit`).
fn git_sub(args: &[String]) -> &str {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if matches!(a.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree" | "-R") {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return a.as_str();
        }
    }
    ""
}

/// Whether `git tag ...` makes a tag (a name, not `-l`/`--list`/`-d`).
fn named_tag(args: &[String]) -> bool {
    let after: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| *a != "tag")
        .skip(1)
        .collect();
    !after
        .iter()
        .any(|a| matches!(*a, "-l" | "--list" | "-d" | "--delete" | "-v" | "--verify"))
        && after.iter().any(|a| !a.starts_with('-'))
}

/// How an attempt by a tool other than the shell ended (a deploy tool): by its result.
pub(super) fn tool_ended(e: &Ended) -> ActEnd {
    if !e.read {
        ActEnd::Unknown
    } else if e.running {
        ActEnd::Running
    } else if super::outcome::never_ran(e) {
        ActEnd::NotRun
    } else if e.failed {
        ActEnd::Failed {
            how: "failed".into(),
        }
    } else {
        ActEnd::Done
    }
}

/// How the attempt `rest[0]` (a simple command of a line) ended, with `output` the call's
/// output as kept: git's "nothing to commit" and "Everything up-to-date" say there was nothing
/// to do.
pub(super) fn ended(e: &Ended, rest: &[Simple], output: &str) -> ActEnd {
    let lower = output.to_lowercase();
    let nothing = [
        "nothing to commit",
        "everything up-to-date",
        "everything up to date",
    ]
    .iter()
    .any(|m| lower.contains(m));
    match by_status(e, rest) {
        Outcome::Passed => ActEnd::Done,
        Outcome::Failed { .. } | Outcome::Unknown if e.read && nothing => ActEnd::NothingToDo,
        Outcome::Failed { how } => ActEnd::Failed { how },
        Outcome::NotRun => ActEnd::NotRun,
        Outcome::Running => ActEnd::Running,
        // A status that may be another command's: the attempt's own failure, when it is the
        // last of a `&&` chain that stopped at it, is still no success.
        Outcome::Unknown if e.failed && rest[0].then == Joiner::End => ActEnd::Failed {
            how: "failed".into(),
        },
        _ => ActEnd::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::checks::simple_commands;

    fn kinds(cmd: &str) -> Vec<ActKind> {
        simple_commands(cmd)
            .iter()
            .filter_map(|s| kind_of(&s.words))
            .collect()
    }

    #[test]
    fn a_command_whose_words_name_an_action_may_have_done_it() {
        let hinted = |cmd: &str| {
            let simple = crate::extract::checks::simple_commands(cmd);
            hinted(&simple[0].words)
        };
        assert!(hinted("make install").contains(&ActKind::Install));
        let release = hinted("./scripts/release.sh 1.2.0");
        for kind in [
            ActKind::Commit,
            ActKind::Push,
            ActKind::Tag,
            ActKind::Publish,
        ] {
            assert!(release.contains(&kind), "{kind:?}");
        }
        assert!(hinted("npm version patch").contains(&ActKind::Commit));
        assert!(hinted("curl -X POST https://hooks.example/deploy").contains(&ActKind::Deploy));
        // Reading or naming is no action.
        assert!(hinted("cat setup.py").is_empty());
        assert!(hinted("grep -rn deploy docs/").is_empty());
        assert!(hinted("git log --grep release").is_empty());
        assert!(hinted("sed -n 1,20p scripts/release.sh").is_empty());
        // A flag says how it runs, not what it does.
        assert!(hinted("cargo build --release").is_empty());
    }

    #[test]
    fn actions_are_read_from_the_program_not_the_text() {
        assert_eq!(
            kinds("git add -A && git commit -m 'x' && git push origin main"),
            [ActKind::Commit, ActKind::Push]
        );
        assert_eq!(
            kinds("git -C repo commit --amend --no-edit"),
            [ActKind::Commit]
        );
        assert!(kinds("grep -rn \"git push\" docs/").is_empty());
        assert!(kinds("git commit-tree x").is_empty());
        assert!(kinds("echo npm publish").is_empty());
        assert!(kinds("git tag -l").is_empty());
        assert_eq!(kinds("git tag v1.2.0"), [ActKind::Tag]);
        assert_eq!(kinds("gh pr create --fill"), [ActKind::PullRequest]);
        assert_eq!(kinds("npm install left-pad"), [ActKind::Install]);
        assert_eq!(kinds("pip install -r requirements.txt"), [ActKind::Install]);
        for install in [
            "python3 -m pip install requests",
            "uv sync",
            "yarn",
            "bundle",
            "pipenv install",
            "dotnet add package Serilog",
            "mix deps.get",
        ] {
            assert_eq!(kinds(install), [ActKind::Install], "{install}");
        }
        assert_eq!(kinds("npm run deploy"), [ActKind::Deploy]);
        assert_eq!(kinds("./scripts/deploy.sh prod"), [ActKind::Deploy]);
        assert_eq!(kinds("vercel --prod"), [ActKind::Deploy]);
        assert_eq!(kinds("sudo systemctl restart nginx"), [ActKind::Restart]);
        assert_eq!(kinds("npx prisma migrate dev"), [ActKind::Migration]);
        assert_eq!(kinds("python manage.py migrate"), [ActKind::Migration]);
        assert_eq!(kinds("cargo publish --dry-run"), [ActKind::Publish]);
        assert_eq!(
            kinds("source .venv/bin/activate && pytest"),
            [ActKind::Activate]
        );
        assert!(kinds("npm run build").is_empty());
        assert_eq!(tool_named("mcp__vercel__deploy"), Some(ActKind::Deploy));
        assert_eq!(tool_named("deploy_to_github"), Some(ActKind::Deploy));
        assert_eq!(tool_named("Read"), None);
    }

    #[test]
    fn nothing_to_commit_is_nothing_to_do() {
        let e = Ended {
            read: true,
            failed: true,
            exit: Some(1),
            head: "On branch main\nnothing to commit, working tree clean".into(),
            ..Ended::default()
        };
        let simple = simple_commands("git commit -m x");
        assert_eq!(ended(&e, &simple, &e.head), ActEnd::NothingToDo);
        let hook = Ended {
            head: "pre-commit hook failed".into(),
            ..e
        };
        assert!(matches!(
            ended(&hook, &simple, &hook.head),
            ActEnd::Failed { .. }
        ));
    }
}
