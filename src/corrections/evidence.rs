//! The record's evidence, read from its structure rather than its text: which shell commands ran
//! a test suite, a build, a lint or a type check (by the program they run, the project's own test
//! entry point, or a test runner's result in their output), how each ended (the exit status when
//! it belongs to that program, else the runner's own report, read in `reports`), which commands
//! and tools may have changed files, and which commits and pushes failed.
//!
//! A command that only mentions a runner (`grep -rn "cargo test" docs/`, a commit message naming
//! `.pytest_cache`) runs none; a runner piped into `tail` is judged by its report, not by `tail`'s
//! exit status.

use super::reports::report;
use crate::extract::Action;
use crate::read::tools::{is_edit, is_shell};

/// What a command checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// A test suite or part of one.
    Test,
    /// A build or compile.
    Build,
    /// A linter.
    Lint,
    /// A type checker.
    Types,
}

impl Check {
    /// The noun a correction uses.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Check::Test => "test run",
            Check::Build => "build",
            Check::Lint => "lint run",
            Check::Types => "type check",
        }
    }
}

/// How a check ended, as far as the record tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It passed: exit 0 from the check itself, or a runner's report with no failure.
    Passed,
    /// It failed: a non-zero exit status of the check itself, or a runner's report of failures.
    /// `how` says which ("exited 101", "reported \"1 failed, 10 passed\"").
    Failed { how: String },
    /// The record cannot tell (a pipe or a later command decides the status, a timeout, an
    /// interruption, no result).
    Unknown,
}

/// One run of a check.
#[derive(Debug, Clone)]
pub(crate) struct Run<'a> {
    /// Its index in the actions, oldest first.
    pub at: usize,
    /// The action.
    pub action: &'a Action,
    /// What it checks.
    pub check: Check,
    /// What it narrows the check to: the arguments that name tests, packages, files or filters
    /// (lowercased words); empty for the whole suite.
    pub scope: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// The command words of the check itself (`cargo test billing`), for a summary that names
    /// the command.
    pub words: Vec<String>,
}

/// How a command continues after one of its simple commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Joiner {
    /// `&&`: the rest runs only if this succeeded.
    And,
    /// `||`, `;`, a newline, `&`: the rest runs either way (or only on failure).
    Other,
    /// `|`: its output goes to the next, whose status counts.
    Pipe,
    /// The end of the command.
    End,
}

/// One simple command of a command line: its words (quotes removed) and what follows it.
#[derive(Debug, Clone)]
struct Simple {
    words: Vec<String>,
    then: Joiner,
}

/// A command line as its simple commands. The summary's command may be cut ("…") and shows its
/// newlines as `\n`; quotes protect separators inside them.
fn simple_commands(cmd: &str) -> Vec<Simple> {
    let cmd = cmd.replace("\\n", "\n");
    let mut out = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = cmd.chars().peekable();
    let flush_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                word.push(c);
            }
            continue;
        }
        let joiner = match c {
            '\'' | '"' => {
                quote = Some(c);
                continue;
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                Some(Joiner::And)
            }
            // `2>&1`, `&>file`, `>&2`: redirections, not separators.
            '&' if word.ends_with('>') || chars.peek() == Some(&'>') => {
                word.push(c);
                None
            }
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                Some(Joiner::Other)
            }
            '|' => Some(Joiner::Pipe),
            ';' | '\n' | '&' => Some(Joiner::Other),
            c if c.is_whitespace() => {
                flush_word(&mut word, &mut words);
                None
            }
            c => {
                word.push(c);
                None
            }
        };
        if let Some(then) = joiner {
            flush_word(&mut word, &mut words);
            if !words.is_empty() {
                out.push(Simple {
                    words: std::mem::take(&mut words),
                    then,
                });
            }
        }
    }
    flush_word(&mut word, &mut words);
    if !words.is_empty() {
        out.push(Simple {
            words,
            then: Joiner::End,
        });
    }
    out
}

/// The words of each simple command of `cmd`, as [`Run::words`] holds them.
pub(crate) fn command_words(cmd: &str) -> Vec<Vec<String>> {
    simple_commands(cmd).into_iter().map(|s| s.words).collect()
}

/// Words that run the next word as the program (`sudo`, `time`, `npx`...), with how many of their
/// own arguments to skip.
fn wrapper(w: &str, next: Option<&str>) -> Option<usize> {
    match w {
        "sudo" | "time" | "nice" | "command" | "exec" | "xvfb-run" | "npx" | "bunx" | "nohup" => {
            Some(0)
        }
        "timeout" => Some(1),
        "env" => Some(0),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" if next == Some("run") => Some(1),
        "bundle" if next == Some("exec") => Some(1),
        "pnpm" | "yarn" if next == Some("exec") || next == Some("dlx") => Some(1),
        _ => None,
    }
}

/// The program and its arguments, wrappers and variable assignments skipped.
fn program(words: &[String]) -> (&str, &[String]) {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w.contains('=') && !w.starts_with('-') && !w.starts_with('=') {
            i += 1; // FOO=1 cmd
            continue;
        }
        if w.starts_with('-') && i > 0 {
            i += 1; // a wrapper's flag (timeout -k 5 ...)
            continue;
        }
        match wrapper(w, words.get(i + 1).map(String::as_str)) {
            Some(skip) => i += 1 + skip,
            None => break,
        }
    }
    match words.get(i) {
        Some(p) => (base(p), &words[i + 1..]),
        None => ("", &[]),
    }
}

/// The last path component.
fn base(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// Whether a script path names a test entry point: `run_tests.sh`, `test.sh`, `tests/test_x.py`,
/// `calc_test.py`, `test/unit.js`.
fn test_script(path: &str) -> bool {
    let lower = path.to_lowercase();
    let name = base(&lower);
    let stem = name.split('.').next().unwrap_or(name);
    stem.contains("test")
        || stem.contains("spec")
        || lower
            .split(['/', '\\'])
            .rev()
            .skip(1)
            .any(|d| d == "test" || d == "tests" || d == "spec")
}

/// Whether a test script runs a suite rather than being one test file: `run_tests.sh`,
/// `test.sh`, `runtests`.
fn runner_script(path: &str) -> bool {
    let lower = path.to_lowercase();
    let name = base(&lower);
    let stem = name.split('.').next().unwrap_or(name);
    stem.starts_with("run") || matches!(stem, "test" | "tests" | "check" | "ci")
}

/// Interpreters whose first non-flag argument is the script they run.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "python",
    "python3",
    "py",
    "node",
    "ruby",
    "perl",
    "php",
    "deno",
    "bun",
    "tsx",
    "ts-node",
    "pwsh",
    "powershell",
];

/// Test runners named as the program.
const RUNNERS: &[&str] = &[
    "pytest", "py.test", "jest", "vitest", "mocha", "ava", "rspec", "phpunit", "ctest", "tox",
    "nox", "nose2", "trial", "karma", "tap", "bats", "nextest",
];

/// Build tools' targets that run the tests.
const TEST_TARGETS: &[&str] = &["test", "tests", "check", "spec", "verify", "unittest", "t"];

/// What a simple command checks, and the index of the first argument that narrows it.
fn check_of(words: &[String]) -> Option<(Check, usize)> {
    let (prog, args) = program(words);
    let offset = words.len() - args.len();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let prog = prog.trim_end_matches(".exe");
    // python -m pytest / unittest.
    if (prog.starts_with("python") || prog == "py") && arg(0) == Some("-m") {
        return python_module(arg(1), offset);
    }
    if RUNNERS.contains(&prog) {
        return Some((Check::Test, offset));
    }
    if let Some(found) = framework_test(prog, args, offset) {
        return Some(found);
    }
    if prog.starts_with("run_test") || prog.starts_with("run-test") || prog.starts_with("runtest") {
        return Some((Check::Test, offset));
    }
    if INTERPRETERS.contains(&prog) {
        return interpreted_test(prog, args, offset);
    }
    if direct_test_script(words, prog) {
        return Some((Check::Test, offset));
    }
    tool_check(words, prog, args, offset)
}

/// `python -m <module>` (`module` is the argument after `-m`): what the module checks; its own
/// arguments narrow it.
fn python_module(module: Option<&str>, offset: usize) -> Option<(Check, usize)> {
    match module {
        Some("pytest" | "unittest" | "nose2" | "tox") => Some((Check::Test, offset + 2)),
        Some("mypy" | "pyright") => Some((Check::Types, offset + 2)),
        Some("ruff" | "flake8" | "pylint") => Some((Check::Lint, offset + 2)),
        _ => None,
    }
}

/// Frameworks' own test commands: `python manage.py test`, `php artisan test`,
/// `bin/rails test`, `ng test`, `flutter test`, `dart test`.
fn framework_test(prog: &str, args: &[String], offset: usize) -> Option<(Check, usize)> {
    let arg = |i: usize| args.get(i).map(String::as_str);
    let framework = match prog {
        p if p.starts_with("python") => {
            arg(0).is_some_and(|a| base(a) == "manage.py") && arg(1) == Some("test")
        }
        "php" => arg(0) == Some("artisan") && arg(1) == Some("test"),
        "rails" | "ng" | "flutter" | "dart" | "meson" => arg(0) == Some("test"),
        _ => false,
    };
    if !framework {
        return None;
    }
    let skip = if prog.starts_with("python") || prog == "php" {
        2
    } else {
        1
    };
    Some((Check::Test, offset + skip))
}

/// An interpreter ([`INTERPRETERS`]) running tests: its own test command (`bun test`, `deno
/// test`, `node --test`), or a test script (`sh run_tests.sh billing`, `python
/// tests/test_calc.py`); any other script, or code given with `-c`, runs none.
fn interpreted_test(prog: &str, args: &[String], offset: usize) -> Option<(Check, usize)> {
    let arg = |i: usize| args.get(i).map(String::as_str);
    // bun test / deno test / node --test.
    if matches!(prog, "bun" | "deno") && arg(0) == Some("test") {
        return Some((Check::Test, offset + 1));
    }
    if prog == "node" && arg(0) == Some("--test") {
        return Some((Check::Test, offset + 1));
    }
    let script = args.iter().position(|a| !a.starts_with('-'))?;
    if matches!(args.get(script).map(String::as_str), Some("-c")) {
        return None;
    }
    if !test_script(&args[script]) {
        return None;
    }
    // A runner script (`run_tests.sh billing`) is narrowed by its arguments; a test file
    // (`tests/test_calc.py`) is itself the narrowing.
    let from = if runner_script(&args[script]) {
        script + 1
    } else {
        script
    };
    Some((Check::Test, offset + from))
}

/// Whether the command is a test script run directly, by its path: ./run_tests.sh,
/// scripts/test.sh.
fn direct_test_script(words: &[String], prog: &str) -> bool {
    words
        .iter()
        .find(|w| !w.contains('='))
        .is_some_and(|w| w.contains('/') || w.contains('\\'))
        && test_script(prog)
        && (prog.ends_with(".sh") || prog.ends_with(".py") || !prog.contains('.'))
}

/// The build tools' table: what `cargo`, `go`, a package manager's script, a task runner's
/// target, `tsc`, a type checker or a linter checks.
fn tool_check(
    words: &[String],
    prog: &str,
    args: &[String],
    offset: usize,
) -> Option<(Check, usize)> {
    let arg = |i: usize| args.get(i).map(String::as_str);
    let sub = arg(0).unwrap_or("");
    match prog {
        "cargo" => match sub {
            "test" | "t" | "nextest" => {
                Some((Check::Test, offset + 1 + usize::from(arg(1) == Some("run"))))
            }
            "build" | "check" | "b" | "c" => Some((Check::Build, offset + 1)),
            "clippy" => Some((Check::Lint, offset + 1)),
            _ => None,
        },
        "go" => match sub {
            "test" => Some((Check::Test, offset + 1)),
            "build" | "vet" => Some((Check::Build, offset + 1)),
            _ => None,
        },
        "npm" | "yarn" | "pnpm" | "bun" => package_script(words, args, offset),
        "make" | "gmake" | "just" | "task" | "go-task" | "rake" | "gradle" | "gradlew" | "mvn"
        | "mvnw" | "sbt" | "lein" | "mix" | "dotnet" | "swift" | "stack" | "cabal" | "zig"
        | "ant" | "turbo" | "nx" | "lerna" | "invoke" | "poe" | "composer" | "melos" => {
            task_target(prog, args, words.len())
        }
        "tsc" => {
            if args.iter().any(|a| a == "--noEmit") {
                Some((Check::Types, words.len()))
            } else {
                Some((Check::Build, words.len()))
            }
        }
        "mypy" | "pyright" => Some((Check::Types, offset)),
        "eslint" | "ruff" | "flake8" | "pylint" | "golangci-lint" | "shellcheck" | "rubocop"
        | "clippy-driver" | "biome" => Some((Check::Lint, offset)),
        _ => None,
    }
}

/// A package manager's script (`npm test`, `pnpm run lint:ci`, `yarn typecheck`): what the
/// script's name says it checks.
fn package_script(words: &[String], args: &[String], offset: usize) -> Option<(Check, usize)> {
    let arg = |i: usize| args.get(i).map(String::as_str);
    let sub = arg(0).unwrap_or("");
    // `pnpm turbo run test`, `npx nx test`: a task runner run through the package
    // manager is judged as that runner.
    if matches!(sub, "turbo" | "nx" | "lerna") {
        return check_of(&words[offset..]).map(|(c, i)| (c, i + offset));
    }
    let script = if sub == "run" || sub == "run-script" {
        arg(1).unwrap_or("")
    } else {
        sub
    };
    let first = offset + 1 + usize::from(sub == "run" || sub == "run-script");
    if script == "test"
        || script == "t"
        || script.starts_with("test:")
        || script.starts_with("test-")
        || RUNNERS.contains(&script)
    {
        Some((Check::Test, first))
    } else if script == "build" {
        Some((Check::Build, first))
    } else if script == "lint" || script.starts_with("lint:") {
        Some((Check::Lint, first))
    } else if script == "typecheck" || script == "type-check" || script == "tsc" {
        Some((Check::Types, first))
    } else {
        None
    }
}

/// A task runner's or build tool's targets (`make test`, `gradle build`, `mix lint`): what they
/// check, with no argument narrowing it (`end`: the number of the command's words).
fn task_target(prog: &str, args: &[String], end: usize) -> Option<(Check, usize)> {
    let targets: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if targets.iter().any(|t| {
        TEST_TARGETS.contains(t)
            || t.starts_with("test-")
            || t.starts_with("test_")
            || t.ends_with("-test")
            || t.ends_with("test") && t.len() > 4
    }) {
        Some((Check::Test, end))
    } else if prog == "rake" && args.is_empty() {
        // Ruby projects' default rake task is their test suite.
        Some((Check::Test, end))
    } else if targets
        .iter()
        .any(|t| matches!(*t, "build" | "compile" | "package" | "all"))
        || (matches!(prog, "make" | "gmake") && targets.is_empty())
    {
        Some((Check::Build, end))
    } else if targets.contains(&"lint") {
        Some((Check::Lint, end))
    } else {
        None
    }
}

/// The words of a run's arguments that narrow it: names, paths, filters (lowercased, split at
/// non-alphanumerics); flags and their common values dropped.
fn scope_words(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if a.starts_with('-') {
            // Flags that take a value we do not want (`-j 4`, `--color always`); filters such as
            // `-k expr`, `-p pkg`, `--test name` keep theirs.
            skip_next = matches!(
                a.as_str(),
                "-j" | "--jobs"
                    | "--color"
                    | "--timeout"
                    | "-n"
                    | "--maxfail"
                    | "--reporter"
                    | "--features"
                    | "-F"
                    | "--target"
                    | "--manifest-path"
                    | "--config"
                    | "-c"
            );
            continue;
        }
        if a.starts_with('>') || a.starts_with('<') || a.contains("&1") || a == "2" {
            continue;
        }
        for w in super::words::words(a) {
            if !matches!(w.as_str(), "py" | "js" | "ts" | "rs" | "sh" | "go" | "rb") {
                out.push(w);
            }
        }
    }
    out
}

/// Results that say a command did not run to its end: nothing about the check itself.
fn interrupted(a: &Action) -> bool {
    let o = a.output.to_lowercase();
    [
        "timed out",
        "interrupted",
        "doesn't want to proceed",
        "tool use was rejected",
        "running in background",
        "permission",
        "was blocked",
    ]
    .iter()
    .any(|m| o.contains(m))
}

/// The runs of checks among `actions` (oldest first).
pub(crate) fn runs(actions: &[Action]) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    for (at, a) in actions.iter().enumerate() {
        if !is_shell(&a.tool) {
            continue;
        }
        let simple = simple_commands(&a.summary);
        let reported = report(&a.output);
        for (i, s) in simple.iter().enumerate() {
            let Some((check, first)) = check_of(&s.words) else {
                continue;
            };
            let mut outcome = status_outcome(a, &simple[i..]);
            // A test runner's own report wins over a status that is not its own, and names the
            // failure.
            if check == Check::Test
                && let Some((failed, line)) = &reported
            {
                outcome = reported_outcome(*failed, line, outcome);
            }
            out.push(Run {
                at,
                action: a,
                check,
                scope: scope_words(s.words.get(first..).unwrap_or(&[])),
                outcome,
                words: s.words.clone(),
            });
        }
        // A command no rule names, whose output is a test runner's report (`./ci`, `just`).
        if !out.iter().any(|r| r.at == at)
            && let Some((failed, line)) = reported
            && simple.len() == 1
        {
            out.push(Run {
                at,
                action: a,
                check: Check::Test,
                scope: Vec::new(),
                outcome: if failed {
                    Outcome::Failed {
                        how: format!("reported \"{line}\""),
                    }
                } else if a.error {
                    Outcome::Unknown
                } else {
                    Outcome::Passed
                },
                words: simple[0].words.clone(),
            });
        }
    }
    out
}

/// How the first of `rest` (the simple commands of `a` from a check on) ended, by the action's
/// exit status, when that status is the check's own.
fn status_outcome(a: &Action, rest: &[Simple]) -> Outcome {
    // The exit status is this command's when nothing after it can change it: it is the
    // last, or a failure of it stops a `&&` chain whose status then is its own.
    let last = rest[0].then == Joiner::End;
    let chained = rest
        .iter()
        .all(|r| matches!(r.then, Joiner::And | Joiner::End));
    let failed_status = a.error || a.exit.is_some_and(|c| c != 0);
    let how = match a.exit {
        Some(c) => format!("exited {c}"),
        None => "failed".to_owned(),
    };
    if a.pending || interrupted(a) && failed_status {
        Outcome::Unknown
    } else if failed_status && last {
        Outcome::Failed { how }
    } else if !failed_status && chained {
        Outcome::Passed
    } else {
        Outcome::Unknown
    }
}

/// A test run's `outcome` by its status, with its runner's report (`failed`, and the report's
/// `line`) over it.
fn reported_outcome(failed: bool, line: &str, outcome: Outcome) -> Outcome {
    match (failed, &outcome) {
        (true, Outcome::Failed { how }) => Outcome::Failed {
            how: format!("{how}, reporting \"{line}\""),
        },
        (true, _) => Outcome::Failed {
            how: format!("reported \"{line}\""),
        },
        (false, Outcome::Failed { .. }) => outcome,
        (false, _) => Outcome::Passed,
    }
}

/// Programs and subcommands that may change files in the project: after a failed check, one of
/// these (or an edit tool) means the failure may be fixed.
pub(crate) fn may_write(a: &Action) -> bool {
    if is_edit(&a.tool) {
        return !a.error; // a pending edit may have been applied
    }
    if !is_shell(&a.tool) {
        return false;
    }
    let cmd = &a.summary;
    if cmd.contains('>') && !cmd.contains("2>&1") || cmd.contains(" >") {
        return true;
    }
    simple_commands(cmd).iter().any(|s| {
        let (prog, args) = program(&s.words);
        let first = args.first().map(String::as_str).unwrap_or("");
        match prog {
            "sed" | "perl" => args
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("-pi")),
            "tee" | "mv" | "cp" | "rm" | "patch" | "touch" | "mkdir" | "rsync" | "install"
            | "ln" | "truncate" | "dd" | "unzip" | "tar" | "cargo-fix" | "black" | "prettier"
            | "gofmt" | "rustfmt" | "isort" | "autopep8" => true,
            "git" => matches!(
                first,
                "apply"
                    | "am"
                    | "checkout"
                    | "restore"
                    | "stash"
                    | "reset"
                    | "merge"
                    | "rebase"
                    | "pull"
                    | "cherry-pick"
                    | "revert"
                    | "switch"
                    | "clean"
                    | "mv"
                    | "rm"
            ),
            "cargo" => matches!(first, "fmt" | "fix" | "add" | "remove" | "update"),
            "npm" | "yarn" | "pnpm" => {
                matches!(first, "install" | "i" | "add" | "remove" | "update")
                    || (first == "run"
                        && args
                            .get(1)
                            .is_some_and(|s| s.contains("fix") || s.contains("format")))
            }
            "ruff" | "eslint" => args.iter().any(|a| a == "--fix" || a == "format"),
            p if INTERPRETERS.contains(&p) => {
                // A script that is no test run may write anything.
                check_of(&s.words).is_none()
            }
            _ => false,
        }
    })
}

/// A git subcommand's runs among the actions (`commit`, `push`): index, action, and whether it
/// failed in earnest ("nothing to commit, working tree clean" means everything was committed).
pub(crate) fn git_runs<'a>(actions: &'a [Action], sub: &str) -> Vec<(usize, &'a Action, GitEnd)> {
    let mut out = Vec::new();
    for (at, a) in actions.iter().enumerate() {
        if !is_shell(&a.tool) {
            continue;
        }
        let simple = simple_commands(&a.summary);
        let Some(pos) = simple.iter().position(|s| {
            let (prog, args) = program(&s.words);
            prog == "git" && git_sub(args) == Some(sub)
        }) else {
            continue;
        };
        let output = a.output.to_lowercase();
        let failed = a.error || a.exit.is_some_and(|c| c != 0);
        let own = simple[pos].then == Joiner::End;
        let end = if a.pending {
            GitEnd::Unknown
        } else if !failed {
            GitEnd::Done
        } else if output.contains("nothing to commit")
            || output.contains("everything up-to-date")
            || output.contains("everything up to date")
        {
            GitEnd::NothingToDo
        } else if never_ran(a) {
            GitEnd::NotRun
        } else if own && !interrupted(a) {
            GitEnd::Failed
        } else {
            GitEnd::Unknown
        };
        out.push((at, a, end));
    }
    out
}

/// How a `git commit` or `git push` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GitEnd {
    /// It succeeded.
    Done,
    /// It had nothing to do (all committed, already pushed).
    NothingToDo,
    /// It failed, and its status is its own.
    Failed,
    /// It never ran: the user rejected the call, or the client blocked it. Nothing of it
    /// happened, as when it fails.
    NotRun,
    /// It failed, but the status may be another command's, or it was interrupted.
    Unknown,
}

/// Whether the call never ran at all: rejected by the user, or blocked by the client before it
/// started (unlike a timeout or an interruption, which may leave part of it done).
fn never_ran(a: &Action) -> bool {
    let o = a.output.to_lowercase();
    a.error
        && [
            "doesn't want to proceed",
            "tool use was rejected",
            "was blocked",
        ]
        .iter()
        .any(|m| o.contains(m))
}

/// The git subcommand, after global options (`git -C dir commit`).
fn git_sub(args: &[String]) -> Option<&str> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if matches!(a.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return Some(a.as_str());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(cmd: &str, exit: Option<i32>, output: &str) -> Action {
        Action {
            tool: "Bash".into(),
            summary: cmd.into(),
            error: exit.is_some_and(|c| c != 0),
            count: 1,
            exit,
            output: output.into(),
            pending: false,
        }
    }

    fn one(a: Action) -> Option<(Check, Vec<String>, Outcome)> {
        let actions = [a];
        runs(&actions)
            .into_iter()
            .next()
            .map(|r| (r.check, r.scope, r.outcome))
    }

    #[test]
    fn a_command_that_mentions_a_runner_runs_none() {
        assert!(one(sh("grep -rn \"cargo test\" docs/", Some(1), "")).is_none());
        assert!(one(sh("git commit -m 'ignore .pytest_cache'", Some(1), "")).is_none());
        assert!(one(sh("echo run pytest later", None, "")).is_none());
        assert!(one(sh("cat run_tests.sh", None, "")).is_none());
    }

    #[test]
    fn the_projects_own_test_scripts_are_test_runs() {
        let (check, scope, outcome) = one(sh(
            "sh run_tests.sh billing",
            Some(101),
            "running 4 tests\n…\ntest result: FAILED. 3 passed; 1 failed; 0 ignored",
        ))
        .unwrap();
        assert_eq!((check, scope), (Check::Test, vec!["billing".to_owned()]));
        assert!(
            matches!(outcome, Outcome::Failed { how } if how.contains("exited 101") && how.contains("1 failed"))
        );
        for cmd in [
            "./run_tests.sh",
            "python3 tests/test_calc.py",
            "make check",
            "npm test",
            "npm run test:unit",
            "bash scripts/test.sh",
            "cd app && pytest -q",
            "uv run pytest tests/",
        ] {
            assert_eq!(
                one(sh(cmd, Some(1), "")).map(|r| r.0),
                Some(Check::Test),
                "{cmd}"
            );
        }
    }

    #[test]
    fn a_runner_piped_into_another_program_is_judged_by_its_report() {
        let (_, _, o) = one(sh(
            "cargo test 2>&1 | tail -5",
            Some(0),
            "test result: FAILED. 10 passed; 1 failed",
        ))
        .unwrap();
        assert!(matches!(o, Outcome::Failed { .. }), "{o:?}");
        let (_, _, o) = one(sh("cargo test | grep foo", Some(1), "")).unwrap();
        assert_eq!(o, Outcome::Unknown);
        let (_, _, o) = one(sh("cargo test && cargo clippy", Some(1), "")).unwrap();
        assert_eq!(o, Outcome::Unknown);
        let (_, _, o) = one(sh("cargo test && echo ok", None, "")).unwrap();
        assert_eq!(o, Outcome::Passed);
    }

    #[test]
    fn runner_reports_are_read_by_their_shapes() {
        for (out, failed) in [
            ("=========== 1 failed, 10 passed in 0.12s ===========", true),
            ("============ 11 passed in 0.10s ============", false),
            ("Ran 3 tests in 0.001s\n\nFAILED (failures=1)", true),
            ("Ran 3 tests in 0.001s\n\nOK", false),
            ("Tests:       1 failed, 10 passed, 11 total", true),
            ("  10 passing (20ms)\n  1 failing", true),
            ("--- FAIL: TestAdd (0.00s)\nFAIL\tcalc\t0.01s", true),
            ("ok  \tcalc\t0.01s", false),
            ("test result: ok. 11 passed; 0 failed; 0 ignored", false),
        ] {
            assert_eq!(report(out).map(|r| r.0), Some(failed), "{out}");
        }
        assert_eq!(report("the deploy FAILED yesterday"), None);
        assert_eq!(report("grep: FAILED: no such file"), None);
    }

    #[test]
    fn interrupted_runs_say_nothing() {
        let (_, _, o) = one(sh("cargo test", None, "Command timed out after 2m 0.0s")).unwrap();
        // Not flagged failed: a timeout without an exit status is unknown, never a pass claim's
        // disproof.
        assert_ne!(
            o,
            Outcome::Failed {
                how: "failed".into()
            }
        );
    }

    #[test]
    fn writes_are_edit_tools_and_writing_commands() {
        assert!(may_write(&sh("sed -i 's/a/b/' src/calc.py", Some(0), "")));
        assert!(may_write(&sh("python3 fix_imports.py", Some(0), "")));
        assert!(may_write(&sh("echo x > f.txt", Some(0), "")));
        assert!(!may_write(&sh("cargo test 2>&1 | tail", Some(0), "")));
        assert!(!may_write(&sh("python3 tests/test_calc.py", Some(1), "")));
        assert!(!may_write(&sh("git status", Some(0), "")));
    }

    #[test]
    fn nothing_to_commit_is_no_failed_commit() {
        let a = [
            sh(
                "git add -A && git commit -m 'x'",
                Some(1),
                "On branch main\nnothing to commit, working tree clean",
            ),
            sh("git commit -m y", Some(1), "pre-commit hook failed"),
            sh("git -C repo commit -am z", Some(0), "[main 1a2b3c] z"),
        ];
        let ends: Vec<GitEnd> = git_runs(&a, "commit").into_iter().map(|r| r.2).collect();
        assert_eq!(ends, [GitEnd::NothingToDo, GitEnd::Failed, GitEnd::Done]);
    }
}
