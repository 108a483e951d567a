//! The house keeps its shape (issue #42): at most 10 source files directly under `src/`, no
//! function outside tests over 80 lines, no file over 1,000 lines of non-test code. Measured on
//! the source text with its comments, strings and character literals blanked out, so a brace or
//! an `fn` inside them counts for nothing.

use std::path::{Path, PathBuf};

const MAX_FILES_AT_TOP: usize = 10;
const MAX_FUNCTION_LINES: usize = 80;
const MAX_NON_TEST_LINES: usize = 1000;

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
