//! The corrections as the section the model reads: written within its size, checked when read
//! back from disk, and put into a snapshot right after its title line.

use super::Correction;
use crate::text::{cut_line, folded_line, utf16_len};

/// The most UTF-16 code units of the corrections section (heading included): with a snapshot at
/// its 9,000-unit target, both stay within the 10,000 the client inlines.
pub const MAX_UNITS: usize = 1_000;
/// The heading of the section, in the snapshot and in the hook output that carries it alone.
pub const HEADING: &str = "## Corrections to the compaction summary";

/// The corrections as the section the model reads, within [`MAX_UNITS`], ending in a blank line;
/// `None` when there are none. Lines that do not fit are counted, never cut in half.
pub fn section(list: &[Correction]) -> Option<String> {
    if list.is_empty() {
        return None;
    }
    let mut s = format!(
        "{HEADING}\n\nThe record from before the compaction contradicts these statements of the summary; trust the record, and check before you rely on the summary:\n"
    );
    let reserve = utf16_len("- ... and 99 more (not shown for space)\n\n");
    for (n, c) in list.iter().enumerate() {
        let line = cut_line(&format!("- {}\n", folded_line(&c.text, 600)), 420);
        if utf16_len(&s) + utf16_len(&line) + reserve > MAX_UNITS {
            s.push_str(&format!(
                "- ... and {} more (not shown for space)\n",
                list.len() - n
            ));
            break;
        }
        s.push_str(&line);
    }
    s.push('\n');
    Some(s)
}

/// Whether `text` is a corrections section as [`section`] writes it (a file read back may be
/// damaged or planted: nothing else is handed to the model).
pub fn is_section(text: &str) -> bool {
    text.starts_with(HEADING)
        && utf16_len(text) <= MAX_UNITS
        && text.ends_with("\n\n")
        && !text.contains("\n# ")
}

/// `snapshot` with the corrections section right after its title line, where the model reads
/// first (the snapshot's own end line stays last).
pub fn inserted(snapshot: &str, section: &str) -> String {
    match snapshot.split_once("\n\n") {
        Some((title, rest)) => format!("{title}\n\n{section}{rest}"),
        None => format!("{section}{snapshot}"),
    }
}
