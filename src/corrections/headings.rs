//! The summary's headings: which lines head a section (a Markdown heading, a bold line, a
//! numbered title, a known label ending in a colon), the role a section gets from its heading's
//! words in the languages here or from its number among Claude Code's nine, and the labels inside
//! a section that change what stands under them ("Remaining:").

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

/// Headings only the summary of a span has (Claude Code 2.1.3xx's prompt for a summary placed
/// before newer messages), and their usual translations.
pub(super) const SPAN_HEADINGS: &[&str] = &[
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
            "목적",
            "purpose",
            "zweck",
            "propósito",
            "objectif",
            "scopo",
            "finalidade",
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
pub(super) const NINE: [Role; 9] = [
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
pub(super) struct Heading<'a> {
    pub(super) number: Option<usize>,
    pub(super) title: String,
    pub(super) rest: &'a str,
}

/// `line` as a section heading: a Markdown heading, a bold line, a numbered top-level title
/// (`3. Files and Code Sections:`), or a short label ending in a colon at the line's start. A
/// numbered line that reads as a sentence ("1. Added the retry") is a list item, not a heading.
pub(super) fn heading(line: &str) -> Option<Heading<'_>> {
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
pub(super) fn sub_label(line: &str) -> Option<Role> {
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

/// Whether the summary's top-level numbered headings run 1, 2, 3 ... over at least seven: Claude
/// Code's nine sections, whatever language their titles are in.
/// `None`: `deadline` passed first.
pub(super) fn numbered_nine(text: &str, deadline: super::Deadline) -> Option<bool> {
    let mut next = 1;
    for line in text.lines() {
        if super::late(deadline) {
            return None;
        }
        if let Some(h) = heading(line)
            && h.number == Some(next)
        {
            next += 1;
        }
    }
    Some(next > 7)
}
