//! The snapshot's format in one place: its marker and headings, its size limits, the end line,
//! and the checks that tell a whole snapshot this tool wrote from anything else (the store
//! prints only what passes [`is_snapshot`]; every rendered snapshot keeps [`wholeness_error`]).
//! [`crate::render`] writes it; [`crate::store`] and `authorship` read it back.

use crate::text::utf16_len;

/// Marks text this tool produced. Restored snapshots that come back as user text in older CLI
/// versions are recognised by it and never mistaken for instructions.
pub const SNAPSHOT_MARKER: &str = "[compact-guardian snapshot]";

/// The size Claude Code inlines (UTF-16 code units). Never exceeded.
pub const HARD_LIMIT: usize = 10_000;
/// The size aimed at, leaving margin for the CLI's own prefix.
pub const TARGET: usize = 9_000;

/// The line that ends every snapshot: a reader (and a test) can tell a whole snapshot from a cut
/// one.
pub const END_LINE: &str = "(End of snapshot.)\n";

/// The most UTF-8 bytes a text of [`HARD_LIMIT`] UTF-16 code units can take (3 bytes a unit).
pub const HARD_LIMIT_BYTES: usize = 3 * HARD_LIMIT;

/// Whether `text` is a snapshot this tool rendered and may print: it starts with the snapshot
/// heading, ends with [`END_LINE`] and fits Claude Code's inline limit. A file an older plugin
/// left under the same name, or anything cut short, fails this and is never printed.
pub fn is_snapshot(text: &str) -> bool {
    text.strip_prefix("# ")
        .is_some_and(|rest| rest.starts_with(SNAPSHOT_MARKER))
        && text.ends_with(END_LINE)
        && utf16_len(text) <= HARD_LIMIT
}

/// How each section's heading line starts (the snapshot's own heading first).
pub const HEADINGS: [&str; 9] = [
    "# [compact-guardian snapshot] Work in progress before compaction\n",
    "## Open tasks (",
    "## The user's recent instructions",
    "## Approved plan: ",
    "## Agent progress\n",
    "## Files changed (most recent first)\n",
    "## Last commit (as git reported it)\n",
    "## Last run of each check (oldest first)\n",
    "## Recent actions (oldest first)\n",
];

/// The first section heading in `text` with nothing under it (followed by a blank line, another
/// heading, the end line or nothing), if any: it would read as "nothing there" (D035).
pub(crate) fn empty_heading(text: &str) -> Option<&str> {
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with("## ") {
            continue;
        }
        match lines.peek() {
            Some(next)
                if !next.trim().is_empty()
                    && !next.starts_with('#')
                    && *next != END_LINE.trim_end() => {}
            _ => return Some(line),
        }
    }
    None
}

/// What is wrong with `text` as a whole snapshot, if anything: over [`TARGET`], no end line, a
/// line starting with `#` that is not one of the [`HEADINGS`] whole (a cut or a forged heading),
/// or a section heading with nothing under it. The invariant every rendered snapshot keeps; the
/// tests hold every snapshot to it.
pub fn wholeness_error(text: &str) -> Option<String> {
    if utf16_len(text) > TARGET {
        return Some(format!("{} code units, over {TARGET}", utf16_len(text)));
    }
    if !text.ends_with(END_LINE) {
        let tail: String = text
            .chars()
            .rev()
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Some(format!("no end line; ends with {tail:?}"));
    }
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('#') && !HEADINGS.iter().any(|h| text[at..].starts_with(h)) {
            return Some(format!(
                "cut or foreign heading {:?}",
                line.chars().take(80).collect::<String>()
            ));
        }
        at += line.len();
    }
    empty_heading(text).map(|h| format!("heading with nothing under it {h:?}"))
}
