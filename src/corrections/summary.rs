//! The compaction summary read as the document it is: the `<analysis>` scratchpad dropped, the
//! `<summary>` taken out of its tags, its sections found by their headings and given a role, and
//! its lines split into sentences that know where they stand and what in them is quoted or code.
//!
//! Claude Code's summarizer writes nine numbered sections (Primary Request and Intent, Key
//! Technical Concepts, Files and Code Sections, Errors and fixes, Problem Solving, All user
//! messages, Pending Tasks, Current Work, Optional Next Step), in the conversation's language;
//! Codex writes a handoff with progress, context, what remains and references. Only the sections
//! that state the work's status can hold a claim; requests and the user's messages are quoted,
//! pending and next steps keep work open, and where no structure is recognised the judge says
//! less (see [`Shape`]).

use super::words::words;

/// What a part of the summary is for, from its heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// What the user asked or prefers (Primary Request and Intent, constraints): restates
    /// requests, claims nothing about the work's state.
    Request,
    /// The user's messages, quoted.
    UserMessages,
    /// Background: concepts, decisions, references, critical data, the environment.
    Background,
    /// Files and code sections: what was read or changed.
    Files,
    /// Where the work's state is stated: errors and fixes, problem solving, progress, current
    /// work, status, what was done.
    Status,
    /// Work still to do: pending tasks, remaining work, open questions.
    Pending,
    /// What comes next (Optional Next Step): future, quoting where the work stopped.
    Next,
    /// A summary with no headings (or text before the first): its role is unknown.
    Unknown,
}

impl Role {
    /// Whether a sentence here may claim a finished state: anywhere but the user's request and
    /// words and the background. A pending or next-step section holds claims too ("Pending Tasks:
    /// all done", "Next steps: verified with `dotnet test`, everything passes"); its
    /// instructions and plans are no assertions (see `claims::asserted`).
    pub(crate) fn states_status(self) -> bool {
        !matches!(self, Role::Request | Role::UserMessages | Role::Background)
    }

    /// Whether naming an item here keeps it open.
    pub(crate) fn keeps_open(self) -> bool {
        matches!(self, Role::Pending | Role::Next)
    }
}

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

/// Headings only the summary of a span has (Claude Code 2.1.3xx's prompt for a summary placed
/// before newer messages), and their usual translations.
const SPAN_HEADINGS: &[&str] = &[
    "work completed",
    "context for continuing work",
    "已完成的工作",
    "继续工作",
    "abgeschlossene arbeit",
    "weiterführen",
    "trabajo completado",
    "contexto para continuar",
    "完了した作業",
    "作業を続ける",
    "완료된 작업",
    "계속하기 위한",
];

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

/// Heading words that give a section its role, by language; the first role whose words a heading
/// holds wins, in this order (so "Pending requests" is pending, "All user messages" is messages).
const ROLE_WORDS: &[(Role, &[&str])] = &[
    (
        Role::Next,
        &[
            "다음 단계",
            "next step",
            "next steps",
            "next action",
            "下一步",
            "后续",
            "nächste",
            "次のステップ",
            "次の手順",
            "siguiente paso",
            "próximo paso",
            "próximos pasos",
            "siguientes pasos",
            "prochaines étapes",
            "prochaine étape",
            "próximos passos",
            "prossimi passi",
            "suggested next",
        ],
    ),
    (
        Role::Pending,
        &[
            "보류",
            "남은",
            "할 일",
            "미완료",
            "pending",
            "remaining",
            "todo",
            "to do",
            "to-do",
            "outstanding",
            "open item",
            "open task",
            "open question",
            "unfinished",
            "incomplete",
            "not done",
            "not yet",
            "left to do",
            "what remains",
            "still to",
            "upcoming",
            "follow-up",
            "follow up",
            "blocked",
            "blocker",
            "待办",
            "待处理",
            "未完成",
            "剩余",
            "待完成",
            "ausstehend",
            "offene",
            "offen",
            "verbleibend",
            "未完了",
            "残り",
            "保留",
            "残タスク",
            "pendiente",
            "restante",
            "por hacer",
            "lo que falta",
            "lo que queda",
            "reste à faire",
            "noch zu tun",
            "o que falta",
            "da fare",
        ],
    ),
    (
        Role::UserMessages,
        &[
            "사용자 메시지",
            "user message",
            "user's message",
            "messages from the user",
            "用户消息",
            "用户的消息",
            "所有用户",
            "nachrichten",
            "benutzernachricht",
            "ユーザーメッセージ",
            "ユーザーのメッセージ",
            "mensajes",
            "mensaje del usuario",
        ],
    ),
    (
        Role::Request,
        &[
            "요청",
            "의도",
            "목표",
            "제약",
            "mission",
            "request",
            "intent",
            "goal",
            "objective",
            "asked",
            "requirement",
            "constraint",
            "preference",
            "instruction",
            "请求",
            "意图",
            "需求",
            "目标",
            "要求",
            "约束",
            "anfrage",
            "absicht",
            "ziel",
            "anforderung",
            "vorgabe",
            "依頼",
            "要求",
            "意図",
            "目的",
            "制約",
            "solicitud",
            "intención",
            "objetivo",
            "petición",
            "requisito",
            "preferencia",
        ],
    ),
    (
        Role::Files,
        &[
            "reference",
            "pointer",
            "critical data",
            "参考",
            "参照",
            "참고",
            "referenz",
            "referencia",
            "파일",
            "코드",
            "file",
            "code section",
            "文件",
            "代码",
            "datei",
            "ファイル",
            "コード",
            "archivo",
            "código",
        ],
    ),
    (
        Role::Status,
        &[
            "오류",
            "수정",
            "문제",
            "진행",
            "현재",
            "상태",
            "완료",
            "작업",
            "error",
            "fix",
            "problem",
            "solving",
            "solution",
            "progress",
            "current",
            "status",
            "state",
            "done",
            "completed",
            "accomplish",
            "result",
            "changes made",
            "work",
            "错误",
            "修复",
            "问题",
            "进展",
            "当前",
            "状态",
            "完成",
            "fehler",
            "lösung",
            "problem",
            "fortschritt",
            "aktuell",
            "stand",
            "erledigt",
            "arbeit",
            "エラー",
            "修正",
            "問題",
            "進捗",
            "現在",
            "状態",
            "完了",
            "作業",
            "solución",
            "progreso",
            "actual",
            "estado",
            "completado",
            "trabajo",
        ],
    ),
    (
        Role::Background,
        &[
            "기술",
            "개념",
            "맥락",
            "concept",
            "technical",
            "decision",
            "data",
            "example",
            "context",
            "environment",
            "architecture",
            "background",
            "note",
            "caveat",
            "gotcha",
            "pitfall",
            "watch out",
            "heads-up",
            "heads up",
            "概念",
            "技术",
            "决策",
            "背景",
            "konzept",
            "technisch",
            "entscheidung",
            "hintergrund",
            "技術",
            "概念",
            "決定",
            "背景",
            "concepto",
            "técnic",
            "decisión",
            "contexto",
        ],
    ),
];

/// Claude Code's nine sections by number, for a summary whose headings are translated into a
/// language whose words [`ROLE_WORDS`] does not hold.
const NINE: [Role; 9] = [
    Role::Request,
    Role::Background,
    Role::Files,
    Role::Status,
    Role::Status,
    Role::UserMessages,
    Role::Pending,
    Role::Status,
    Role::Next,
];

/// The role a heading's words give it.
pub(crate) fn role_of(title: &str) -> Option<Role> {
    let t = title.to_lowercase();
    let len = t.chars().count();
    // A keyword of an unspaced script is found as a substring: only in a title about as short
    // as a heading ("待办任务"), not in a sentence that happens to hold its characters.
    let found = |w: &&str| {
        t.contains(w)
            && (w.is_ascii()
                || !w.chars().any(super::words::unspaced)
                || len <= w.chars().count() + 6)
    };
    ROLE_WORDS
        .iter()
        .find(|(_, ws)| ws.iter().any(found))
        .map(|(r, _)| *r)
}

/// A heading line: its number (a numbered top-level heading), its title, and the text after a
/// colon on the same line ("Pending Tasks: None").
#[derive(Debug, PartialEq, Eq)]
struct Heading<'a> {
    number: Option<usize>,
    title: String,
    rest: &'a str,
}

/// `line` as a section heading: a Markdown heading, a bold line, a numbered top-level title
/// (`3. Files and Code Sections:`), or a short label ending in a colon at the line's start. A
/// numbered line that reads as a sentence ("1. Added the retry") is a list item, not a heading.
fn heading(line: &str) -> Option<Heading<'_>> {
    // Indented, or a list item: inside a section.
    if line.starts_with([' ', '\t', '-', '+', '•', '>']) || line.starts_with("* ") {
        return None;
    }
    let t = line.trim_end();
    if let Some(h) = t.strip_prefix('#') {
        let title = h.trim_start_matches('#').trim();
        let (number, title) = split_number(title);
        return Some(Heading {
            number,
            title: clean_title(title),
            rest: "",
        });
    }
    let bold = t.starts_with("**") || t.starts_with("__");
    let (number, t) = split_number(t);
    // "**Title:**", "**Title**:", "Title:", "Title: rest".
    let (title, rest) = match t.find(':').or_else(|| t.find('：')) {
        Some(i) => {
            let colon = t[i..].chars().next().map_or(1, char::len_utf8);
            (
                &t[..i],
                t[i + colon..].trim().trim_start_matches("**").trim(),
            )
        }
        None => (t, ""),
    };
    let clean = clean_title(title);
    let unspaced = clean.chars().any(super::words::unspaced);
    // Words in a spaced script; characters, by about three to a word, in an unspaced one.
    let n = if unspaced {
        clean.chars().count().div_ceil(3)
    } else {
        clean.split_whitespace().count().max(1)
    };
    let short = n <= 8 && clean.chars().count() <= 60 && !clean.is_empty();
    let known = role_of(&clean).is_some();
    let colon = t.len() != title.len();
    let sentence_like = clean.ends_with(['.', '!', '?', '。']) || clean.contains(['`', '"']);
    if !short || sentence_like {
        return None;
    }
    let is_heading = if rest.is_empty() {
        // A line of its own: bold, or numbered or labelled with a colon, and known or short.
        (bold && (number.is_some() || colon || t.trim_end_matches(['*', '_']).len() < t.len()))
            || (colon && (known || number.is_some() || n <= 4))
            || (number.is_some() && known)
    } else {
        // A label with its content on the same line counts only when its words are a known
        // section's ("Pending Tasks: None"), at the top level.
        known && (number.is_some() || bold || n <= 4)
    };
    is_heading.then_some(Heading {
        number,
        title: clean,
        rest,
    })
}

/// A leading "3." or "3)" and the rest.
fn split_number(t: &str) -> (Option<usize>, &str) {
    let t = t.trim_start_matches(['*', '_']);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let rest = &t[digits..];
        if let Some(rest) = rest.strip_prefix(['.', ')']) {
            return (t[..digits].parse().ok(), rest.trim_start());
        }
    }
    (None, t)
}

fn clean_title(t: &str) -> String {
    t.trim()
        .trim_matches(['*', '_', ':', '：', ' '])
        .trim()
        .to_owned()
}

/// A label inside a section that changes what the lines under it are ("**Completed:**",
/// "- Remaining:", "Still to do:"): done, open, or neither.
fn sub_label(line: &str) -> Option<Role> {
    let t = line
        .trim()
        .trim_start_matches(['-', '*', '+', ' '])
        .trim_start_matches("**");
    let (label, rest) = t.split_once(':').or_else(|| t.split_once('：'))?;
    let label = label.trim().trim_matches(['*', '_']);
    if !rest.trim().trim_matches(['*', '_']).is_empty() || label.split_whitespace().count() > 5 {
        return None;
    }
    match role_of(label)? {
        r @ (Role::Pending | Role::Next) => Some(r),
        Role::Status => Some(Role::Status),
        Role::Request | Role::UserMessages => Some(Role::Request),
        _ => None,
    }
}

/// Reads `raw` as a document.
pub(crate) fn read(raw: &str) -> Document {
    let text = body(raw);
    let mut sentences = Vec::new();
    let mut sections: Vec<(Role, Vec<String>)> = Vec::new();
    let mut role = Role::Unknown;
    // A label inside the section ("Remaining:") and the indentation it stands at.
    let mut sub: Option<(Role, usize)> = None;
    let mut recognised = 0usize;
    // An open code block: its fence, and how many blocks with a language tag opened inside it (a
    // Markdown file shown in the summary holds fences of its own).
    let mut fence: Option<(&str, usize)> = None;
    let mut covers_a_span = false;
    // The last list item's indentation and its first sentence: a status label nested under it
    // ("- Export the hook\n  - status: done") says its state.
    let mut parent: Option<(usize, usize)> = None;
    let numbered_nine = numbered_nine(&text);
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some((f, depth)) = fence {
            if trimmed.starts_with(f) {
                let tagged = trimmed[3..]
                    .trim()
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric);
                fence = match (tagged, depth) {
                    (true, _) => Some((f, depth + 1)),
                    (false, 0) => None,
                    (false, _) => Some((f, depth - 1)),
                };
            }
            if let Some(s) = sections.last_mut() {
                s.1.push(trimmed.to_owned());
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some((&trimmed[..3], 0));
            if let Some(s) = sections.last_mut() {
                s.1.push(trimmed.to_owned());
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(h) = heading(line) {
            let lower = h.title.to_lowercase();
            covers_a_span |= SPAN_HEADINGS.iter().any(|t| lower.contains(t));
            let by_words = role_of(&h.title);
            let by_number = h
                .number
                .filter(|n| numbered_nine && (1..=9).contains(n))
                .map(|n| NINE[n - 1]);
            if let Some(r) = by_words.or(by_number) {
                role = r;
                recognised += 1;
            } else {
                role = Role::Unknown;
            }
            sub = None;
            parent = None;
            sections.push((role, Vec::new()));
            if h.rest.is_empty() {
                continue;
            }
            // "Pending Tasks: None": the rest is the section's first line.
            let rest = h.rest;
            if let Some(s) = sections.last_mut() {
                s.1.push(rest.to_owned());
            }
            push_sentences(&mut sentences, rest, role, i);
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if sub.is_some_and(|(_, at)| indent <= at) {
            sub = None;
        }
        if let Some(r) = sub_label(line) {
            sub = Some((r, indent));
            if let Some(s) = sections.last_mut() {
                s.1.push(trimmed.to_owned());
            }
            continue;
        }
        if sections.is_empty() {
            sections.push((Role::Unknown, Vec::new()));
        }
        if let Some(s) = sections.last_mut() {
            s.1.push(trimmed.to_owned());
        }
        if trimmed.starts_with('>') {
            continue; // a block quote: someone's words, or a log
        }
        let here = sub.map_or(role, |(r, _)| r);
        let item = trimmed.starts_with(['-', '*', '+', '•']);
        if let Some((at, first)) = parent
            && item
            && indent > at
            && status_label_done(trimmed)
        {
            for s in &mut sentences[first..] {
                s.marked_done = true;
            }
        } else if item {
            parent = Some((indent, sentences.len()));
        } else {
            parent = None;
        }
        push_sentences(&mut sentences, line, here, i);
    }
    Document {
        shape: if recognised > 0 {
            Shape::Sections
        } else {
            Shape::Prose
        },
        sentences,
        sections,
        text,
        covers_a_span,
    }
}

/// Whether the summary's top-level numbered headings run 1, 2, 3 ... over at least seven: Claude
/// Code's nine sections, whatever language their titles are in.
fn numbered_nine(text: &str) -> bool {
    let mut next = 1;
    for line in text.lines() {
        if let Some(h) = heading(line)
            && h.number == Some(next)
        {
            next += 1;
        }
    }
    next > 7
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
            clauses: super::claims::clauses(&own),
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
