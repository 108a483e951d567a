//! The snapshot's sections, each written within the room it is given (`mod.rs` decides the
//! room, D022): the header, the open tasks, the instructions, the plan, the agent's progress,
//! the last commit and the recent actions (`survives.rs` writes the checks and the files). A
//! section drops what does not fit item by item, visibly ("... 3 more"), and a quote that stays
//! cut says where the whole text is.

use super::{
    Allowances, LABEL_RESERVE, Meta, SECTION_END_RESERVE, Source, UNREAD_NOTE_RESERVE, whole_room,
};
use crate::extract::Extraction;
use crate::extract::tasks::Status;
use crate::snapshot::SNAPSHOT_MARKER;
use crate::text::{cut_line, folded_line, format_utc, room, utf16_len};

// Room kept back inside a section, in UTF-16 code units (the rest are in `mod.rs`).
/// "- Focus the user gave /compact:" and the quote's cut mark.
const FOCUS_LABEL_RESERVE: usize = 60;
/// The /compact focus is quoted when at least this much room is left for it.
const MIN_FOCUS_SHOWN: usize = 150;
/// The least of the agent's last reply that is shown (or all of it, when it is shorter): with its
/// cut mark, a sentence or two.
const MIN_REPLY_SHOWN: usize = 120;
/// A checklist item's line, at most (200 characters, some of them invisible ones shown).
const MAX_CHECKLIST_LINE: usize = 240;
/// An older instruction is shown when at least this much of it fits (or all of it).
const MIN_OLDER_SHOWN: usize = 200;
/// The least quote an instruction keeps beside the line saying where its whole text is.
const MIN_QUOTE_WITH_WAY_BACK: usize = 150;

/// A quote of transcript text, which was bounded when read (the extraction says to what: a text
/// that long may have been longer, and its cut mark says "at least").
pub(super) fn quote(ex: &Extraction, text: &str, room: usize) -> String {
    crate::text::quote(text, room, ex.read_bounds.text)
}

pub(super) fn header(ex: &Extraction, meta: &Meta, budget: usize) -> String {
    let mut h = format!("# {SNAPSHOT_MARKER} Work in progress before compaction\n\n");
    h.push_str(&provenance(meta));
    h.push_str(&taken(meta));
    if let Some(cwd) = meta.cwd.as_deref().or(ex.cwd.as_deref()) {
        // Lines are bounded in code units too: an invisible character is shown as 8 of them.
        h.push_str(&cut_line(
            &format!("- Directory: {}\n", folded_line(cwd, 300)),
            330,
        ));
    }
    // "HEAD" is what the CLI records outside a repository or on a detached head: it says nothing.
    if let Some(branch) = meta
        .git_branch
        .as_deref()
        .or(ex.git_branch.as_deref())
        .filter(|b| b.trim() != "HEAD")
    {
        h.push_str(&cut_line(
            &format!("- Git branch: {}\n", folded_line(branch, 120)),
            150,
        ));
    }
    if let Some(focus) = meta
        .focus
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
    {
        let room = room(budget, &h, FOCUS_LABEL_RESERVE);
        if room >= MIN_FOCUS_SHOWN {
            h.push_str("- Focus the user gave /compact:\n");
            h.push_str(&quote(ex, focus, room));
        } else {
            h.push_str("- Focus the user gave /compact: (left out for space)\n");
        }
    }
    h.push('\n');
    h
}

/// Who wrote the snapshot and when (saved, brought up to the compaction, or rebuilt, and why),
/// and how to read it beside the summary.
fn provenance(meta: &Meta) -> String {
    let mut h = String::from(match meta.source {
        Source::Saved => {
            "Saved by the compact-guardian plugin just before this conversation was compacted. "
        }
        Source::Updated => {
            "Saved by the compact-guardian plugin just before this conversation was compacted, and brought up to the compaction from the transcript. "
        }
        Source::Rebuilt(_) => {
            "Rebuilt by the compact-guardian plugin from the session transcript after compaction "
        }
    });
    if let Source::Rebuilt(why) = meta.source {
        h.push_str(&format!("({}). ", why.said()));
    }
    h.push_str(
        "The compaction summary may be wrong about what is finished: treat a task as open unless this \
         snapshot shows it completed, follow the user's latest instruction, and resume the work from here.\n\n",
    );
    h
}

/// The line saying when the snapshot was taken, before which kind of compaction.
fn taken(meta: &Meta) -> String {
    let when = format_utc(meta.taken_at);
    match meta.trigger.as_deref().map(str::trim) {
        Some("auto") => format!("- Taken: {when}, before an automatic compaction\n"),
        Some("manual") => format!("- Taken: {when}, before a manual compaction\n"),
        Some(t) if !t.is_empty() => cut_line(
            &format!(
                "- Taken: {when}, before a compaction (trigger: {})\n",
                folded_line(t, 20)
            ),
            90,
        ),
        _ => format!("- Taken: {when}\n"),
    }
}

pub(super) fn tasks(ex: &Extraction, budget: usize) -> String {
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
    s
}

pub(super) fn instructions(ex: &Extraction, allow: &Allowances) -> String {
    let unread = ex.unread_prompt.as_ref().map(unread_prompt_note);
    if ex.instructions.is_empty() {
        return match unread {
            Some(note) => format!("## The user's recent instructions\n{note}\n"),
            None => format!(
                "## The user's recent instructions\n{}\n\n",
                no_instruction_found(ex)
            ),
        };
    }
    let n = ex.instructions.len();
    let mut s =
        String::from("## The user's recent instructions (oldest first; the last is the latest)\n");
    // Never an older instruction called the latest when a newer message could not be read.
    let label = if unread.is_some() {
        "Latest readable instruction (a newer message could not be read, see below)"
    } else {
        "Latest instruction"
    };
    let latest_block = instruction_block(ex, n - 1, label, allow.latest);
    let mut older: Vec<String> = Vec::new();
    let mut omitted = 0;
    for i in (0..n - 1).rev() {
        let fit = allow.older.get(i).copied().unwrap_or(0);
        if fit < MIN_OLDER_SHOWN.min(whole_room(&ex.instructions[i])) {
            omitted += 1;
            continue;
        }
        let label = format!("Instruction {} of {n}", i + 1);
        older.push(instruction_block(ex, i, &label, fit));
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
    if let Some(note) = unread {
        s.push_str(&note);
    }
    s.push('\n');
    s
}

/// Says that the newest message from the user could not be read (never more than
/// [`UNREAD_NOTE_RESERVE`] code units).
pub(super) fn unread_prompt_note(u: &crate::extract::UnreadPrompt) -> String {
    let starts = u
        .starts
        .as_deref()
        .map(|w| format!(", starting \"{}\"", folded_line(w, 80)))
        .unwrap_or_default();
    cut_line(
        &format!(
            "**The user's newest message could not be read** (a damaged record of at least {} KB in \
             the transcript{starts}). It is newer than every instruction shown here: ask the user \
             what they asked last before acting on an older one.\n",
            u.bytes.div_ceil(1024)
        ),
        UNREAD_NOTE_RESERVE,
    )
}

pub(super) fn plan(ex: &Extraction, budget: usize) -> String {
    let Some(plan) = &ex.plan else {
        return String::new();
    };
    let mut s = cut_line(
        &format!("## Approved plan: {}\n", folded_line(&plan.title, 120)),
        150,
    );
    s.push_str("The user approved this plan before compaction: it is the agreed way to do the work, whatever the summary says.\n");
    if let Some(file) = &plan.file {
        s.push_str(&cut_line(
            &format!("- Plan file: {}\n", folded_line(file, 300)),
            330,
        ));
        s.push_str("- Re-read the plan file before continuing: it has the whole plan.\n");
    }
    if let Some(text) = &plan.text {
        let room = room(budget, &s, LABEL_RESERVE + SECTION_END_RESERVE);
        if room > 200 {
            s.push_str("Plan (may be cut):\n");
            s.push_str(&crate::text::quote(text, room, ex.read_bounds.plan));
        }
    }
    s.push('\n');
    s
}

pub(super) fn progress(ex: &Extraction, budget: usize) -> String {
    if ex.last_response.is_none() && ex.checklist.is_empty() {
        return String::new();
    }
    const CHECKLIST_LABEL: &str = "Checklist as last written (latest state of each item):\n";
    const REPLY_LABEL: &str = "Last reply from the agent (may be cut):\n";
    let mut s = String::from("## Agent progress\n");
    let avail = room(budget, &s, SECTION_END_RESERVE);
    let lines: Vec<String> = ex.checklist.iter().map(|c| checklist_line(c)).collect();
    let checklist_need = if lines.is_empty() {
        0
    } else {
        utf16_len(CHECKLIST_LABEL) + lines.iter().map(|l| utf16_len(l)).sum::<usize>()
    };
    let reply_need = ex
        .last_response
        .as_deref()
        .map_or(0, |r| utf16_len(REPLY_LABEL) + crate::text::quoted_len(r));
    // The reply's share: half the room, or all the checklist leaves, up to what it needs. Each
    // share only grows with the section's allowance, so a larger allowance never shows less of
    // either than a smaller one did (the floor holds).
    let reply_room = reply_need.min((avail / 2).max(avail.saturating_sub(checklist_need)));
    let checklist_room = avail - reply_room;
    if !lines.is_empty() {
        s.push_str(CHECKLIST_LABEL);
        s.push_str(&checklist_items(
            &lines,
            checklist_room.saturating_sub(utf16_len(CHECKLIST_LABEL)),
        ));
    }
    if let Some(reply) = &ex.last_response {
        // Always shown (D035): whole when its share holds it, else cut with a mark, never
        // shorter than `MIN_REPLY_SHOWN` (or the whole reply, when it is shorter than that).
        let quote_room = reply_room
            .saturating_sub(utf16_len(REPLY_LABEL))
            .max(MIN_REPLY_SHOWN.min(crate::text::quoted_len(reply)));
        s.push_str(REPLY_LABEL);
        s.push_str(&quote(ex, reply, quote_room));
    }
    s.push('\n');
    s
}

/// A checklist line as written ("- [ ] x", "1. x"); anything else (a `#` or a fence at a line
/// start would read as the snapshot's own structure) as an item. Bounded in code units too (an
/// invisible character is shown as 8 of them), so the first item always fits the checklist's
/// share at the section's floor.
fn checklist_line(item: &str) -> String {
    let line = folded_line(item, 200);
    let line = match line.chars().next() {
        Some(c) if c.is_alphanumeric() || "-*+[".contains(c) => format!("{line}\n"),
        _ => format!("- {line}\n"),
    };
    cut_line(&line, MAX_CHECKLIST_LINE)
}

/// The checklist's lines within `room`, never none: at least the first item, whatever the room
/// (a section then too big for its allowance is left out whole, never shown without its content).
fn checklist_items(lines: &[String], room: usize) -> String {
    let what = "checklist items";
    let items = fit_lines(lines, room, what);
    if !items.is_empty() && items != more_line(lines.len(), what) {
        return items;
    }
    let mut items = lines[0].clone();
    if lines.len() > 1 {
        items.push_str(&more_line(lines.len() - 1, what));
    }
    items
}

pub(super) fn last_commit(ex: &Extraction, _budget: usize) -> String {
    let Some(commit) = &ex.last_commit else {
        return String::new();
    };
    // At most 188 code units: within the section's floor, so it is never left out.
    let line = cut_line(&format!("- {}\n", folded_line(&commit.report, 140)), 150);
    format!("## Last commit (as git reported it)\n{line}\n")
}

pub(super) fn actions(ex: &Extraction, budget: usize) -> String {
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
            l.push_str(&why_line(a));
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
    s
}

/// The line under a failed action that says why it failed (its output's own words), if known.
pub(super) fn why_line(a: &crate::extract::Action) -> String {
    if !a.error || a.why.is_empty() {
        return String::new();
    }
    cut_line(&format!("  why: {}\n", folded_line(&a.why, 160)), 180)
}

/// Instruction `i` under its label in at most `room` units: quoted whole, or cut with a line
/// saying where the rest is.
pub(super) fn instruction_block(ex: &Extraction, i: usize, label: &str, room: usize) -> String {
    let mut way = way_back(ex, i, room);
    if room < LABEL_RESERVE + utf16_len(&way) + MIN_QUOTE_WITH_WAY_BACK {
        way.clear(); // the cut mark still says the text was cut; the quote comes first
    }
    let text = ex.instructions.get(i).map_or("", String::as_str);
    format!(
        "**{label}:**\n{}{way}",
        quote(
            ex,
            text,
            room.saturating_sub(LABEL_RESERVE + utf16_len(&way))
        )
    )
}

/// Where the whole text of instruction `i` can be read back, when `room` cannot show it whole
/// and the record is known: a line outside the quote, so it is never taken for the user's words.
pub(super) fn way_back(ex: &Extraction, i: usize, room: usize) -> String {
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
pub(super) fn no_instruction_found(ex: &Extraction) -> String {
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

/// The line that says how many `what` were left out.
pub(super) fn more_line(n: usize, what: &str) -> String {
    format!("- ... {n} more {what}\n")
}

/// Lines in order while they fit in `room`, then a visible "... N more" line: a line is shown
/// only if the line saying what is left after it still fits, so no cut is ever silent.
pub(super) fn fit_lines(lines: &[String], room: usize, what: &str) -> String {
    let more = |n: usize| more_line(n, what);
    // What the lines from each one to the last take: when all that are left fit, no room is
    // kept back for a "... N more" line they would not need.
    let mut rest: Vec<usize> = lines.iter().map(|l| utf16_len(l)).collect();
    for i in (0..rest.len().saturating_sub(1)).rev() {
        rest[i] += rest[i + 1];
    }
    let mut s = String::new();
    let mut used = 0;
    for (i, l) in lines.iter().enumerate() {
        let after = lines.len() - i - 1;
        let reserve = if after > 0 && used + rest[i] > room {
            utf16_len(&more(after))
        } else {
            0
        };
        if used + utf16_len(l) + reserve > room {
            let rest = more(lines.len() - i);
            if used + utf16_len(&rest) <= room {
                s.push_str(&rest);
            }
            break;
        }
        s.push_str(l);
        used += utf16_len(l);
    }
    s
}
