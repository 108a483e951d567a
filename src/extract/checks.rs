//! Which shell commands run a check (a test suite, a build, a lint, a type check), read from
//! their structure rather than their text: the program they run (wrappers such as `sudo`, `npx`,
//! `uv run` skipped), the project's own test entry point (`run_tests.sh`, `tests/test_x.py`), a
//! package manager's script or a task runner's target. A command that only mentions a runner
//! (`grep -rn "cargo test" docs/`) runs none.
//!
//! One classifier for every stage that needs it: the judge (`corrections::evidence`) reads the
//! runs of checks as evidence about the summary's claims, and the extraction can keep them for
//! the snapshot; it lives in the lower stage so that the judge may import it, never the reverse.

/// What a command checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// A test suite or part of one.
    Test,
    /// A build or compile.
    Build,
    /// A linter.
    Lint,
    /// A type checker.
    Types,
    /// The program itself run, to see it work: a dev server or app start (`npm start`, `cargo
    /// run`), a script run end to end (`python migrate.py`).
    Run,
}

impl Check {
    /// The noun a correction uses.
    pub fn noun(self) -> &'static str {
        match self {
            Check::Test => "test run",
            Check::Build => "build",
            Check::Lint => "lint run",
            Check::Types => "type check",
            Check::Run => "run",
        }
    }
}

/// How a command continues after one of its simple commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Joiner {
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
pub(crate) struct Simple {
    pub(crate) words: Vec<String>,
    pub(crate) then: Joiner,
}

/// A command line as its simple commands. The summary's command may be cut ("…") and shows its
/// newlines as `\n`; quotes protect separators inside them.
pub(crate) fn simple_commands(cmd: &str) -> Vec<Simple> {
    let cmd = cmd.replace("\\n", "\n");
    let mut split = Splitter::default();
    let mut chars = cmd.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(then) = split.char(c, &mut chars) {
            split.end_command(then);
        }
    }
    split.end_command(Joiner::End);
    split.out
}

/// A command line being split into simple commands, a character at a time.
#[derive(Default)]
struct Splitter {
    out: Vec<Simple>,
    words: Vec<String>,
    word: String,
    /// The quote open, if any.
    quote: Option<char>,
}

impl Splitter {
    /// One character (the next ones looked at for `&&`, `||`, `&>`); the joiner it is, if any.
    fn char(&mut self, c: char, next: &mut std::iter::Peekable<std::str::Chars>) -> Option<Joiner> {
        if let Some(q) = self.quote {
            if c == q {
                self.quote = None;
            } else {
                self.word.push(c);
            }
            return None;
        }
        match c {
            '\'' | '"' => self.quote = Some(c),
            '&' if next.peek() == Some(&'&') => {
                next.next();
                return Some(Joiner::And);
            }
            // `2>&1`, `&>file`, `>&2`: redirections, not separators.
            '&' if self.word.ends_with('>') || next.peek() == Some(&'>') => self.word.push(c),
            '|' if next.peek() == Some(&'|') => {
                next.next();
                return Some(Joiner::Other);
            }
            '|' => return Some(Joiner::Pipe),
            ';' | '\n' | '&' => return Some(Joiner::Other),
            c if c.is_whitespace() => self.end_word(),
            c => self.word.push(c),
        }
        None
    }

    fn end_word(&mut self) {
        if !self.word.is_empty() {
            self.words.push(std::mem::take(&mut self.word));
        }
    }

    /// The simple command so far ends, joined to the next by `then`.
    fn end_command(&mut self, then: Joiner) {
        self.end_word();
        if !self.words.is_empty() {
            self.out.push(Simple {
                words: std::mem::take(&mut self.words),
                then,
            });
        }
    }
}

/// The words of each simple command of `cmd`, as the judge's runs hold them.
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
pub(crate) fn program(words: &[String]) -> (&str, &[String]) {
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
pub(crate) const INTERPRETERS: &[&str] = &[
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
pub(crate) fn check_of(words: &[String]) -> Option<(Check, usize)> {
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
    let inline = args[..script]
        .iter()
        .any(|a| matches!(a.as_str(), "-c" | "-e" | "-m" | "--eval" | "-p"));
    if inline {
        return None;
    }
    if !test_script(&args[script]) {
        // Any other script file, run to see it work (`python migrate.py`, `node server.js`).
        return script_file(&args[script]).then_some((Check::Run, offset + script));
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

/// Whether an interpreter's argument is a script file (a path, or a name with a script's
/// extension), not a subcommand (`node --version`, `bun install`).
fn script_file(arg: &str) -> bool {
    let ext = arg.rsplit_once('.').map(|(_, e)| e);
    matches!(
        ext,
        Some("py" | "js" | "mjs" | "cjs" | "ts" | "mts" | "rb" | "sh" | "bash" | "pl" | "php")
    ) && !arg.contains("://")
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
            "run" | "r" => Some((Check::Run, offset + 1)),
            "test" | "t" | "nextest" => {
                Some((Check::Test, offset + 1 + usize::from(arg(1) == Some("run"))))
            }
            "build" | "check" | "b" | "c" => Some((Check::Build, offset + 1)),
            "clippy" => Some((Check::Lint, offset + 1)),
            _ => None,
        },
        "go" => match sub {
            "run" => Some((Check::Run, offset + 1)),
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
        "uvicorn" | "gunicorn" | "hypercorn" | "flask" | "streamlit" => Some((Check::Run, offset)),
        "rails" if matches!(sub, "s" | "server") => Some((Check::Run, offset + 1)),
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
    } else if matches!(
        script.split([':', '-']).next(),
        Some("start" | "dev" | "serve" | "preview")
    ) {
        Some((Check::Run, first))
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
