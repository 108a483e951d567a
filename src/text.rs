//! Text as the model and the user read it: lengths as Claude Code counts them, visible cuts, the
//! two one-line forms, Markdown quoting, invisible characters made visible, and times in UTC.
//!
//! Transcript text is untrusted: a bidi override (U+202E) can make a line read backwards, a
//! zero-width character can hide in a file name, and a line separator (U+2028) can start a new
//! line where a renderer sees one. Everything shown goes through here, so every such character is
//! written as `<U+XXXX>` instead.

/// Length as Claude Code measures it (JavaScript string length: UTF-16 code units).
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// What is left of `budget` once `used` is spent and `reserve` is kept back (for a closing line,
/// a cut mark, a newline).
pub fn room(budget: usize, used: &str, reserve: usize) -> usize {
    budget.saturating_sub(utf16_len(used) + reserve)
}

/// The longest prefix of `s` within `max` UTF-16 code units, and whether anything was cut.
pub fn cut_to(s: &str, max: usize) -> (String, bool) {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += c.len_utf16();
        if used > max {
            return (s[..i].to_owned(), true);
        }
    }
    (s.to_owned(), false)
}

/// `line` (ending in a newline) cut to `max` code units, still ending in a newline.
pub fn cut_line(line: &str, max: usize) -> String {
    if utf16_len(line) <= max {
        return line.to_owned();
    }
    let (mut s, _) = cut_to(line.trim_end(), max.saturating_sub(3));
    s.push_str("…\n");
    s
}

/// Characters that render as nothing, reorder text, or break lines where a reader does not expect
/// it: bidi embeddings, overrides and isolates, zero-width characters, the byte-order mark, and
/// the Unicode line and paragraph separators.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' // zero-width space/non-joiner/joiner, LRM, RLM
        | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
        | '\u{2066}'..='\u{2069}' // bidi isolates
        | '\u{2028}' | '\u{2029}' // line and paragraph separators
        | '\u{FEFF}' // byte-order mark, zero-width no-break space
        | '\u{00AD}' // soft hyphen
    )
}

/// Appends `c` as it is shown: invisible characters as `<U+XXXX>`.
fn push_visible(out: &mut String, c: char) {
    if is_invisible(c) {
        out.push_str(&format!("<U+{:04X}>", u32::from(c)));
    } else {
        out.push(c);
    }
}

/// One line for a list item or a header: whitespace runs (newlines included) folded to one
/// space, control characters dropped, invisible characters shown, cut with an ellipsis after
/// `max` characters. Stops reading once the line is full.
pub fn folded_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut pending_space = false;
    for c in s.trim().chars() {
        if c.is_whitespace() && !is_invisible(c) {
            pending_space = true;
            continue;
        }
        if c.is_control() {
            continue;
        }
        if count + usize::from(pending_space) >= max {
            out.push('…');
            return out;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        push_visible(&mut out, c);
        count += 1;
    }
    out
}

/// The lowercased runs of letters and digits of `s` (a command's arguments as words).
pub fn lower_words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// One line that keeps a command's shape: newlines and tabs written as `\n` and `\t`, other
/// control characters dropped, invisible characters shown, at most 160 characters. For tool
/// arguments, where a folded newline would change what was run.
pub fn escaped_line(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.trim().chars().enumerate() {
        if n >= 160 {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => push_visible(&mut out, c),
        }
    }
    out
}

/// `text` as a Markdown block quote: every line prefixed, so nothing in it can start a heading or
/// fence of the snapshot itself, and no invisible line separator can end the quote. At most `room`
/// code units: when the whole quote does not fit, the longest beginning that fits with a cut mark
/// ("[... cut: N more characters]"). `read_bound` is the most bytes kept when the text was read: a
/// text that long may have been longer, so the cut mark says "at least".
pub fn quote(text: &str, room: usize, read_bound: usize) -> String {
    let text = text.trim();
    // A character takes at most 3 UTF-8 bytes per UTF-16 unit: a text that long cannot fit, and
    // is not quoted whole just to be measured.
    if text.len() <= room.saturating_mul(3) {
        let whole = quoted(text);
        if utf16_len(&whole) <= room {
            return whole;
        }
    }
    // Cut on the source text, so the count in the mark is exact: whole lines while they fit,
    // then as much of the next one as fits, leaving room for the mark.
    let keep_room = room.saturating_sub(CUT_MARK_RESERVE);
    let mut s = String::new();
    let mut used = 0; // utf16_len(&s), kept as lines are added (recounting would be quadratic)
    let mut consumed = 0; // bytes of `text` shown
    for line in text.lines() {
        let offset = line.as_ptr() as usize - text.as_ptr() as usize;
        let q = quoted(line);
        let q_len = utf16_len(&q);
        if used + q_len <= keep_room {
            s.push_str(&q);
            used += q_len;
            consumed = offset + line.len();
            continue;
        }
        let mut partial = String::from("> ");
        let mut partial_used = used + 2 + 1; // the prefix and the closing newline
        for (i, c) in line.char_indices() {
            let mut one = String::new();
            if c == '\t' || !c.is_control() {
                push_visible(&mut one, c);
            }
            if partial_used + utf16_len(&one) > keep_room {
                break;
            }
            partial_used += utf16_len(&one);
            partial.push_str(&one);
            consumed = offset + i + c.len_utf8();
        }
        if partial.len() > 2 {
            s.push_str(partial.trim_end());
            s.push('\n');
        }
        break;
    }
    let rest = utf16_len(text) - utf16_len(&text[..consumed]);
    let at_least = if text.len() + 4 >= read_bound {
        "at least "
    } else {
        ""
    };
    s.push_str(&format!("> [... cut: {at_least}{rest} more characters]\n"));
    s
}

/// What [`quote`] reserves for its cut mark.
const CUT_MARK_RESERVE: usize = 48;

/// The UTF-16 length of `text` quoted whole: what [`quote`] needs to show all of it.
pub fn quoted_len(text: &str) -> usize {
    utf16_len(&quoted(text.trim()))
}

/// Every line of `text` behind "> ", control characters dropped, invisible ones shown.
fn quoted(text: &str) -> String {
    let mut s = String::new();
    for line in text.lines() {
        s.push_str("> ");
        for c in line.trim_end().chars() {
            if c == '\t' || !c.is_control() {
                push_visible(&mut s, c);
            }
        }
        s.push('\n');
    }
    s
}

/// `YYYY-MM-DD HH:MM:SS UTC`. UTC is unambiguous for the model and needs no time-zone database.
pub fn format_utc(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
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

    #[test]
    fn utf16_counting_uses_code_units() {
        assert_eq!(utf16_len("a"), 1);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
    }

    #[test]
    fn bidi_override_and_zero_width_are_shown_escaped() {
        let s = "rm -rf \u{202E}gnp.txt\u{200B} ok\u{FEFF}";
        for shown in [
            folded_line(s, 200),
            escaped_line(s),
            quote(s, 1000, 1 << 20),
        ] {
            assert!(shown.contains("<U+202E>"), "{shown}");
            assert!(
                shown.contains("<U+200B>") && shown.contains("<U+FEFF>"),
                "{shown}"
            );
            assert!(!shown.chars().any(is_invisible), "{shown:?}");
        }
        for c in ['\u{202A}', '\u{2066}', '\u{2069}', '\u{200D}', '\u{2060}'] {
            assert!(!folded_line(&c.to_string(), 20).chars().any(is_invisible));
        }
    }

    #[test]
    fn line_separator_never_starts_a_markdown_line_outside_the_quote() {
        let q = quote(
            "first\u{2028}## Not a heading\u{2029}- not an item\nsecond",
            1000,
            1 << 20,
        );
        assert!(!q.contains('\u{2028}') && !q.contains('\u{2029}'));
        for line in q.lines() {
            assert!(line.starts_with("> "), "{line:?}");
        }
        assert_eq!(folded_line("a\u{2028}b", 50), "a<U+2028>b");
    }

    #[test]
    fn folded_and_escaped_lines_differ_on_purpose() {
        assert_eq!(folded_line("cargo  test\n--all", 50), "cargo test --all");
        assert_eq!(escaped_line("cargo test\n--all"), "cargo test\\n--all");
        assert_eq!(folded_line("abcdef", 3), "abc…");
    }

    #[test]
    fn room_reserves_and_saturates() {
        assert_eq!(room(100, "abc", 7), 90);
        assert_eq!(room(5, "abcdef", 1), 0);
    }

    #[test]
    fn utc_format() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        assert_eq!(
            format_utc(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29 00:00:00 UTC"
        );
    }
}
