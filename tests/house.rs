//! The house keeps its shape (issues #42, #49): at most 10 source files directly under `src/`,
//! no function outside tests over 80 lines, no file over 1,000 lines of non-test code, and no
//! import back up the pipeline (a stage names only its own stage and those before it, D057).
//! Measured on the source text with its comments, strings and character literals blanked out,
//! so a brace, an `fn` or a `crate::` inside them counts for nothing.

use std::path::{Path, PathBuf};

const MAX_FILES_AT_TOP: usize = 10;
const MAX_FUNCTION_LINES: usize = 80;
const MAX_NON_TEST_LINES: usize = 1000;

/// Each top-level module of `src/` and its stage (CLAUDE.md, "The pipeline"): a module may name
/// its own stage and those before it, never one after it. The shared ground (0) is below every
/// stage; `pipeline` (transcript -> extraction -> text) sits above `render`, below `store` and
/// `cmd`; `lib` and `main` are the crate's door, above everything. `proptesting` is the unit
/// tests' helper and is ground: it names none of the stages.
const STAGES: &[(&str, u8)] = &[
    ("json", 0),
    ("text", 0),
    ("snapshot", 0),
    ("platform", 0),
    ("proptesting", 0),
    ("input", 1),
    ("read", 2),
    ("extract", 3),
    ("corrections", 4),
    ("render", 5),
    ("pipeline", 6),
    ("store", 7),
    ("cmd", 8),
    ("lib", 9),
    ("main", 9),
];

fn stage(module: &str) -> Option<u8> {
    STAGES.iter().find(|(m, _)| *m == module).map(|&(_, s)| s)
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `code` with every comment, string and character literal replaced by spaces (newlines kept,
/// so line numbers stay right).
fn blanked(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    // Copies c[from..to] as spaces, keeping newlines.
    let blank = |out: &mut String, from: usize, to: usize| {
        for &ch in &c[from..to.min(c.len())] {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
    };
    let ident = |i: usize| i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    while i < c.len() {
        let rest = |k: usize| c.get(i + k).copied();
        let end = if c[i] == '/' && rest(1) == Some('/') {
            (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len())
        } else if c[i] == '/' && rest(1) == Some('*') {
            let mut depth = 0;
            let mut k = i;
            loop {
                if k + 1 >= c.len() {
                    break c.len();
                }
                if c[k] == '/' && c[k + 1] == '*' {
                    depth += 1;
                    k += 2;
                } else if c[k] == '*' && c[k + 1] == '/' {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break k;
                    }
                } else {
                    k += 1;
                }
            }
        } else if c[i] == 'r'
            && (!ident(i) || (i > 0 && c[i - 1] == 'b' && !ident(i - 1)))
            && matches!(rest(1), Some('"' | '#'))
        {
            // A raw string: r"..", r#".."#, br"..".
            let hashes = (i + 1..c.len()).take_while(|&k| c[k] == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body = i + 2 + hashes;
            (body..c.len())
                .find(|&k| c[k..].starts_with(&close))
                .map_or(c.len(), |k| k + close.len())
        } else if c[i] == '"' {
            let mut k = i + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            k + 1
        } else if c[i] == '\'' && rest(1) == Some('\\') {
            (i + 3..c.len()) // past the escaped character, which may be a quote
                .find(|&k| c[k] == '\'')
                .map_or(c.len(), |k| k + 1)
        } else if c[i] == '\'' && rest(2) == Some('\'') {
            i + 3 // 'x' (a lifetime 'a has no closing quote there)
        } else {
            out.push(c[i]);
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    out
}

/// The index of the brace closing the one at `open`.
fn closing(code: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn line_of(code: &[u8], at: usize) -> usize {
    code[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The line ranges (first, last) of `#[cfg(test)]` / `#[cfg(all(test, ..))]` modules.
fn test_modules(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("#[cfg(") {
        let attr_end = code[at..].find(']').map_or(code.len(), |k| at + k);
        let attr = &code[at..attr_end];
        let after = code[attr_end + 1..].trim_start();
        if !(attr == "#[cfg(test)" || attr.starts_with("#[cfg(all(test"))
            || !after.starts_with("mod ")
        {
            continue;
        }
        let item = code.len() - after.len();
        let Some(open) = code[item..].find(['{', ';']).map(|k| item + k) else {
            continue;
        };
        if bytes[open] == b'{' {
            out.push((line_of(bytes, at), line_of(bytes, closing(bytes, open))));
        }
    }
    out
}

/// Each function with a body: (name, first line, number of lines).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // a function pointer type, `fn(&str)`
        }
        // The body's brace, or the `;` of a declaration without one, outside the parentheses
        // and brackets of the signature.
        let mut depth = 0i32;
        let mut open = None;
        for (k, &b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(k);
                    break;
                }
                _ => {}
            }
        }
        if let Some(open) = open {
            let first = line_of(bytes, at);
            out.push((
                name,
                first,
                line_of(bytes, closing(bytes, open)) - first + 1,
            ));
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier starting at `at` (empty if none).
fn ident_at(code: &str, at: usize) -> &str {
    let len = code.as_bytes()[at..]
        .iter()
        .take_while(|&&b| is_ident(b))
        .count();
    &code[at..at + len]
}

/// The first name of each path in the group whose `{` is at `open`: `{a::b, c, d::{e, f}}`
/// gives a, c, d.
fn group_heads(code: &str, open: usize) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let close = closing(bytes, open);
    let mut out = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (k, &b) in bytes.iter().enumerate().take(close).skip(open + 1) {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => item_start = true,
            b if item_start && is_ident(b) => {
                item_start = false;
                out.push((k, ident_at(code, k)));
            }
            _ => {}
        }
    }
    out
}

/// The top-level modules that a file's code names, with their positions: each `crate::x` (and
/// each head of `crate::{x, y}`), and each `super::` chain that climbs to the crate root from
/// the file's module (`within`: its path under `src/`, e.g. `["read", "record", "codex"]`).
/// Inline modules (`mod imp { .. }`) are not counted in the climb, so a `super::` inside one
/// that stops below the root may be read as reaching it: only known modules are reported from
/// such chains.
fn named_modules<'a>(within: &[&str], code: &'a str) -> Vec<(usize, &'a str, bool)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let starts_path = |at: usize| at == 0 || !(is_ident(bytes[at - 1]) || bytes[at - 1] == b':');
    let push_heads = |out: &mut Vec<_>, at: usize, by_crate: bool| {
        if bytes.get(at) == Some(&b'{') {
            for (k, name) in group_heads(code, at) {
                out.push((k, name, by_crate));
            }
        } else {
            out.push((at, ident_at(code, at), by_crate));
        }
    };
    for (at, _) in code.match_indices("crate::") {
        if starts_path(at) && !(at > 0 && bytes[at - 1] == b'$') {
            push_heads(&mut out, at + "crate::".len(), true);
        }
    }
    for (at, _) in code.match_indices("super::") {
        if !starts_path(at) {
            continue;
        }
        let climbs = bytes[at..]
            .chunks(7)
            .take_while(|c| *c == b"super::")
            .count();
        if climbs == within.len() {
            push_heads(&mut out, at + climbs * 7, false);
        }
    }
    out
}

/// The file's imports back up the pipeline, and its names of no stage's module (an old
/// re-export from `lib.rs`, which the code must not go round by), outside its tests. `file` is
/// its path under `src/`; `code` its text as written.
fn arrows_back_up(file: &str, code: &str) -> Vec<String> {
    let mut within: Vec<&str> = file.trim_end_matches(".rs").split('/').collect();
    if within.last() == Some(&"mod") {
        within.pop();
    }
    if matches!(within.as_slice(), ["lib"] | ["main"]) {
        return Vec::new(); // the crate root: every module is below it
    }
    let Some(own) = stage(within[0]) else {
        return vec![format!(
            "src/{file}: no stage for `{}` (tests/house.rs STAGES)",
            within[0]
        )];
    };
    let code = blanked(code);
    let tests = test_modules(&code);
    let mut faults = Vec::new();
    for (at, name, by_crate) in named_modules(&within, &code) {
        let line = line_of(code.as_bytes(), at);
        if tests.iter().any(|&(a, b)| (a..=b).contains(&line)) || name.is_empty() {
            continue;
        }
        match stage(name) {
            Some(s) if s > own => faults.push(format!(
                "src/{file}:{line}: {} (stage {own}) imports `{name}` (stage {s})",
                within[0]
            )),
            None if by_crate => faults.push(format!(
                "src/{file}:{line}: `crate::{name}` is no stage's module (name the module)"
            )),
            _ => {}
        }
    }
    faults
}

#[test]
fn no_import_runs_back_up() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut faults = Vec::new();
    for path in &files {
        let name = path.strip_prefix(src()).unwrap().display().to_string();
        let name = name.replace('\\', "/");
        if name.ends_with("tests.rs") {
            continue; // all tests (`corrections/tests.rs`)
        }
        faults.extend(arrows_back_up(
            &name,
            &std::fs::read_to_string(path).unwrap(),
        ));
    }
    assert!(
        faults.is_empty(),
        "the stage order (CLAUDE.md, \"No import runs back up\"):\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_order_check_catches_an_import_back_up() {
    let code = "//! A reader that reaches for the store.\n\
        use crate::extract::Part; // crate::cmd in a comment counts for nothing\n\
        use crate::{input::config::Config, store::Store};\n\
        const S: &str = \"crate::render\";\n\
        fn f() { let _ = crate::render::TARGET; }\n\
        use crate::transcript::Limits;\n\
        #[cfg(test)]\n\
        mod tests {\n    use crate::cmd::run;\n}\n";
    assert_eq!(
        arrows_back_up("read/record/codex.rs", code),
        [
            "src/read/record/codex.rs:2: read (stage 2) imports `extract` (stage 3)",
            "src/read/record/codex.rs:3: read (stage 2) imports `store` (stage 7)",
            "src/read/record/codex.rs:5: read (stage 2) imports `render` (stage 5)",
            "src/read/record/codex.rs:6: `crate::transcript` is no stage's module (name the module)",
        ]
    );
    // `super::` chains that climb to the root count too; those that stay inside do not.
    assert_eq!(
        arrows_back_up(
            "input/client.rs",
            "use super::super::store::Store;\nuse super::config;\n"
        ),
        ["src/input/client.rs:1: input (stage 1) imports `store` (stage 7)"]
    );
    assert!(arrows_back_up("cmd/save.rs", "use crate::{input, store::Store};\n").is_empty());
}

#[test]
fn the_house_keeps_its_shape() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let top = files.iter().filter(|p| p.parent() == Some(&src())).count();
    let mut faults = Vec::new();
    if top > MAX_FILES_AT_TOP {
        faults.push(format!(
            "{top} files directly under src/ (at most {MAX_FILES_AT_TOP})"
        ));
    }
    for path in &files {
        let name = path.strip_prefix(src()).unwrap().display().to_string();
        let code = blanked(&std::fs::read_to_string(path).unwrap());
        let tests = test_modules(&code);
        let in_tests = |line: usize| tests.iter().any(|&(a, b)| (a..=b).contains(&line));
        // A file that is all tests (`corrections/tests.rs`) is named so.
        let test_file = name.ends_with("tests.rs") || name == "proptesting.rs";
        let lines = code.lines().count();
        let non_test = lines - (1..=lines).filter(|&l| in_tests(l)).count();
        if !test_file && non_test > MAX_NON_TEST_LINES {
            faults.push(format!("src/{name}: {non_test} lines of non-test code"));
        }
        for (f, first, len) in functions(&code) {
            if !test_file && !in_tests(first) && len > MAX_FUNCTION_LINES {
                faults.push(format!("src/{name}:{first}: fn {f} is {len} lines"));
            }
        }
    }
    assert!(
        faults.is_empty(),
        "the house's limits (CLAUDE.md):\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_measure_sees_through_comments_strings_and_nested_functions() {
    let code = blanked(
        "fn a() {\n    let s = \"fn b() { }\";\n    // fn c() {\n    let r = r#\"}\"#;\n    let q = '{';\n    fn inner<'x>(v: &'x str) -> &'x str {\n        v\n    }\n}\n/* fn d() { */\n#[cfg(test)]\nmod tests {\n    fn e() {}\n}\n",
    );
    let found = functions(&code);
    let names: Vec<(&str, usize, usize)> =
        found.iter().map(|(n, a, l)| (n.as_str(), *a, *l)).collect();
    assert_eq!(names, [("a", 1, 9), ("inner", 6, 3), ("e", 13, 1)]);
    assert_eq!(test_modules(&code), [(11, 14)]);
}
