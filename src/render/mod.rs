//! Renders an [`Extraction`] as the Markdown text restore prints: within [`TARGET`], always whole.
//!
//! Claude Code inlines hook output only up to 10,000 UTF-16 code units; past that the model sees a
//! file path and a short preview, which defeats the purpose. And the snapshot tells the model to
//! trust it over the summary, so it must never be wrong by being cut: every section owns an
//! allowance and never exceeds it (what does not fit inside a section is dropped item by item,
//! visibly: "... 3 more", "[... cut: N more characters]"), a section that cannot fit whole is one
//! line saying it was left out, and [`END_LINE`] is always last (D022). Each section starts at
//! its floor; the floors fit together by construction. The room left is then granted one
//! allowance at a time in a fixed order (`growth`): first every section to a useful size (the
//! newest actions, failures marked, before any older instruction), then the long texts whole,
//! the latest instruction first. A grant is tried by rendering only its own section again. What
//! stays cut says where the whole text is (the transcript record). Pasted text is quoted line by
//! line, so a `## heading` or a code fence in a prompt stays inside its item.
//!
//! This file decides the room (the sections' floors, caps and grants); `sections.rs` writes the
//! header, tasks, instructions, plan, progress, last commit and recent actions within it, and
//! `survives.rs` the checks and files changed.

pub mod audit;
mod sections;
pub(crate) mod steer;
mod survives;

use crate::extract::Extraction;
pub use crate::snapshot::{
    END_LINE, HARD_LIMIT, HARD_LIMIT_BYTES, HEADINGS, TARGET, is_snapshot, wholeness_error,
};
pub use crate::text::utf16_len;
use sections::{actions, header, instructions, last_commit, plan, progress, tasks};
use survives::{checks, files};

// Room kept back inside a section, in UTF-16 code units.
/// The closing blank line of a section.
const SECTION_END_RESERVE: usize = 2;
/// A label line such as "Last reply from the agent (may be cut):".
const LABEL_RESERVE: usize = 40;
/// The note that the newest message could not be read.
const UNREAD_NOTE_RESERVE: usize = 360;
/// The instructions heading and the "... N earlier instruction(s) omitted" line.
const INSTRUCTIONS_FRAME: usize = 150;
/// Granularity of the search for how much of the spare room a text can take.
const GRANT_STEP: usize = 100;
use std::time::SystemTime;

/// Where the snapshot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Saved by the PreCompact hook.
    Saved,
    /// Saved by the PreCompact hook, then brought up to the compaction by restore: the client
    /// wrote to the transcript after PreCompact ran (a tool's result), and that counts.
    Updated,
    /// Rebuilt by restore from the transcript, because no fresh snapshot could be printed.
    Rebuilt(WhyRebuilt),
}

/// Why restore rebuilt the context instead of printing a saved snapshot: said in the header and
/// recorded in the history, so that nothing claims "no snapshot was saved" when one was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhyRebuilt {
    /// No snapshot for this session (PreCompact did not run, or found nothing to save).
    NotSaved,
    /// A snapshot was saved, but it was older than the freshness limit when the session resumed.
    Expired,
    /// A file at the snapshot's place was not one this tool wrote; it was left alone.
    NotOurs,
    /// The snapshot folder could not be used.
    FolderUnusable,
    /// No snapshot was saved since this session's last one was restored (a restore run again,
    /// or a compaction whose PreCompact did not run soon after one that was protected).
    AlreadyRestored,
}

impl WhyRebuilt {
    /// The reason as the rebuilt header gives it.
    pub fn said(self) -> &'static str {
        match self {
            WhyRebuilt::NotSaved => "no snapshot was saved beforehand",
            WhyRebuilt::Expired => {
                "the snapshot saved beforehand had expired before this session resumed"
            }
            WhyRebuilt::NotOurs => "the file at the snapshot's place was not one this plugin wrote",
            WhyRebuilt::FolderUnusable => "the snapshot folder could not be used",
            WhyRebuilt::AlreadyRestored => {
                "no new snapshot was saved since the last one was restored"
            }
        }
    }
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

/// The snapshot's sections, in the order they are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SnapshotPart {
    Header,
    Instructions,
    /// One of [`SECTIONS`], by index.
    Section(usize),
}

/// A section rendered from the extraction alone within its allowance: one row per section.
struct Section {
    /// What its "left out for space" line calls it.
    name: &'static str,
    /// What it keeps whatever else wants room (D022). The floors of all sections add up to less
    /// than [`TARGET`] with the end line (a test checks), so every section fits at its floor.
    floor: usize,
    /// What it may grow to in the first round of spare room, before any text is shown whole.
    cap: usize,
    /// Its place in the first round (lower first; below [`BEFORE_OLDER`]: before the older
    /// instructions get theirs).
    first_round: u8,
    /// Its place in the last round, where it may take all it has (lower first).
    last_round: u8,
    /// The section's text within `budget` code units (empty when it has nothing to show).
    render: fn(&Extraction, usize) -> String,
}

/// Sections whose first-round rank is below this grow before the older instructions do.
const BEFORE_OLDER: u8 = 10;

/// The sections after the header and the instructions, in printed order.
const SECTIONS: [Section; 7] = [
    Section {
        name: "open tasks",
        floor: 1_550,
        cap: 2_200,
        first_round: 14,
        last_round: 3,
        render: tasks,
    },
    Section {
        name: "the approved plan",
        floor: 800,
        cap: 1_800,
        first_round: 11,
        last_round: 1,
        render: plan,
    },
    Section {
        name: "the agent's progress",
        floor: 850,
        cap: 1_800,
        first_round: 12,
        last_round: 2,
        render: progress,
    },
    Section {
        name: "files changed",
        floor: 500,
        cap: 1_400,
        first_round: 13,
        last_round: 5,
        render: files,
    },
    Section {
        name: "the last commit",
        floor: 200,
        cap: 200,
        first_round: 13,
        last_round: 6,
        render: last_commit,
    },
    Section {
        name: "the last run of each check",
        floor: 450,
        cap: 1_200,
        first_round: 1,
        last_round: 4,
        render: checks,
    },
    Section {
        name: "recent actions",
        floor: 1_200,
        cap: 1_600,
        first_round: 0,
        last_round: 4,
        render: actions,
    },
];

/// The header and the instructions: floors and first-round caps (see [`Section`]).
mod floor {
    /// Title, facts, and a few lines of the /compact focus.
    pub(super) const HEADER: usize = 1_300;
    /// The latest instruction (or the statement that none was found).
    pub(super) const LATEST: usize = 1_600;
}
mod cap {
    pub(super) const HEADER: usize = 1_800;
    pub(super) const OLDER: usize = 600;
}

impl SnapshotPart {
    /// Every part, in printed order: the header, the open tasks, the instructions, the rest.
    fn all() -> impl Iterator<Item = SnapshotPart> {
        [
            SnapshotPart::Header,
            SnapshotPart::Section(0),
            SnapshotPart::Instructions,
        ]
        .into_iter()
        .chain((1..SECTIONS.len()).map(SnapshotPart::Section))
    }

    /// The section's text within its allowance, or one whole line saying it was left out.
    fn render(self, ex: &Extraction, meta: &Meta, allow: &Allowances) -> String {
        self.render_whole(ex, meta, allow)
            .unwrap_or_else(|| self.left_out(allow))
    }

    /// The one whole line that stands for a section with no room, if even that fits.
    fn left_out(self, allow: &Allowances) -> String {
        let (name, budget) = match self {
            SnapshotPart::Header => return String::new(),
            SnapshotPart::Instructions => (
                "the user's recent instructions",
                allow.instructions_budget(),
            ),
            SnapshotPart::Section(i) => (SECTIONS[i].name, allow.sections[i]),
        };
        let notice = format!("({name} left out for space)\n\n");
        if utf16_len(&notice) <= budget {
            notice
        } else {
            String::new()
        }
    }

    /// The section's text if it fits its allowance whole.
    fn render_whole(self, ex: &Extraction, meta: &Meta, allow: &Allowances) -> Option<String> {
        let (text, budget) = match self {
            SnapshotPart::Header => (header(ex, meta, allow.header), allow.header),
            SnapshotPart::Instructions => (instructions(ex, allow), allow.instructions_budget()),
            SnapshotPart::Section(i) => (
                (SECTIONS[i].render)(ex, allow.sections[i]),
                allow.sections[i],
            ),
        };
        // Never a section cut in half: a heading without its content reads as "nothing there".
        (utf16_len(&text) <= budget && crate::snapshot::empty_heading(&text).is_none())
            .then_some(text)
    }
}

/// How many UTF-16 code units each section may take (for the instructions, each instruction).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Allowances {
    header: usize,
    latest: usize,
    /// For each instruction but the latest, by index.
    older: Vec<usize>,
    /// For each of [`SECTIONS`].
    sections: [usize; SECTIONS.len()],
}

impl Allowances {
    /// Every section at its floor; older instructions have none (they are listed as omitted).
    fn floor(ex: &Extraction) -> Allowances {
        Allowances {
            header: floor::HEADER,
            latest: floor::LATEST,
            older: vec![0; ex.instructions.len().saturating_sub(1)],
            sections: SECTIONS.map(|s| s.floor),
        }
    }

    /// Every section with as much room as the whole snapshot has.
    fn all(ex: &Extraction) -> Allowances {
        Allowances {
            header: TARGET,
            latest: TARGET,
            older: vec![TARGET; ex.instructions.len().saturating_sub(1)],
            sections: [TARGET; SECTIONS.len()],
        }
    }

    /// The most the instructions section takes with these allowances.
    fn instructions_budget(&self) -> usize {
        INSTRUCTIONS_FRAME
            + UNREAD_NOTE_RESERVE
            + SECTION_END_RESERVE
            + self.latest
            + self.older.iter().sum::<usize>()
    }

    fn get(&self, g: Grant) -> usize {
        match g {
            Grant::Header => self.header,
            Grant::Latest => self.latest,
            Grant::Older(i) => self.older.get(i).copied().unwrap_or(0),
            Grant::Section(i) => self.sections[i],
        }
    }

    fn set(&mut self, g: Grant, v: usize) {
        match g {
            Grant::Header => self.header = v,
            Grant::Latest => self.latest = v,
            Grant::Older(i) => {
                if let Some(o) = self.older.get_mut(i) {
                    *o = v;
                }
            }
            Grant::Section(i) => self.sections[i] = v,
        }
    }
}

/// One allowance that spare room can grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grant {
    Header,
    Latest,
    /// An older instruction, by index.
    Older(usize),
    /// One of [`SECTIONS`], by index.
    Section(usize),
}

impl Grant {
    /// The part whose text this allowance changes.
    fn part(self) -> SnapshotPart {
        match self {
            Grant::Header => SnapshotPart::Header,
            Grant::Latest | Grant::Older(_) => SnapshotPart::Instructions,
            Grant::Section(i) => SnapshotPart::Section(i),
        }
    }
}

/// The room a quote needs to show `text` whole (see [`crate::text::quote`]), plus its label.
fn whole_room(text: &str) -> usize {
    crate::text::quoted_len(text) + LABEL_RESERVE
}

/// The snapshot text, at most [`TARGET`] UTF-16 code units, always whole: every section that
/// has content at least at its floor, none cut in half, the end line last.
///
/// Every section is first rendered at its floor (together they fit). The room left is then
/// handed out one allowance at a time in `growth` order; each allowance changes one section
/// only, so a grant is tried by rendering that section again, and kept only if the whole still
/// fits. No grant can shrink another section.
pub fn render(ex: &Extraction, meta: &Meta) -> String {
    let parts: Vec<SnapshotPart> = SnapshotPart::all().collect();
    // Most snapshots fit with every section showing all it has: that is then the layout the
    // growth below would reach, at a seventh of its cost.
    let all = Allowances::all(ex);
    let whole: Vec<Option<String>> = parts
        .iter()
        .map(|p| p.render_whole(ex, meta, &all))
        .collect();
    if whole.iter().all(Option::is_some) {
        let size: usize = whole.iter().flatten().map(|p| utf16_len(p)).sum();
        if size + utf16_len(END_LINE) <= TARGET {
            let mut out: String = whole.into_iter().flatten().collect();
            out.push_str(END_LINE);
            return out;
        }
    }
    let mut allow = Allowances::floor(ex);
    let mut texts: Vec<String> = parts.iter().map(|p| p.render(ex, meta, &allow)).collect();
    // Each part's size, kept as parts change: a grant's test needs only the others' total.
    let mut sizes: Vec<usize> = texts.iter().map(|p| utf16_len(p)).collect();
    let end = utf16_len(END_LINE);
    debug_assert!(
        sizes.iter().sum::<usize>() + end <= TARGET,
        "floors must fit"
    );
    for (grant, want) in growth(ex) {
        let current = allow.get(grant);
        let Some(at) = parts.iter().position(|p| *p == grant.part()) else {
            continue;
        };
        let others = sizes.iter().sum::<usize>() - sizes[at];
        if want <= current || others + sizes[at] + end + GRANT_STEP > TARGET {
            continue;
        }
        // All it wants, or else the most that still fits (bisection: `lo` fits, `hi` does not).
        let (mut lo, mut hi) = (current, want);
        let mut try_at = want;
        loop {
            let mut trial = allow.clone();
            trial.set(grant, try_at);
            // Only a section that stays whole: never a grant that turns it into its notice.
            match grant.part().render_whole(ex, meta, &trial) {
                Some(text) if others + utf16_len(&text) + end <= TARGET => {
                    sizes[at] = utf16_len(&text);
                    (allow, texts[at]) = (trial, text);
                    lo = try_at;
                }
                _ => hi = try_at,
            }
            if hi <= lo + GRANT_STEP {
                break;
            }
            try_at = lo + (hi - lo) / 2;
        }
    }
    let mut out = texts.concat();
    out.push_str(END_LINE);
    out
}

/// The order spare room is handed out in, with what each allowance would take: first every
/// section up to its cap (the newest actions, failures included, before any older instruction:
/// D022), then each long text whole, the latest instruction first, then every section all it
/// has.
fn growth(ex: &Extraction) -> Vec<(Grant, usize)> {
    let n = ex.instructions.len();
    let older = || (0..n.saturating_sub(1)).rev();
    let whole_instruction = |i: usize| whole_room(&ex.instructions[i]);
    let ranked = |rank: fn(&Section) -> u8| {
        let mut order: Vec<usize> = (0..SECTIONS.len()).collect();
        order.sort_by_key(|&i| rank(&SECTIONS[i]));
        order
    };
    let first = ranked(|s| s.first_round);
    let (before, after) = first
        .iter()
        .partition::<Vec<usize>, _>(|&&i| SECTIONS[i].first_round < BEFORE_OLDER);
    let cap = |i: usize| (Grant::Section(i), SECTIONS[i].cap);
    let mut order: Vec<(Grant, usize)> = before.into_iter().map(cap).collect();
    order.extend(older().map(|i| (Grant::Older(i), cap::OLDER)));
    order.extend(after.into_iter().map(cap));
    order.push((Grant::Header, cap::HEADER));
    if n > 0 {
        order.push((Grant::Latest, whole_instruction(n - 1)));
    }
    order.extend(older().map(|i| (Grant::Older(i), whole_instruction(i))));
    // All it has: no section can use more than the target (a section that needs less renders to
    // what it needs, and the first trial shows it).
    order.extend(
        ranked(|s| s.last_round)
            .into_iter()
            .map(|i| (Grant::Section(i), TARGET)),
    );
    order.push((Grant::Header, TARGET));
    order
}

/// The snapshot's "Last run of each check" section alone, for the tests of other sections.
#[cfg(test)]
pub(crate) fn survives_checks_for_tests(ex: &Extraction) -> String {
    survives::checks(ex, 4_000)
}

#[cfg(test)]
mod tests {
    use super::sections::*;
    use super::*;
    use crate::extract::Action;
    use crate::extract::tasks::Status;
    use crate::extract::tasks::Task;
    use std::time::{Duration, UNIX_EPOCH};

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
                    count: 3,
                    why: "error: ".repeat(40),
                    ..Action::call("Bash", &"c".repeat(300), i % 2 == 0)
                })
                .collect(),
            facts: crate::extract::facts::build::facts(
                &(0..14)
                    .map(|i| {
                        let cmd = format!("cargo test t{i} {}", "d".repeat(300));
                        crate::extract::facts::build::sh(&cmd, i % 2, &"failing: ".repeat(40))
                    })
                    .chain([crate::extract::facts::build::sh(
                        &"x".repeat(400),
                        1,
                        &"error: y".repeat(100),
                    )])
                    .collect::<Vec<_>>(),
            ),
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
            last_commit: Some(crate::extract::Commit {
                report: format!("[main 1a2b3c4] {}", "s".repeat(2_000)),
            }),
            searched: Default::default(),
            unread_prompt: None,
            read_bounds: Default::default(),
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
    fn a_short_last_reply_is_shown_whole() {
        // Its room is what it needs, under the 120 units a cut reply must have: it was dropped,
        // leaving the section's heading alone.
        let ex = Extraction {
            instructions: vec!["run the tests".into()],
            last_response: Some("The billing test fails.".into()),
            ..Extraction::default()
        };
        let s = render(&ex, &meta());
        assert!(
            s.contains("## Agent progress\nLast reply from the agent (may be cut):\n> The billing test fails.\n"),
            "{s}"
        );
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
            instructions: vec!["a".repeat(crate::json::MAX_TEXT)],
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

    // ---- Issue #26: the snapshot is whole whatever the mix of section sizes.

    /// Text of any shape: short, long, one huge line, many lines, wide characters, headings,
    /// invisible characters.
    fn any_text(max: usize) -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,40}",
            (1..max).prop_map(|n| "w".repeat(n)),
            (1..max / 10 + 2).prop_map(|n| "line of words\n".repeat(n)),
            (1..max / 4 + 2).prop_map(|n| "é😀\u{202E}".repeat(n)),
            Just("## heading\n```\nfence\n```".to_owned()),
            Just(String::new()),
        ]
    }

    fn any_extraction() -> impl Strategy<Value = (Extraction, Meta)> {
        let task = (any_text(400), 0..3usize).prop_map(|(content, s)| Task {
            content,
            status: [Status::Pending, Status::InProgress, Status::Completed][s],
        });
        let action = (any_text(300), any_text(300), any::<bool>(), 1..5u32).prop_map(
            |(tool, summary, error, count)| Action {
                tool,
                summary,
                error,
                count,
                ..Action::default()
            },
        );
        let plan = prop::option::of((
            any_text(300),
            prop::option::of(any_text(20_000)),
            prop::option::of(any_text(400)),
        ))
        .prop_map(|p| p.map(|(title, text, file)| crate::extract::Plan { title, text, file }));
        let commit = prop::option::of(any_text(2_000))
            .prop_map(|r| r.map(|report| crate::extract::Commit { report }));
        let texts = (
            prop::collection::vec(any_text(40_000), 0..6),
            prop::collection::vec(task, 0..120),
            prop::collection::vec(any_text(250), 0..40),
            prop::option::of(any_text(40_000)),
            prop::collection::vec(any_text(300), 0..35),
            prop::collection::vec(action, 0..25),
        );
        let meta = (
            prop::option::of(any_text(3_000)),
            prop::option::of(any_text(600)),
            prop::option::of(any_text(300)),
            prop::option::of(any_text(100)),
            any::<bool>(),
        );
        (
            texts,
            (plan, commit),
            meta,
            prop::option::of("[a-z/]{1,300}"),
        )
            .prop_map(
                |(
                    (instructions, tasks, checklist, last_response, files_changed, actions),
                    (plan, last_commit),
                    (focus, cwd, git_branch, trigger, rebuilt),
                    transcript,
                )| {
                    let n = instructions.len();
                    let ex = Extraction {
                        instruction_records: (0..n).map(|i| Some(format!("uuid-{i}"))).collect(),
                        instructions,
                        transcript,
                        tasks,
                        untracked_task_calls: 3,
                        checklist,
                        last_response,
                        files_changed,
                        actions,
                        plan,
                        last_commit,
                        ..Default::default()
                    };
                    let meta = Meta {
                        taken_at: UNIX_EPOCH,
                        trigger,
                        cwd,
                        git_branch,
                        focus,
                        source: if rebuilt {
                            Source::Rebuilt(WhyRebuilt::Expired)
                        } else {
                            Source::Saved
                        },
                    };
                    (ex, meta)
                },
            )
    }

    use proptest::prelude::*;

    #[test]
    fn every_snapshot_is_whole_within_target_and_no_section_is_below_its_floor() {
        let config = ProptestConfig {
            cases: 300,
            max_shrink_iters: 5_000,
            source_file: Some(file!()),
            ..ProptestConfig::default()
        };
        // The property is about layouts that must be grown from the floors, and about the
        // reply rule: enough cases of each.
        let kinds = [
            ("grown from the floors", 0.3),
            ("a reply", 0.3),
            ("a checklist", 0.3),
        ];
        crate::proptesting::check(config, any_extraction(), &kinds, |(ex, meta), seen| {
            let all = Allowances::all(&ex);
            let whole: Option<Vec<String>> = SnapshotPart::all()
                .map(|p| p.render_whole(&ex, &meta, &all))
                .collect();
            seen.saw(
                "grown from the floors",
                whole.is_none_or(|w| {
                    w.iter().map(|p| utf16_len(p)).sum::<usize>() + utf16_len(END_LINE) > TARGET
                }),
            );
            seen.saw("a reply", ex.last_response.is_some());
            seen.saw("a checklist", !ex.checklist.is_empty());
            let out = render(&ex, &meta);
            prop_assert_eq!(wholeness_error(&out), None);
            prop_assert!(is_snapshot(&out));
            // No section is cut: each one's text, as rendered alone at its floor, is there or
            // has grown (a section's text at a larger allowance starts the same way up to its
            // first cut).
            let floor = Allowances::floor(&ex);
            for part in SnapshotPart::all() {
                let at_floor = part.render(&ex, &meta, &floor);
                prop_assert!(
                    !at_floor.contains("left out for space"),
                    "{part:?} below floor:\n{at_floor}"
                );
                let heading = at_floor.lines().next().unwrap_or_default();
                if !heading.is_empty() {
                    prop_assert!(out.contains(heading), "{part:?} missing: {heading}");
                }
            }
            // Each section as printed: from its heading to the next heading (or the end line).
            let body = out.strip_suffix(END_LINE).unwrap_or(&out);
            let shown = |heading: &str| {
                let start = body.find(heading)?;
                let rest = &body[start..];
                let end = rest[1..].find("\n#").map_or(rest.len(), |e| e + 2);
                Some(&rest[..end])
            };
            for part in SnapshotPart::all() {
                let at_floor = part.render(&ex, &meta, &floor);
                let Some(heading) = at_floor.lines().next() else {
                    continue;
                };
                let section = shown(heading);
                prop_assert!(section.is_some(), "{part:?} missing");
                let section = section.unwrap();
                // Everything the floor showed is still shown (an item may stand where a "... N
                // more" line stood, and a quote may run further than its floor's cut).
                for line in at_floor.lines().filter(|l| !is_marker(l)) {
                    prop_assert!(
                        section.contains(line),
                        "{part:?} lost {line:?} of its floor:\n{at_floor}\n---\n{section}"
                    );
                }
            }
            // The reply rule (D035): a last reply or a checklist the extraction found is shown,
            // whole or cut with its mark, whatever else wants the room.
            if let Some(reply) = &ex.last_response {
                let first = crate::text::quote(reply, usize::MAX, usize::MAX);
                let first: String = first
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(12)
                    .collect();
                prop_assert!(
                    out.contains(&format!("Last reply from the agent (may be cut):\n{first}")),
                    "reply {first:?} not shown:\n{out}"
                );
            }
            if !ex.checklist.is_empty() {
                let label = "Checklist as last written (latest state of each item):\n";
                let after = out.find(label).map(|at| &out[at + label.len()..]);
                prop_assert!(
                    after.is_some_and(|a| !a.starts_with("- ... ") && !a.starts_with("Last reply")),
                    "checklist not shown:\n{out}"
                );
            }
            // The latest instruction is named, with the latest one's text.
            if let Some(latest) = ex.instructions.last().filter(|l| !l.trim().is_empty()) {
                let whole = crate::text::quote(latest, usize::MAX, crate::json::MAX_TEXT);
                let start: String = whole.lines().next().unwrap().chars().take(10).collect();
                let block = &out[out.find("**Latest instruction:**\n").unwrap()..];
                prop_assert!(
                    block.starts_with(&format!("**Latest instruction:**\n{start}")),
                    "{start:?}"
                );
            }
            Ok(())
        });
    }

    /// A line that says what was cut or left out (it changes as more is shown).
    fn is_marker(line: &str) -> bool {
        let said = |w: &str| line.contains(w);
        (said("... ") && (said(" more ") || said(" earlier") || said("omitted")))
            || said("[... cut")
            || line.starts_with("(Cut here;")
            || said("left out for space")
    }

    #[test]
    fn fit_lines_never_cuts_silently() {
        // With room for every line but the last, the last was dropped with no "... 1 more".
        let lines: Vec<String> = ["- a\n", "- b\n", "- \n"]
            .iter()
            .map(|l| (*l).to_owned())
            .collect();
        for room in 0..60 {
            let s = fit_lines(&lines, room, "files");
            let shown = s.lines().filter(|l| !l.contains("more")).count();
            let said: usize = s
                .lines()
                .find_map(|l| l.strip_prefix("- ... ")?.split(' ').next()?.parse().ok())
                .unwrap_or(0);
            assert!(utf16_len(&s) <= room, "{room}: {s:?}");
            assert!(shown + said == 3 || s.is_empty(), "{room}: {s:?}");
        }
    }

    #[test]
    fn a_short_last_reply_is_shown_whole_beside_any_checklist() {
        // Issue #40: a reply's share was capped at its own length and shown only past 120
        // units, so no reply under ~118 characters was ever shown (a 107-character one was
        // missing from a real restore), and a section with neither left its heading alone.
        let reply = "Done: the parser handles nested quotes now; next I will wire it into the CLI \
                     and rerun the test suite here.";
        assert_eq!(reply.chars().count(), 107);
        for checklist in [0, 3, 40] {
            let ex = Extraction {
                instructions: vec!["fix the parser".into()],
                checklist: (0..checklist).map(|i| format!("- [ ] item {i}")).collect(),
                last_response: Some(reply.into()),
                ..Default::default()
            };
            let floor = Allowances::floor(&ex);
            let i = SECTIONS
                .iter()
                .position(|s| s.name == "the agent's progress");
            for out in [
                render(&ex, &meta()),
                SnapshotPart::Section(i.unwrap()).render(&ex, &meta(), &floor),
            ] {
                assert!(
                    out.contains(&format!(
                        "Last reply from the agent (may be cut):\n> {reply}\n"
                    )),
                    "{checklist}: {out}"
                );
                assert!(checklist == 0 || out.contains("- [ ] item 0\n"), "{out}");
            }
        }
    }

    #[test]
    fn a_reply_too_long_for_its_share_is_cut_with_a_mark_never_dropped() {
        let ex = Extraction {
            checklist: (0..60)
                .map(|i| format!("- [ ] item {i} {}", "w".repeat(100)))
                .collect(),
            last_response: Some("r".repeat(30_000)),
            ..Default::default()
        };
        for budget in [SECTIONS[2].floor, 1_200, SECTIONS[2].cap] {
            let out = progress(&ex, budget);
            assert!(utf16_len(&out) <= budget, "{budget}: {}", utf16_len(&out));
            assert!(
                out.contains("Last reply from the agent (may be cut):\n> rrr"),
                "{out}"
            );
            assert!(out.contains("more characters]"), "{out}");
            assert!(out.contains("- [ ] item 0 "), "{out}");
        }
    }

    #[test]
    fn a_section_that_would_show_only_its_heading_is_left_out_instead() {
        let ex = Extraction {
            files_changed: vec![format!("/{}", "f".repeat(190))],
            ..Default::default()
        };
        let i = SECTIONS
            .iter()
            .position(|s| s.name == "files changed")
            .unwrap();
        let mut allow = Allowances::floor(&ex);
        allow.sections[i] = 45; // the heading fits, neither the file nor a "... 1 more" line
        let out = SnapshotPart::Section(i).render(&ex, &meta(), &allow);
        assert_eq!(out, "(files changed left out for space)\n\n");
        assert_eq!(
            crate::snapshot::empty_heading("## Agent progress\n\n(End of snapshot.)\n"),
            Some("## Agent progress")
        );
        assert_eq!(
            crate::snapshot::empty_heading("## Agent progress\n> x\n\n"),
            None
        );
    }

    #[test]
    fn a_checklist_that_fills_its_share_exactly_beside_a_long_reply_is_shown_at_the_floor() {
        // Found by the reply-rule property over generated sessions (#40): the checklist's share
        // was exactly its size, no room was left for a "... 1 more" line it did not need, the
        // first item was forced in with one, and the section went over its floor: left out.
        let ex = Extraction {
            checklist: vec!["- [ ] a".into(), "- [ ] b".into()],
            last_response: Some(format!("reply b\n- [ ] b\n{}", "more words ".repeat(1100))),
            ..Default::default()
        };
        let out = progress(&ex, SECTIONS[2].floor);
        assert!(utf16_len(&out) <= SECTIONS[2].floor, "{}", utf16_len(&out));
        assert!(out.contains("- [ ] a\n- [ ] b\nLast reply"), "{out}");
    }

    #[test]
    fn lines_that_all_fit_exactly_are_all_shown() {
        // A "... N more" line was kept room for even when every line fitting left none to say:
        // a checklist whose share was exactly its size showed only that line (#40).
        let lines: Vec<String> = ["- [ ] a\n", "- [ ] b\n"].map(String::from).to_vec();
        assert_eq!(fit_lines(&lines, 16, "items"), "- [ ] a\n- [ ] b\n");
        assert_eq!(fit_lines(&lines, 15, "items"), "");
    }

    #[test]
    fn floors_fit_the_target_together() {
        let most = floor::HEADER
            + INSTRUCTIONS_FRAME
            + UNREAD_NOTE_RESERVE
            + SECTION_END_RESERVE
            + floor::LATEST
            + SECTIONS.iter().map(|s| s.floor).sum::<usize>()
            + utf16_len(END_LINE);
        assert!(most <= TARGET, "{most}");
    }

    #[test]
    fn a_failing_test_run_is_kept_beside_three_long_specs() {
        // Issue #26 case 2: three long pasted specs and a failing `pytest` run just before the
        // compaction. The older specs took the room and the run was gone ("... 3 earlier").
        let mut ex = session_with(vec![
            spec(7_000),
            spec(7_000),
            spec(7_000),
            "run the tax tests".into(),
        ]);
        ex.actions = vec![
            Action::call("Edit", "src/tax.py", false),
            Action::call("Bash", "ls tests", false),
            Action::call("Edit", "src/rates.py", false),
            Action::call("Bash", "pytest tests/test_tax.py", true),
        ];
        ex.files_changed = vec!["src/tax.py".into(), "src/rates.py".into()];
        let out = render(&ex, &meta());
        assert!(
            out.contains("- Bash: pytest tests/test_tax.py  [FAILED]"),
            "{out}"
        );
        assert!(
            !out.contains("earlier\n"),
            "every recent action is shown: {out}"
        );
        assert!(out.ends_with(END_LINE));
        assert!(utf16_len(&out) <= TARGET);
    }

    #[test]
    fn a_long_pasted_spec_beside_short_prompts_leaves_every_section_whole() {
        // Issue #26 case 1, as seen in a real-CLI run: a long spec next to a few short prompts
        // and a full session; the snapshot stopped at "## Recent act".
        let mut ex = big();
        ex.instructions = vec![
            "short one".into(),
            spec(30_000),
            "short two".into(),
            "go on".into(),
        ];
        ex.instruction_records = vec![Some("u".into()); 4];
        let out = render(&ex, &meta());
        assert!(out.ends_with(END_LINE), "{out}");
        for h in [
            "## Open tasks",
            "## Approved plan",
            "## Agent progress",
            "## Files changed",
            "## Recent actions",
        ] {
            assert!(out.contains(h), "{h}");
        }
        assert!(utf16_len(&out) <= TARGET);
    }
}
