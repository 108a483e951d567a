//! The compaction summary read as the document it is: the `<analysis>` scratchpad dropped, the
//! `<summary>` taken out of its tags, its sections found by their headings and given a role
//! (`headings`), and its lines split into sentences that know where they stand and what in them
//! is quoted or code.
//!
//! Claude Code's summarizer writes nine numbered sections (Primary Request and Intent, Key
//! Technical Concepts, Files and Code Sections, Errors and fixes, Problem Solving, All user
//! messages, Pending Tasks, Current Work, Optional Next Step), in the conversation's language;
//! Codex writes a handoff with progress, context, what remains and references. Only the sections
//! that state the work's status can hold a claim; requests and the user's messages are quoted,
//! pending and next steps keep work open, and where no structure is recognised the judge says
//! less (see [`Shape`]).

use super::headings::{
    Heading, NINE, Role, SPAN_HEADINGS, heading, numbered_nine, role_of, sub_label,
};
use super::words::words;

/// How much structure the summary has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Sections recognised by their headings (Claude Code's nine, Codex's handoff, or others
    /// whose headings say what they hold).
    Sections,
    /// No recognised heading: prose, read with the same rules, claiming only what its sentences
    /// plainly say.
    Prose,
}

/// One sentence of the summary, with where it stands.
#[derive(Debug, Clone)]
pub(crate) struct Sentence {
    /// As written, one line, trimmed.
    pub text: String,
    /// Its text with quoted spans and inline code replaced by a space: what it says itself.
    pub own: String,
    /// The inline code spans in it (commands, paths), as written.
    pub code: Vec<String>,
    /// The spans it quotes, as written: someone's words, or an item's name ("The \"Add docs\"
    /// task is done").
    pub quoted: Vec<String>,
    /// Its own words as clauses (see `claims::clauses`), read once.
    pub clauses: Vec<Vec<String>>,
    /// The role of its section (or of the label it stands under).
    pub role: Role,
    /// The index of its line in the summary's lines (for "the next line says ...").
    pub line: usize,
    /// It is a list item whose label or mark says done ("- [x] ...", "✅ ...", "Status: done").
    pub marked_done: bool,
    /// It is a list item whose label or mark says open ("- [ ] ...", "TODO: ...").
    pub marked_open: bool,
}

/// The summary as a document.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// How much structure was recognised.
    pub shape: Shape,
    /// Its sentences outside code blocks and block quotes, in order.
    pub sentences: Vec<Sentence>,
    /// Each section's role and its body's lines (trimmed, code and quotes included), in order:
    /// for claims a whole section makes ("Pending Tasks: None").
    pub sections: Vec<(Role, Vec<String>)>,
    /// The whole text the summary gives the model (analysis dropped, tags removed).
    pub text: String,
    /// It summarizes the conversation up to a point, and newer messages follow it verbatim
    /// (Claude Code's precomputed summary: sections "Work Completed" and "Context for
    /// Continuing Work"): its claims describe the record up to that point, not its end.
    pub covers_a_span: bool,
}

/// The text of the summary the model continues from: without the `<analysis>` scratchpad
/// (Claude Code strips it), out of its `<summary>` tags, without a leading "Summary:".
pub(crate) fn body(raw: &str) -> String {
    let mut s = raw.to_owned();
    while let Some(start) = s.find("<analysis>") {
        let end = s[start..]
            .find("</analysis>")
            .map(|e| start + e + "</analysis>".len())
            .or_else(|| s[start..].find("<summary>").map(|e| start + e))
            .unwrap_or(s.len());
        s.replace_range(start..end, "");
    }
    if let Some(start) = s.find("<summary>") {
        let inner = &s[start + "<summary>".len()..];
        let inner = inner.find("</summary>").map_or(inner, |e| &inner[..e]);
        s = inner.to_owned();
    }
    let t = s.trim_start();
    let t = t.strip_prefix("Summary:").unwrap_or(t);
    t.trim().to_owned()
}

/// Reads `raw` as a document.
pub(crate) fn read(raw: &str) -> Document {
    let text = body(raw);
    read_lines(&text, None).unwrap_or_default().document(text)
}

/// [`read`], if it is done before `deadline` (`None` when it passed first).
pub(crate) fn read_within(raw: &str, deadline: super::Deadline) -> Option<Document> {
    let text = body(raw);
    Some(read_lines(&text, deadline)?.document(text))
}

/// Reads the lines of `text` (the summary's [`body`]) until `deadline`.
fn read_lines(text: &str, deadline: super::Deadline) -> Option<Found> {
    let mut reader = Reader::new(numbered_nine(text, deadline)?);
    for (i, line) in text.lines().enumerate() {
        if super::late(deadline) {
            return None;
        }
        reader.line(i, line);
    }
    Some(reader.found())
}

/// What a [`Reader`] found, no longer borrowing the text.
#[derive(Default)]
struct Found {
    sentences: Vec<Sentence>,
    sections: Vec<(Role, Vec<String>)>,
    recognised: usize,
    covers_a_span: bool,
}

impl Found {
    fn document(self, text: String) -> Document {
        Document {
            shape: if self.recognised > 0 {
                Shape::Sections
            } else {
                Shape::Prose
            },
            sentences: self.sentences,
            sections: self.sections,
            text,
            covers_a_span: self.covers_a_span,
        }
    }
}

/// A summary being read line by line: where the reading stands, and what it has found.
struct Reader<'t> {
    /// The sentences read ([`Document::sentences`]).
    sentences: Vec<Sentence>,
    /// The sections read ([`Document::sections`]).
    sections: Vec<(Role, Vec<String>)>,
    /// The role of the section read.
    role: Role,
    /// A label inside the section ("Remaining:") and the indentation it stands at.
    sub: Option<(Role, usize)>,
    /// How many headings were given a role.
    recognised: usize,
    /// An open code block: its fence, and how many blocks with a language tag opened inside it (a
    /// Markdown file shown in the summary holds fences of its own).
    fence: Option<(&'t str, usize)>,
    /// A heading only the summary of a span has was read ([`Document::covers_a_span`]).
    covers_a_span: bool,
    /// The last list item's indentation and its first sentence: a status label nested under it
    /// ("- Export the hook\n  - status: done") says its state.
    parent: Option<(usize, usize)>,
    /// The top-level headings are numbered as Claude Code's nine ([`numbered_nine`]).
    numbered_nine: bool,
}

impl<'t> Reader<'t> {
    /// What was read.
    fn found(self) -> Found {
        Found {
            sentences: self.sentences,
            sections: self.sections,
            recognised: self.recognised,
            covers_a_span: self.covers_a_span,
        }
    }

    fn new(numbered_nine: bool) -> Self {
        Reader {
            sentences: Vec::new(),
            sections: Vec::new(),
            role: Role::Unknown,
            sub: None,
            recognised: 0,
            fence: None,
            covers_a_span: false,
            parent: None,
            numbered_nine,
        }
    }

    /// Reads the summary's `i`th line.
    fn line(&mut self, i: usize, line: &'t str) {
        let trimmed = line.trim();
        if self.in_code_block(trimmed) || trimmed.is_empty() {
            return;
        }
        match heading(line) {
            Some(h) => self.heading(i, &h),
            None => self.body_line(i, line),
        }
    }

    /// Whether a line (trimmed) opens, closes or stands in a code block: it is kept in its
    /// section's body, and holds no sentences.
    fn in_code_block(&mut self, trimmed: &'t str) -> bool {
        if let Some((f, depth)) = self.fence {
            if trimmed.starts_with(f) {
                let tagged = trimmed[3..]
                    .trim()
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric);
                self.fence = match (tagged, depth) {
                    (true, _) => Some((f, depth + 1)),
                    (false, 0) => None,
                    (false, _) => Some((f, depth - 1)),
                };
            }
            self.keep(trimmed);
            return true;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.fence = Some((&trimmed[..3], 0));
            self.keep(trimmed);
            return true;
        }
        false
    }

    /// A heading at line `i` starts a section, with the role its words or its number give it.
    fn heading(&mut self, i: usize, h: &Heading) {
        let lower = h.title.to_lowercase();
        self.covers_a_span |= SPAN_HEADINGS.iter().any(|t| lower.contains(t));
        let by_words = role_of(&h.title);
        let by_number = h
            .number
            .filter(|n| self.numbered_nine && (1..=9).contains(n))
            .map(|n| NINE[n - 1]);
        if let Some(r) = by_words.or(by_number) {
            self.role = r;
            self.recognised += 1;
        } else {
            self.role = Role::Unknown;
        }
        self.sub = None;
        self.parent = None;
        self.sections.push((self.role, Vec::new()));
        if h.rest.is_empty() {
            return;
        }
        // "Pending Tasks: None": the rest is the section's first line.
        let rest = h.rest;
        self.keep(rest);
        push_sentences(&mut self.sentences, rest, self.role, i);
    }

    /// A line at `i` inside a section (or before the first): a label that changes the role of
    /// what stands under it, a block quote, or a line of sentences.
    fn body_line(&mut self, i: usize, line: &str) {
        let trimmed = line.trim();
        let indent = line.len() - line.trim_start().len();
        if self.sub.is_some_and(|(_, at)| indent <= at) {
            self.sub = None;
        }
        if let Some(r) = sub_label(line) {
            self.sub = Some((r, indent));
            self.keep(trimmed);
            return;
        }
        if self.sections.is_empty() {
            self.sections.push((Role::Unknown, Vec::new()));
        }
        self.keep(trimmed);
        if trimmed.starts_with('>') {
            return; // a block quote: someone's words, or a log
        }
        let here = self.sub.map_or(self.role, |(r, _)| r);
        let item = trimmed.starts_with(['-', '*', '+', '•']);
        if let Some((at, first)) = self.parent
            && item
            && indent > at
            && status_label_done(trimmed)
        {
            for s in &mut self.sentences[first..] {
                s.marked_done = true;
            }
        } else if item {
            self.parent = Some((indent, self.sentences.len()));
        } else {
            self.parent = None;
        }
        push_sentences(&mut self.sentences, line, here, i);
    }

    /// Keeps a line in the body of the section read.
    fn keep(&mut self, line: &str) {
        if let Some(s) = self.sections.last_mut() {
            s.1.push(line.to_owned());
        }
    }
}

/// Marks at a list item's start that say done or open.
const DONE_MARKS: &[&str] = &["[x]", "[X]", "✅", "✔", "☑", "✓", "~~"];
const OPEN_MARKS: &[&str] = &["[ ]", "☐", "⏳", "🔄", "❌", "[~]"];

/// The labels of a status line ("status: done", "状态：完成").
const STATUS_LABELS: &[&str] = &[
    "status",
    "state",
    "estado",
    "statut",
    "stato",
    "stand",
    "situação",
    "状态",
    "状態",
    "상태",
    "进度",
    "進捗",
];

/// Whether a list item is a status label alone that says done ("- status: done", "- 状態：完了",
/// "- Estado: hecho ✅"): said of the item it is nested under.
fn status_label_done(line: &str) -> bool {
    let item = line.trim().trim_start_matches(['-', '*', '+', '•', ' ']);
    let Some((label, value)) = item.split_once(':').or_else(|| item.split_once('：')) else {
        return false;
    };
    let label = label.trim().trim_matches(['*', '_']).to_lowercase();
    let value = value
        .trim()
        .trim_matches(|c: char| {
            matches!(c, '*' | '_' | '.' | '。' | '!' | ' ')
                || DONE_MARKS.iter().any(|m| m.starts_with(c))
        })
        .trim()
        .to_lowercase();
    let done = (value.is_empty() && DONE_MARKS.iter().any(|m| item.contains(m)))
        || super::lexicon::DONE.contains(&value.as_str())
        || super::lexicon::DONE_UNSPACED.contains(&value.as_str());
    STATUS_LABELS.contains(&label.as_str()) && done
}

/// Whether a table row's last cell says done ("| Run `mix test` | ✅ |"): a mark, alone or with
/// a done or pass word.
fn row_marked_done(line: &str) -> bool {
    let t = line.trim();
    if !t.starts_with('|') {
        return false;
    }
    let Some(last) = t.trim_end_matches('|').rsplit('|').next() else {
        return false;
    };
    let cell = last.trim();
    let Some(m) = DONE_MARKS[..DONE_MARKS.len() - 1]
        .iter()
        .find(|m| cell.starts_with(**m))
    else {
        return false;
    };
    let rest = cell[m.len()..].trim().to_lowercase();
    rest.is_empty()
        || super::lexicon::DONE.contains(&rest.as_str())
        || super::lexicon::PASS.contains(&rest.as_str())
}

/// Splits `line` into sentences with their role.
fn push_sentences(out: &mut Vec<Sentence>, line: &str, role: Role, at: usize) {
    let item = line.trim().trim_start_matches(['-', '*', '+', '•', ' ']);
    let marked_done = DONE_MARKS
        .iter()
        .any(|m| item.starts_with(m) || line.contains(&format!(" {m}")) && item.ends_with(m))
        || label_says(item, true)
        || row_marked_done(line);
    let marked_open = OPEN_MARKS.iter().any(|m| item.starts_with(m)) || label_says(item, false);
    for piece in split_sentences(line.trim()) {
        let (own, code, quoted) = own_words(piece);
        if words(&own).is_empty() && code.is_empty() {
            continue;
        }
        out.push(Sentence {
            text: crate::text::folded_line(piece.trim(), 400),
            clauses: super::words::clauses(&own),
            own,
            code,
            quoted,
            role,
            line: at,
            marked_done,
            marked_open,
        });
    }
}

/// Whether a list item carries a status label that says done (`done`) or open: "Status: done",
/// "(completed)", "— DONE", "TODO:".
fn label_says(item: &str, done: bool) -> bool {
    let lower = item.to_lowercase();
    let done_words = [
        "done",
        "complete",
        "completed",
        "finished",
        "fixed",
        "resolved",
    ];
    let open_words = [
        "pending",
        "todo",
        "in progress",
        "open",
        "not started",
        "blocked",
    ];
    let list: &[&str] = if done { &done_words } else { &open_words };
    let labelled = |w: &str| {
        lower.contains(&format!("status: {w}"))
            || lower.contains(&format!("status**: {w}"))
            || lower.contains(&format!("({w})"))
            || lower.contains(&format!("[{w}]"))
            || lower.ends_with(&format!("— {w}"))
            || lower.ends_with(&format!("- {w}"))
            || lower.ends_with(&format!(": {w}"))
            || lower.starts_with(&format!("{w}:"))
    };
    list.iter().any(|w| labelled(w))
}

/// A line cut at sentence ends (`.`, `!`, `?`, `;`, `。`, `！`, `？`, `；`), never inside
/// backticks or paired quotation marks, so `cargo test; echo` or a quoted instruction with a `;`
/// stays whole.
pub(crate) fn split_sentences(line: &str) -> Vec<&str> {
    let straight = line.matches('"').count().is_multiple_of(2);
    let mut out = Vec::new();
    let mut start = 0;
    let (mut in_code, mut in_quote, mut curly) = (false, false, 0i32);
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '"' if straight && !in_code => in_quote = !in_quote,
            '\u{201C}' | '「' | '『' | '«' | '„' if !in_code => curly += 1,
            '\u{201D}' | '」' | '』' | '»' if !in_code => curly = (curly - 1).max(0),
            '.' | '!' | '?' | ';'
                if !in_code
                    && !in_quote
                    && curly == 0
                    && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) =>
            {
                out.push(&line[start..=i]);
                start = i + 1;
            }
            '。' | '！' | '？' | '；' if !in_code && !in_quote && curly == 0 => {
                let end = i + c.len_utf8();
                out.push(&line[start..end]);
                start = end;
            }
            _ => {}
        }
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// What a sentence says itself: quoted spans (someone's words) and inline code replaced by a
/// space, and the code spans apart (the commands and paths it names). An unpaired mark quotes
/// nothing.
pub(crate) fn own_words(s: &str) -> (String, Vec<String>, Vec<String>) {
    let mut own = String::with_capacity(s.len());
    let mut code = Vec::new();
    let mut quoted: Vec<String> = Vec::new();
    let mut quote_start: Option<usize> = None;
    let straight_paired = s.matches('"').count().is_multiple_of(2);
    let chars = s.char_indices().peekable();
    let mut quote_depth = 0i32;
    let mut in_straight = false;
    let mut code_start: Option<usize> = None;
    for (i, c) in chars {
        if let Some(st) = code_start {
            if c == '`' {
                code.push(s[st..i].to_owned());
                code_start = None;
                own.push(' ');
            }
            continue;
        }
        match c {
            '`' => code_start = Some(i + 1),
            '"' if straight_paired => {
                in_straight = !in_straight;
                if in_straight {
                    quote_start = Some(i + 1);
                } else if let Some(st) = quote_start.take() {
                    quoted.push(s[st..i].to_owned());
                }
                own.push(' ');
            }
            '\u{201C}' | '「' | '『' | '«' | '„' => {
                if quote_depth == 0 {
                    quote_start = Some(i + c.len_utf8());
                }
                quote_depth += 1;
                own.push(' ');
            }
            '\u{201D}' | '」' | '』' | '»' if quote_depth > 0 => {
                quote_depth -= 1;
                if quote_depth == 0
                    && let Some(st) = quote_start.take()
                {
                    quoted.push(s[st..i].to_owned());
                }
                own.push(' ');
            }
            c if !in_straight && quote_depth == 0 => own.push(c),
            _ => {}
        }
    }
    if let Some(st) = code_start {
        // An unclosed backtick: the rest is text.
        own.push_str(&s[st..]);
    }
    // Paths and identifiers written bare (`tests/test_retry.py::test_retries_then_succeeds`) are
    // names, not words of the sentence: "succeeds" in a test's name says nothing.
    let mut kept = String::with_capacity(own.len());
    for token in own.split_inclusive(char::is_whitespace) {
        let t = token
            .trim()
            .trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | ':' | '.' | '*' | '\''));
        if is_name(t) {
            code.push(t.to_owned());
            kept.push(' ');
        } else {
            kept.push_str(token);
        }
    }
    (kept, code, quoted)
}

/// Whether a bare token is a path or an identifier: a slash, `::`, an underscore between
/// letters, or a file name with an extension.
fn is_name(t: &str) -> bool {
    if t.len() < 3 || t.contains("://") {
        return t.contains("://");
    }
    let ext = t.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=6).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_lowercase())
            && stem
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
    });
    t.contains('/')
        || t.contains("::")
        || t.contains('\\')
        || ext
        || (t.contains('_') && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NINE_SECTIONS: &str = "<analysis>\nThe tests all pass, I think.\n</analysis>\n<summary>\n1. Primary Request and Intent:\n   The user asked: \"Stop after the tests pass; then write the changelog\".\n\n2. Key Technical Concepts:\n   - Rust, cargo\n\n3. Files and Code Sections:\n   - `src/calc.rs`\n      - Modified `add` to return a+b\n      ```rust\n      fn add(a: i32, b: i32) -> i32 { a + b } // all tests pass\n      ```\n\n4. Errors and fixes:\n   - test_add failed; fixed by correcting the sign.\n\n5. Problem Solving:\n   All tests pass now.\n\n6. All user messages:\n   - \"Stop after the tests pass; then write the changelog\"\n\n7. Pending Tasks:\n   - Write the changelog\n\n8. Current Work:\n   Ran `cargo test`: 11 tests pass.\n\n9. Optional Next Step:\n   Write the changelog.\n</summary>";

    fn roles_of(doc: &Document, needle: &str) -> Vec<Role> {
        doc.sentences
            .iter()
            .filter(|s| s.text.contains(needle))
            .map(|s| s.role)
            .collect()
    }

    #[test]
    fn claude_nine_sections_get_their_roles_and_the_analysis_is_dropped() {
        let doc = read(NINE_SECTIONS);
        assert_eq!(doc.shape, Shape::Sections);
        assert!(!doc.text.contains("I think"));
        assert_eq!(roles_of(&doc, "The user asked"), [Role::Request]);
        assert_eq!(roles_of(&doc, "Modified `add`"), [Role::Files]);
        assert_eq!(roles_of(&doc, "All tests pass now"), [Role::Status]);
        assert_eq!(
            roles_of(&doc, "Write the changelog"),
            [Role::Pending, Role::Next]
        );
        assert_eq!(roles_of(&doc, "11 tests pass"), [Role::Status]);
        // Code is never a sentence.
        assert!(roles_of(&doc, "fn add").is_empty());
    }

    #[test]
    fn translated_nine_sections_get_their_roles_by_number() {
        let zh = "1. 主要请求和意图：\n   用户要求修复加法。\n2. 关键技术概念：\n   - Rust\n3. 文件和代码部分：\n   - src/calc.rs\n4. 错误与修复：\n   - 无\n5. 问题解决：\n   测试全部通过。\n6. 所有用户消息：\n   - 修复加法\n7. 待办任务：\n   - 写更新日志\n8. 当前工作：\n   已完成修复。\n9. 可选的下一步：\n   写更新日志。";
        let doc = read(zh);
        assert_eq!(doc.shape, Shape::Sections);
        assert_eq!(roles_of(&doc, "测试全部通过"), [Role::Status]);
        assert_eq!(roles_of(&doc, "写更新日志"), [Role::Pending, Role::Next]);
        assert_eq!(roles_of(&doc, "用户要求"), [Role::Request]);
    }

    #[test]
    fn numbered_recap_lines_are_list_items_not_headings() {
        let doc = read("Current Work:\n1. Added the retry logic.\n2. Updated the docs.\n");
        assert_eq!(roles_of(&doc, "Added the retry"), [Role::Status]);
        assert_eq!(roles_of(&doc, "Updated the docs"), [Role::Status]);
    }

    #[test]
    fn a_label_inside_a_section_changes_the_role_of_what_stands_under_it() {
        let doc = read("## Progress\n**Completed:**\n- parser\n**Remaining:**\n- renderer\n");
        assert_eq!(roles_of(&doc, "parser"), [Role::Status]);
        assert_eq!(roles_of(&doc, "renderer"), [Role::Pending]);
    }

    #[test]
    fn a_heading_with_its_content_on_the_same_line() {
        let doc = read("Pending Tasks: None\nCurrent Work: finished the parser.");
        assert_eq!(doc.sections[0], (Role::Pending, vec!["None".to_owned()]));
        assert_eq!(roles_of(&doc, "finished the parser"), [Role::Status]);
    }

    #[test]
    fn prose_has_no_sections() {
        let doc = read("I fixed the parser. All tests pass.");
        assert_eq!(doc.shape, Shape::Prose);
        assert_eq!(doc.sentences.len(), 2);
        assert_eq!(doc.sentences[0].role, Role::Unknown);
    }

    #[test]
    fn quoted_spans_and_code_are_not_the_sentences_own_words() {
        let (own, code, quoted) =
            own_words("Ran `cargo test` as the user said \"make the tests pass\".");
        assert!(
            !own.contains("cargo") && !own.contains("make the tests"),
            "{own}"
        );
        assert_eq!(code, ["cargo test"]);
        assert_eq!(quoted, ["make the tests pass"]);
        // A stray mark quotes nothing.
        let (own, _, _) = own_words("the 12\" screen works");
        assert!(own.contains("screen"), "{own}");
    }

    #[test]
    fn bare_paths_and_identifiers_are_names_not_words() {
        let (own, code, _) =
            own_words("11 pass, 1 fails (tests/test_retry.py::test_retries_then_succeeds).");
        assert!(!own.contains("succeeds"), "{own}");
        assert_eq!(code, ["tests/test_retry.py::test_retries_then_succeeds"]);
        let (own, _, _) = own_words("Updated calc.py and the README.");
        assert!(!own.contains("calc") && own.contains("README"), "{own}");
    }

    #[test]
    fn a_quoted_instruction_with_a_semicolon_stays_one_sentence() {
        assert_eq!(
            split_sentences("The user said \"Stop after the tests pass; then write it\". Done."),
            [
                "The user said \"Stop after the tests pass; then write it\".",
                " Done."
            ]
        );
        assert_eq!(
            split_sentences("测试通过。已提交。"),
            ["测试通过。", "已提交。"]
        );
    }

    #[test]
    fn marks_and_labels_say_done_or_open() {
        let doc =
            read("## Status\n- [x] parser\n- [ ] renderer\n- docs — done\n- Status: pending\n");
        let marks: Vec<(bool, bool)> = doc
            .sentences
            .iter()
            .map(|s| (s.marked_done, s.marked_open))
            .collect();
        assert_eq!(
            marks,
            [(true, false), (false, true), (true, false), (false, true)]
        );
    }
}
