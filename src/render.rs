//! Renders an [`Extraction`] as the Markdown text restore prints, always within the size budget.
//!
//! Claude Code inlines hook output only up to 10,000 UTF-16 code units; past that the model sees a
//! file path and a short preview, which defeats the purpose. Sections are first laid out in
//! priority order (header, open tasks, instructions, plan, progress, files, actions), each within
//! a cap and within what is left of [`TARGET`], so the least important section is the one that
//! shrinks, and every cut is visible ("... 3 more"). Then the room still left is handed to the
//! long texts that were cut, most important first: the latest instruction, the older ones newest
//! first, the approved plan, the last reply (`Allowances`); a pasted spec is kept whole when the
//! snapshot has room for it. What stays cut says where the whole text is (the transcript record).
//! Pasted text is quoted line by line, so a `## heading` or a code fence in a prompt stays inside
//! its item.

use crate::extract::Extraction;
use crate::genuine::SNAPSHOT_MARKER;
use crate::json::MAX_TEXT;
use crate::record::KEEP_PLAN;
use crate::tasks::Status;
pub use crate::text::utf16_len;
use crate::text::{cut_line, cut_to, folded_line, room};

// Room kept back inside a section, in UTF-16 code units.
/// The closing blank line of a section.
const SECTION_END_RESERVE: usize = 2;
/// A label line such as "Last reply from the agent (may be cut):".
const LABEL_RESERVE: usize = 40;
/// "- Focus the user gave /compact:" and the quote's cut mark.
const FOCUS_LABEL_RESERVE: usize = 60;
/// A "... N more" line.
const MORE_LINE_RESERVE: usize = 60;
/// What the checklist leaves for the last reply below it.
const LAST_REPLY_RESERVE: usize = 700;
/// The most the latest instruction takes in the first layout, before older ones get room.
const LATEST_INSTRUCTION_CAP: usize = 1_600;
/// The most an older instruction takes in the first layout.
const OLDER_INSTRUCTION_CAP: usize = 600;
/// The most the approved plan's text takes in the first layout.
const PLAN_CAP: usize = 1_400;
/// The most the agent's last reply takes in the first layout.
const REPLY_CAP: usize = 1_200;
/// An older instruction is shown when at least this much of it fits (or all of it).
const MIN_OLDER_SHOWN: usize = 200;
/// The "... N earlier instruction(s) omitted" line.
const OMITTED_LINE_RESERVE: usize = 60;
/// Granularity of the search for how much of the spare room a text can take.
const GRANT_STEP: usize = 100;

/// A quote of transcript text, which was bounded to [`MAX_TEXT`] bytes when read.
fn quote(text: &str, room: usize) -> String {
    crate::text::quote(text, room, MAX_TEXT)
}
use std::time::{SystemTime, UNIX_EPOCH};

/// The size Claude Code inlines (UTF-16 code units). Never exceeded.
pub const HARD_LIMIT: usize = 10_000;
/// The size aimed at, leaving margin for the CLI's own prefix.
pub const TARGET: usize = 9_000;

/// Where the snapshot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Saved by the PreCompact hook.
    Saved,
    /// Rebuilt by restore from the transcript, because no fresh snapshot existed.
    Rebuilt,
}

/// Facts about the compaction shown in the header.
#[derive(Debug, Clone)]
pub struct Meta {
    /// When the snapshot was taken.
    pub taken_at: SystemTime,
    /// `manual` or `auto`.
    pub trigger: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The git branch.
    pub git_branch: Option<String>,
    /// The focus text the user gave `/compact`, verbatim.
    pub focus: Option<String>,
    /// Saved or rebuilt.
    pub source: Source,
}

/// A section renderer: what to show, the header facts, the long texts' allowances, and the most
/// code units it may use.
type Section = fn(&Extraction, &Meta, &Allowances, usize) -> String;

/// How many UTF-16 code units each long text may take (its quote included).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Allowances {
    latest: usize,
    /// For each instruction but the latest, by index.
    older: Vec<usize>,
    plan: usize,
    reply: usize,
}

impl Allowances {
    /// What every long text gets in the first layout: a busy session fits, each text visible.
    fn minimal(ex: &Extraction) -> Allowances {
        Allowances {
            latest: LATEST_INSTRUCTION_CAP,
            older: vec![OLDER_INSTRUCTION_CAP; ex.instructions.len().saturating_sub(1)],
            plan: PLAN_CAP,
            reply: REPLY_CAP,
        }
    }

    /// How far above the minimal layout these allowances go: what the section caps grow by.
    fn extra(&self) -> (usize, usize, usize) {
        let older: usize = self
            .older
            .iter()
            .map(|a| a.saturating_sub(OLDER_INSTRUCTION_CAP))
            .sum();
        (
            self.latest.saturating_sub(LATEST_INSTRUCTION_CAP) + older,
            self.plan.saturating_sub(PLAN_CAP),
            self.reply.saturating_sub(REPLY_CAP),
        )
    }
}

/// The room a quote needs to show `text` whole (see [`crate::text::quote`]), plus its label.
fn whole_room(text: &str) -> usize {
    crate::text::quoted_len(text) + LABEL_RESERVE
}

/// The most UTF-8 bytes a text of [`HARD_LIMIT`] UTF-16 code units can take (3 bytes a unit).
pub const HARD_LIMIT_BYTES: usize = 3 * HARD_LIMIT;

/// Whether `text` is a snapshot this tool rendered and may print: it starts with the snapshot
/// heading and fits Claude Code's inline limit. A file an older plugin left under the same name
/// fails this and is never printed.
pub fn is_snapshot(text: &str) -> bool {
    text.strip_prefix("# ")
        .is_some_and(|rest| rest.starts_with(SNAPSHOT_MARKER))
        && utf16_len(text) <= HARD_LIMIT
}

/// The snapshot text, at most [`TARGET`] UTF-16 code units.
pub fn render(ex: &Extraction, meta: &Meta) -> String {
    let mut allow = Allowances::minimal(ex);
    let mut out = layout(ex, meta, &allow);
    // Hand the room left to what was cut, most important first. Each text gets as much as still
    // fits, found by laying the whole snapshot out again: never more than TARGET.
    let n = ex.instructions.len();
    let mut wanted: Vec<(LongText, &str)> = Vec::new();
    if let Some(latest) = ex.instructions.last() {
        wanted.push((LongText::Latest, latest));
    }
    for i in (0..n.saturating_sub(1)).rev() {
        wanted.push((LongText::Older(i), &ex.instructions[i]));
    }
    if let Some(text) = ex.plan.as_ref().and_then(|p| p.text.as_deref()) {
        wanted.push((LongText::Plan, text));
    }
    if let Some(reply) = &ex.last_response {
        wanted.push((LongText::Reply, reply));
    }
    for (which, text) in wanted {
        let whole = whole_room(text);
        let current = allow.get(which);
        if whole <= current || utf16_len(&out) + GRANT_STEP > TARGET {
            continue;
        }
        // All it needs, or else the most that still fits (bisection: `lo` fits, `hi` does not).
        let (mut lo, mut hi) = (current, whole);
        let mut at = whole;
        loop {
            let trial = allow.with(which, at);
            let text = layout(ex, meta, &trial);
            if utf16_len(&text) <= TARGET {
                (allow, out) = (trial, text);
                lo = at;
            } else {
                hi = at;
            }
            if hi <= lo + GRANT_STEP {
                break;
            }
            at = lo + (hi - lo) / 2;
        }
    }
    cut_to(&out, HARD_LIMIT).0
}

/// A long text whose allowance grows when there is room.
#[derive(Debug, Clone, Copy)]
enum LongText {
    Latest,
    /// An older instruction, by index.
    Older(usize),
    Plan,
    Reply,
}

impl Allowances {
    fn get(&self, t: LongText) -> usize {
        match t {
            LongText::Latest => self.latest,
            LongText::Older(i) => self.older.get(i).copied().unwrap_or(0),
            LongText::Plan => self.plan,
            LongText::Reply => self.reply,
        }
    }

    fn with(&self, t: LongText, v: usize) -> Allowances {
        let mut a = self.clone();
        match t {
            LongText::Latest => a.latest = v,
            LongText::Older(i) => {
                if let Some(o) = a.older.get_mut(i) {
                    *o = v;
                }
            }
            LongText::Plan => a.plan = v,
            LongText::Reply => a.reply = v,
        }
        a
    }
}

/// One layout of every section with the given allowances for the long texts.
fn layout(ex: &Extraction, meta: &Meta, allow: &Allowances) -> String {
    let (instructions_extra, plan_extra, reply_extra) = allow.extra();
    // Priority order, each with the most it may take of what is left.
    let sections: [(Section, usize); 7] = [
        (header, 1_800),
        (tasks, 2_200),
        (instructions, 3_400 + instructions_extra),
        (plan, 1_800 + plan_extra),
        (progress, 1_800 + reply_extra),
        (files, 700),
        (actions, 1_600),
    ];
    let mut out = String::new();
    let mut left = TARGET;
    for (section, cap) in sections {
        let text = section(ex, meta, allow, left.min(cap));
        left = left.saturating_sub(utf16_len(&text));
        out.push_str(&text);
    }
    let end = "(End of snapshot.)\n";
    if utf16_len(&out) + utf16_len(end) <= TARGET {
        out.push_str(end);
    }
    out
}

fn header(ex: &Extraction, meta: &Meta, _: &Allowances, budget: usize) -> String {
    let mut h = format!("# {SNAPSHOT_MARKER} Work in progress before compaction\n\n");
    h.push_str(match meta.source {
        Source::Saved => "Saved by the compact-guardian plugin just before this conversation was compacted. ",
        Source::Rebuilt => "Rebuilt by the compact-guardian plugin from the session transcript after compaction (no snapshot was saved beforehand). ",
    });
    h.push_str(
        "The compaction summary may be wrong about what is finished: treat a task as open unless this \
         snapshot shows it completed, follow the user's latest instruction, and resume the work from here.\n\n",
    );
    let when = format_utc(meta.taken_at);
    match meta.trigger.as_deref().map(str::trim) {
        Some("auto") => h.push_str(&format!(
            "- Taken: {when}, before an automatic compaction\n"
        )),
        Some("manual") => h.push_str(&format!("- Taken: {when}, before a manual compaction\n")),
        Some(t) if !t.is_empty() => h.push_str(&format!(
            "- Taken: {when}, before a compaction (trigger: {})\n",
            folded_line(t, 20)
        )),
        _ => h.push_str(&format!("- Taken: {when}\n")),
    }
    if let Some(cwd) = meta.cwd.as_deref().or(ex.cwd.as_deref()) {
        h.push_str(&format!("- Directory: {}\n", folded_line(cwd, 300)));
    }
    // "HEAD" is what the CLI records outside a repository or on a detached head: it says nothing.
    if let Some(branch) = meta
        .git_branch
        .as_deref()
        .or(ex.git_branch.as_deref())
        .filter(|b| b.trim() != "HEAD")
    {
        h.push_str(&format!("- Git branch: {}\n", folded_line(branch, 120)));
    }
    if let Some(focus) = meta
        .focus
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
    {
        let room = room(budget, &h, FOCUS_LABEL_RESERVE);
        h.push_str("- Focus the user gave /compact:\n");
        h.push_str(&quote(focus, room));
    }
    h.push('\n');
    cut_to(&h, budget).0
}

fn tasks(ex: &Extraction, _: &Meta, _: &Allowances, budget: usize) -> String {
    if ex.tasks.is_empty() {
        return String::new();
    }
    let open: Vec<String> = [Status::InProgress, Status::Pending]
        .iter()
        .flat_map(|s| ex.tasks.iter().filter(move |t| t.status == *s))
        .map(|t| {
            format!(
                "- [{}] {}\n",
                t.status.label(),
                folded_line(&t.content, 240)
            )
        })
        .collect();
    let done: Vec<&str> = ex
        .tasks
        .iter()
        .filter(|t| t.status == Status::Completed)
        .map(|t| t.content.as_str())
        .collect();
    let heading = format!(
        "## Open tasks ({} open, {} completed)\nNot finished unless marked completed here, whatever the summary says.\n",
        open.len(),
        done.len()
    );
    let mut s = heading;
    let done_line = if done.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = done.iter().map(|d| folded_line(d, 60)).collect();
        let line = format!("- Completed: {}\n", names.join("; "));
        cut_line(&line, 400)
    };
    let untracked = if ex.untracked_task_calls > 0 {
        format!(
            "- ({} calls about older tasks were not tracked)\n",
            ex.untracked_task_calls
        )
    } else {
        String::new()
    };
    let room = room(
        budget,
        &format!("{s}{done_line}{untracked}"),
        SECTION_END_RESERVE,
    );
    s.push_str(&fit_lines(&open, room, "open tasks"));
    s.push_str(&done_line);
    s.push_str(&untracked);
    s.push('\n');
    cut_to(&s, budget).0
}

fn instructions(ex: &Extraction, _: &Meta, allow: &Allowances, budget: usize) -> String {
    if ex.instructions.is_empty() {
        let s = format!(
            "## The user's recent instructions\n{}\n\n",
            no_instruction_found(ex)
        );
        return cut_to(&s, budget).0;
    }
    let n = ex.instructions.len();
    let mut s =
        String::from("## The user's recent instructions (oldest first; the last is the latest)\n");
    let mut room = room(budget, &s, SECTION_END_RESERVE);
    // The latest instruction is shown first in budget terms, then older ones while they fit.
    let latest_block = instruction_block(ex, n - 1, "Latest instruction", room.min(allow.latest));
    room = room.saturating_sub(utf16_len(&latest_block));
    let mut older: Vec<String> = Vec::new();
    let mut omitted = 0;
    for i in (0..n - 1).rev() {
        // A grown allowance shrinks to what is left: it never drops the text.
        let allowance = allow.older.get(i).copied().unwrap_or(OLDER_INSTRUCTION_CAP);
        let fit = allowance.min(room.saturating_sub(OMITTED_LINE_RESERVE));
        if fit < MIN_OLDER_SHOWN.min(whole_room(&ex.instructions[i])) {
            omitted += 1;
            continue;
        }
        let label = format!("Instruction {} of {n}", i + 1);
        let block = instruction_block(ex, i, &label, fit);
        room = room.saturating_sub(utf16_len(&block));
        older.push(block);
    }
    if omitted > 0 {
        s.push_str(&format!(
            "... {omitted} earlier instruction(s) omitted for space\n"
        ));
    }
    for b in older.iter().rev() {
        s.push_str(b);
    }
    s.push_str(&latest_block);
    s.push('\n');
    cut_to(&s, budget).0
}

fn plan(ex: &Extraction, _: &Meta, allow: &Allowances, budget: usize) -> String {
    let Some(plan) = &ex.plan else {
        return String::new();
    };
    let mut s = format!(
        "## Approved plan: {}\nThe user approved this plan before compaction: it is the agreed way to do the work, whatever the summary says.\n",
        folded_line(&plan.title, 120)
    );
    if let Some(file) = &plan.file {
        s.push_str(&format!(
            "- Plan file: {}\n- Re-read the plan file before continuing: it has the whole plan.\n",
            folded_line(file, 300)
        ));
    }
    if let Some(text) = &plan.text {
        let room = room(budget, &s, LABEL_RESERVE).min(allow.plan);
        if room > 200 {
            s.push_str("Plan (may be cut):\n");
            s.push_str(&crate::text::quote(text, room, KEEP_PLAN));
        }
    }
    s.push('\n');
    cut_to(&s, budget).0
}

fn progress(ex: &Extraction, _: &Meta, allow: &Allowances, budget: usize) -> String {
    if ex.last_response.is_none() && ex.checklist.is_empty() {
        return String::new();
    }
    let mut s = String::from("## Agent progress\n");
    if !ex.checklist.is_empty() {
        let room = room(budget, &s, LAST_REPLY_RESERVE).max(budget / 2);
        s.push_str("Checklist as last written (latest state of each item):\n");
        let lines: Vec<String> = ex
            .checklist
            .iter()
            .map(|c| format!("{}\n", folded_line(c, 200)))
            .collect();
        s.push_str(&fit_lines(
            &lines,
            room.saturating_sub(MORE_LINE_RESERVE),
            "checklist items",
        ));
    }
    if let Some(reply) = &ex.last_response {
        let room = room(budget, &s, LABEL_RESERVE);
        if room > 120 {
            s.push_str("Last reply from the agent (may be cut):\n");
            s.push_str(&quote(reply, room.min(allow.reply)));
        }
    }
    s.push('\n');
    cut_to(&s, budget).0
}

fn files(ex: &Extraction, _: &Meta, _: &Allowances, budget: usize) -> String {
    if ex.files_changed.is_empty() {
        return String::new();
    }
    let mut s = String::from("## Files changed (most recent first)\n");
    let lines: Vec<String> = ex
        .files_changed
        .iter()
        .map(|f| format!("- {}\n", folded_line(f, 200)))
        .collect();
    s.push_str(&fit_lines(
        &lines,
        room(budget, &s, SECTION_END_RESERVE),
        "files",
    ));
    s.push('\n');
    cut_to(&s, budget).0
}

fn actions(ex: &Extraction, _: &Meta, _: &Allowances, budget: usize) -> String {
    if ex.actions.is_empty() {
        return String::new();
    }
    let mut s = String::from("## Recent actions (oldest first)\n");
    // Newest actions matter most: fit from the end, then restore order.
    let mut lines: Vec<String> = ex
        .actions
        .iter()
        .rev()
        .map(|a| {
            let mut l = format!("- {}", folded_line(&a.tool, 60));
            if !a.summary.is_empty() {
                l.push_str(&format!(": {}", folded_line(&a.summary, 140)));
            }
            if a.error {
                l.push_str("  [FAILED]");
            }
            if a.count > 1 {
                l.push_str(&format!("  (x{})", a.count));
            }
            l.push('\n');
            l
        })
        .collect();
    let room = room(budget, &s, SECTION_END_RESERVE);
    let mut used = 0;
    let mut keep = 0;
    for l in &lines {
        if used + utf16_len(l) + 30 > room {
            break;
        }
        used += utf16_len(l);
        keep += 1;
    }
    let omitted = lines.len() - keep;
    lines.truncate(keep);
    lines.reverse();
    if omitted > 0 {
        s.push_str(&format!("- ... {omitted} earlier\n"));
    }
    for l in lines {
        s.push_str(&l);
    }
    s.push('\n');
    cut_to(&s, budget).0
}

/// Instruction `i` under its label in at most `room` units: quoted whole, or cut with a line
/// saying where the rest is.
fn instruction_block(ex: &Extraction, i: usize, label: &str, room: usize) -> String {
    let way = way_back(ex, i, room);
    let text = ex.instructions.get(i).map_or("", String::as_str);
    format!(
        "**{label}:**\n{}{way}",
        quote(text, room.saturating_sub(LABEL_RESERVE + utf16_len(&way)))
    )
}

/// Where the whole text of instruction `i` can be read back, when `room` cannot show it whole
/// and the record is known: a line outside the quote, so it is never taken for the user's words.
fn way_back(ex: &Extraction, i: usize, room: usize) -> String {
    let Some(text) = ex.instructions.get(i) else {
        return String::new();
    };
    if whole_room(text) <= room {
        return String::new();
    }
    match (
        ex.transcript.as_deref(),
        ex.instruction_records.get(i).and_then(Option::as_deref),
    ) {
        (Some(path), Some(uuid)) => format!(
            "(Cut here; the whole text is the `message.content` of the record with uuid {} in the transcript {}.)\n",
            folded_line(uuid, 80),
            folded_line(path, 300)
        ),
        _ => String::new(),
    }
}

/// The plain statement that no instruction was found, and how far back it was looked for.
pub fn no_instruction_found(ex: &Extraction) -> String {
    let searched = ex.searched;
    let mb = searched.bytes as f64 / 1_000_000.0;
    let whre = if searched.whole_file {
        format!("in the whole transcript ({mb:.1} MB)")
    } else if searched.out_of_time {
        format!("in the last {mb:.1} MB of the transcript (reading stopped at the time limit)")
    } else {
        format!("in the last {mb:.1} MB of the transcript")
    };
    format!(
        "No instruction typed by the user was found {whre}. Do not guess one: continue the open work shown here, or ask the user."
    )
}

/// Lines in order while they fit in `room`, then a visible "... N more" line.
fn fit_lines(lines: &[String], room: usize, what: &str) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        let more = format!("- ... {} more {what}\n", lines.len() - i);
        if utf16_len(&s) + utf16_len(l) + utf16_len(&more) > room && i + 1 < lines.len()
            || utf16_len(&s) + utf16_len(l) > room
        {
            if utf16_len(&s) + utf16_len(&more) <= room {
                s.push_str(&more);
            }
            break;
        }
        s.push_str(l);
    }
    s
}

/// `YYYY-MM-DD HH:MM:SS UTC`. UTC is unambiguous for the model and needs no time-zone database.
pub fn format_utc(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Action;
    use crate::tasks::Task;
    use std::time::Duration;

    fn meta() -> Meta {
        Meta {
            taken_at: UNIX_EPOCH + Duration::from_secs(1_795_000_000),
            trigger: Some("manual".into()),
            cwd: Some("/work/app".into()),
            git_branch: Some("main".into()),
            focus: Some("keep the parser work".into()),
            source: Source::Saved,
        }
    }

    fn big() -> Extraction {
        Extraction {
            instructions: (0..5)
                .map(|i| format!("instruction {i} {}", "word ".repeat(2_000)))
                .collect(),
            tasks: (0..80)
                .map(|i| Task {
                    content: format!("task {i} {}", "x".repeat(300)),
                    status: [Status::Pending, Status::InProgress, Status::Completed][i % 3],
                })
                .collect(),
            checklist: (0..30)
                .map(|i| format!("- [ ] item {i} {}", "y".repeat(150)))
                .collect(),
            last_response: Some("z".repeat(50_000)),
            files_changed: (0..30)
                .map(|i| format!("/very/long/path/{i}/{}", "p".repeat(150)))
                .collect(),
            actions: (0..20)
                .map(|i| Action {
                    tool: "Bash".into(),
                    summary: "c".repeat(300),
                    error: i % 2 == 0,
                    count: 3,
                })
                .collect(),
            untracked_task_calls: 7,
            instruction_records: vec![Some("u".repeat(36)); 5],
            transcript: Some("/t.jsonl".into()),
            cwd: None,
            git_branch: None,
            plan: Some(crate::extract::Plan {
                title: "t".repeat(500),
                text: Some("plan line\n".repeat(2_000)),
                file: Some(format!("/p/{}", "q".repeat(2_000))),
            }),
            searched: Default::default(),
        }
    }

    #[test]
    fn fits_target_on_huge_input_and_shows_cuts() {
        let s = render(&big(), &meta());
        assert!(utf16_len(&s) <= TARGET, "{}", utf16_len(&s));
        assert!(s.contains("more open tasks"));
        assert!(s.contains("[... cut:"));
        assert!(s.contains("**Latest instruction:**"));
    }

    #[test]
    fn utf16_counting_uses_code_units() {
        assert_eq!(utf16_len("a😀é"), 4);
        let mut ex = big();
        ex.instructions = vec!["😀".repeat(20_000)];
        assert!(utf16_len(&render(&ex, &meta())) <= TARGET);
    }

    #[test]
    fn pasted_headings_and_fences_stay_quoted() {
        let ex = Extraction {
            instructions: vec!["look:\n## Not a section\n```\ncode\n```".into()],
            last_response: Some("# Title\n```rust\nfn x(){}\n```".into()),
            ..Default::default()
        };
        let s = render(&ex, &meta());
        for line in s.lines() {
            if line.starts_with('#') {
                assert!(
                    line.starts_with("# [compact-guardian") || line.starts_with("## "),
                    "{line}"
                );
                assert!(!line.contains("Not a section"));
            }
            assert!(!line.starts_with("```"), "{line}");
        }
    }

    #[test]
    fn header_has_metadata_and_focus() {
        let s = render(
            &Extraction {
                instructions: vec!["go".into()],
                ..Default::default()
            },
            &meta(),
        );
        assert!(s.starts_with("# [compact-guardian snapshot]"));
        assert!(s.contains("before a manual compaction"));
        assert!(s.contains("UTC"));
        assert!(s.contains("- Directory: /work/app"));
        assert!(s.contains("- Git branch: main"));
        assert!(s.contains("> keep the parser work"));
    }

    #[test]
    fn in_progress_tasks_come_first() {
        let ex = Extraction {
            instructions: vec!["go".into()],
            tasks: vec![
                Task {
                    content: "later".into(),
                    status: Status::Pending,
                },
                Task {
                    content: "done".into(),
                    status: Status::Completed,
                },
                Task {
                    content: "now".into(),
                    status: Status::InProgress,
                },
            ],
            ..Default::default()
        };
        let s = render(&ex, &meta());
        let now = s.find("[in progress] now").unwrap();
        let later = s.find("[pending] later").unwrap();
        assert!(now < later);
        assert!(s.contains("- Completed: done"));
    }

    #[test]
    fn cut_marks_say_at_least_when_the_text_was_bounded_on_read() {
        let ex = Extraction {
            instructions: vec!["a".repeat(MAX_TEXT)],
            ..Default::default()
        };
        assert!(render(&ex, &meta()).contains("[... cut: at least "));
        let ex = Extraction {
            instructions: vec!["a".repeat(12_000)],
            ..Default::default()
        };
        let s = render(&ex, &meta());
        assert!(s.contains("[... cut: ") && !s.contains("at least"));
    }

    // ---- Issue #20: the room the snapshot has goes to what was cut, most important first.

    /// A pasted specification of about `n` characters in paragraphs, with a marker every 500.
    fn spec(n: usize) -> String {
        let mut s = String::new();
        let mut k = 0;
        while s.len() < n {
            s.push_str(&format!(
                "Requirement {k}: the importer retries each failed batch. "
            ));
            k += 1;
            if k % 8 == 0 {
                s.push('\n');
            }
        }
        s.truncate(n);
        s
    }

    fn session_with(instructions: Vec<String>) -> Extraction {
        let n = instructions.len();
        Extraction {
            instructions,
            instruction_records: (0..n).map(|i| Some(format!("uuid-{i}"))).collect(),
            transcript: Some("/home/u/.claude/projects/p/s.jsonl".into()),
            tasks: vec![
                Task {
                    content: "renderer".into(),
                    status: Status::InProgress,
                },
                Task {
                    content: "billing tests".into(),
                    status: Status::Pending,
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn long_instruction_nothing_cut_when_it_fits() {
        let text = spec(6_000);
        let out = render(&session_with(vec![text.clone()]), &meta());
        assert!(!out.contains("[... cut"), "{out}");
        assert!(!out.contains("Cut here"));
        assert!(out.contains(text.lines().last().unwrap().trim()));
        assert!(utf16_len(&out) <= TARGET);
    }

    #[test]
    fn long_instruction_cut_with_room_carries_most_of_it_and_says_where_the_rest_is() {
        // The issue's session: an 8,900-character spec, two later prompts, two open tasks.
        let pasted = spec(8_900);
        let ex = session_with(vec![
            pasted.clone(),
            "run the tests".into(),
            "never call unwrap() in the importer".into(),
        ]);
        let out = render(&ex, &meta());
        assert!(utf16_len(&out) <= TARGET, "{}", utf16_len(&out));
        assert!(out.contains("> never call unwrap() in the importer"));
        assert!(out.contains("> run the tests"));
        assert!(out.contains("[in progress] renderer") && out.contains("[pending] billing tests"));
        // Well past the middle of the spec.
        let shown = pasted
            .lines()
            .filter(|l| out.contains(l.trim()))
            .map(str::len)
            .sum::<usize>();
        assert!(
            shown > pasted.len() * 7 / 10,
            "{shown} of {}\n{out}",
            pasted.len()
        );
        assert!(out.contains("[... cut: "));
        assert!(
            out.contains("uuid uuid-0 in the transcript /home/u/.claude/projects/p/s.jsonl"),
            "{out}"
        );
        // The pointer is outside the quote: never the user's words.
        assert!(out.lines().any(|l| l.starts_with("(Cut here;")));
    }

    #[test]
    fn long_instruction_cut_without_room_in_a_busy_session_still_fits() {
        let mut ex = big();
        ex.instructions[4] = spec(12_000);
        let out = render(&ex, &meta());
        assert!(utf16_len(&out) <= TARGET);
        for heading in ["## Open tasks", "## The user's recent", "## Approved plan"] {
            assert!(out.contains(heading), "{heading}");
        }
        assert!(out.contains("**Latest instruction:**\n> Requirement 0"));
        assert!(
            out.contains("uuid uuuu"),
            "the cut latest instruction says where it is"
        );
    }

    #[test]
    fn several_long_prompts_compete_latest_first_then_newest() {
        let texts: Vec<String> = (0..5)
            .map(|i| format!("prompt {i}: {}", spec(4_000)))
            .collect();
        let out = render(&session_with(texts.clone()), &meta());
        assert!(utf16_len(&out) <= TARGET);
        let shown = |i: usize| {
            let block = out
                .split("**")
                .skip_while(|b| !b.starts_with(if i == 4 { "Latest" } else { "Instruction" }))
                .find(|_| true);
            let _ = block;
            texts[i]
                .lines()
                .filter(|l| out.contains(l.trim()))
                .map(str::len)
                .sum::<usize>()
        };
        // The latest is whole; the newest older one gets what is left before older ones.
        assert!(out.contains(texts[4].lines().last().unwrap().trim()));
        assert!(shown(3) >= shown(2) && shown(2) >= shown(1), "{out}");
    }

    #[test]
    fn utc_format() {
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        assert_eq!(
            format_utc(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29 00:00:00 UTC"
        );
    }

    #[test]
    fn header_says_automatic_and_drops_a_detached_head() {
        let m = Meta {
            trigger: Some("auto".into()),
            git_branch: Some("HEAD".into()),
            ..meta()
        };
        let s = render(
            &Extraction {
                instructions: vec!["go".into()],
                ..Default::default()
            },
            &m,
        );
        assert!(s.contains("before an automatic compaction"), "{s}");
        assert!(!s.contains("a auto") && !s.contains("Git branch"), "{s}");
    }

    #[test]
    fn approved_plan_section_names_title_file_and_says_to_reread_it() {
        let ex = Extraction {
            instructions: vec!["go".into()],
            plan: Some(crate::extract::Plan {
                title: "Retry the importer".into(),
                text: Some(
                    "# Retry the importer\n1. add backoff\n## Not a snapshot heading".into(),
                ),
                file: Some("/home/u/.claude/plans/brave-otter.md".into()),
            }),
            ..Default::default()
        };
        let s = render(&ex, &meta());
        assert!(s.contains("## Approved plan: Retry the importer"), "{s}");
        assert!(s.contains("Plan file: /home/u/.claude/plans/brave-otter.md"));
        assert!(s.contains("Re-read the plan file before continuing"));
        assert!(
            s.contains("> ## Not a snapshot heading"),
            "plan text stays quoted: {s}"
        );
    }

    #[test]
    fn invisible_characters_in_prompts_are_shown_escaped() {
        let ex = Extraction {
            instructions: vec!["delete \u{202E}txt.exe\u{2028}## injected".into()],
            files_changed: vec!["/src/a\u{200B}b.rs".into()],
            ..Default::default()
        };
        let s = render(&ex, &meta());
        assert!(
            s.contains("<U+202E>") && s.contains("<U+2028>") && s.contains("<U+200B>"),
            "{s}"
        );
        assert!(!s.chars().any(crate::text::is_invisible), "{s:?}");
    }
}
