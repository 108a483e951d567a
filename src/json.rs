//! Lenient JSON building blocks: fields that accept any JSON type without failing the record.
//!
//! Transcripts and hook inputs come from many CLI versions and are sometimes damaged. A field of
//! the wrong type (`"text": null`, a tool name that is a number, `content` as an object) must cost
//! that field only, never the whole record. Every type here deserializes from *any* JSON value and
//! keeps what it understands; the rest is skipped with [`IgnoredAny`], which allocates nothing.
//! Strings borrow from the input line when they contain no escapes. [`scan`] reads a JSON text
//! too large to parse whole, in pieces, for the hook input and the shrinker of long lines.

pub(crate) mod scan;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A string field that tolerates any JSON type. Integers become their decimal text (task ids and
/// session ids arrive as numbers in the wild); every other non-string is `None`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LStr<'a> {
    /// The string, if the field was a string (or an integer).
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The string if present and not blank after trimming.
    pub fn non_blank(&self) -> Option<&str> {
        self.get().map(str::trim).filter(|s| !s.is_empty())
    }
}

/// The visitor methods of a lenient field for the JSON types it takes as absent: each returns
/// `$absent`, reading through (and dropping) a list or an object. Written once for the four
/// lenient types below.
macro_rules! absent_as {
    ($de:lifetime, $absent:expr; $($kind:ident),* $(,)?) => {
        $( absent_as!(@one $de, $absent; $kind); )*
    };
    (@one $de:lifetime, $absent:expr; str) => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; bool) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; u64) => {
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; i64) => {
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; f64) => {
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; unit) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; none) => {
        fn visit_none<E>(self) -> Result<Self::Value, E> { Ok($absent) }
    };
    (@one $de:lifetime, $absent:expr; seq) => {
        fn visit_seq<A: SeqAccess<$de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
            while s.next_element::<IgnoredAny>()?.is_some() {}
            Ok($absent)
        }
    };
    (@one $de:lifetime, $absent:expr; map) => {
        fn visit_map<A: MapAccess<$de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($absent)
        }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v))))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_string()))))
            }
            absent_as!('de, LStr(None); f64, bool, unit, none, seq, map);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A boolean field that tolerates any JSON type: only a JSON `true` is true.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LBool(pub bool);

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(v))
            }
            absent_as!('de, LBool(false); str, u64, i64, f64, unit, none, seq, map);
        }
        d.deserialize_any(V)
    }
}

/// An object field parsed as `T` when it is a JSON object, and `None` for any other type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LObj<T>(pub Option<T>);

impl<T> Default for LObj<T> {
    fn default() -> Self {
        LObj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LObj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LObj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(m)).map(|t| LObj(Some(t)))
            }
            absent_as!('de, LObj(None); seq, str, bool, u64, i64, f64, unit, none);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A list field whose object elements are parsed as `T`; non-object elements are skipped, and a
/// non-list value is an empty list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LList<T>(pub Vec<T>);

impl<T> Default for LList<T> {
    fn default() -> Self {
        LList(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LList<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(LObj(item)) = s.next_element::<LObj<T>>()? {
                    out.extend(item);
                }
                Ok(LList(out))
            }
            absent_as!('de, LList(Vec::new()); map, str, bool, u64, i64, f64, unit, none);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// The most bytes of one text field that are ever unescaped and kept. Longer text (a pasted log,
/// a megabyte of tool output) is scanned by the parser but never copied. A snapshot shows at most
/// 9,000 UTF-16 units of one prompt, which in CJK or emoji text takes up to 27 KB of UTF-8: the
/// bound is above that, so whatever the snapshot has room for was read. A longer prompt's cut
/// mark says "at least".
pub const MAX_TEXT: usize = 32 * 1024;

/// A text field: a JSON string cut to `MAX` bytes without materialising the rest; any other type
/// is `None`. Borrows when the kept part has no escapes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LText<'a, const MAX: usize = MAX_TEXT>(pub Option<Cow<'a, str>>);

impl<'a, const MAX: usize> LText<'a, MAX> {
    /// The text, if the field was a string.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a, const MAX: usize> Deserialize<'de> for LText<'a, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(LText(bounded_string(raw.get(), MAX)))
    }
}

/// A text field kept as its ends: the first `HEAD` and the last `TAIL` bytes (cut at characters),
/// neither materialising the middle. A command's output starts with what it printed first and
/// ends with its test runner's result line; both are evidence, the middle rarely is. `None` for
/// any other JSON type.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LEnds<'a, const HEAD: usize, const TAIL: usize> {
    /// The first `HEAD` bytes.
    pub head: Option<Cow<'a, str>>,
    /// The last `TAIL` bytes, from a line start when one lies within them; empty when the head
    /// already holds the whole text.
    pub tail: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a, const HEAD: usize, const TAIL: usize> Deserialize<'de> for LEnds<'a, HEAD, TAIL> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?.get();
        let (head, tail) = ends(raw, HEAD, TAIL);
        Ok(LEnds { head, tail })
    }
}

/// The ends of the JSON string literal `raw` (see [`LEnds`]): its first `head` bytes, and its
/// last `tail` bytes when the head does not hold it all; `(None, None)` if it is no string.
pub fn ends(raw: &str, head: usize, tail: usize) -> (Option<Cow<'_, str>>, Option<Cow<'_, str>>) {
    let Some(first) = bounded_string(raw, head) else {
        return (None, None);
    };
    let body = &raw[1..raw.len() - 1];
    // Short enough that the head has it all (escapes only make the text shorter than its body).
    let last = (body.len() > head)
        .then(|| tail_string(body, tail))
        .flatten();
    (Some(first), last)
}

/// The last `max` bytes (about) of the string whose escaped JSON body is `body`, unescaped,
/// starting after an escaped line break when one lies in that window, else at the first place
/// no escape sequence straddles.
fn tail_string(body: &str, max: usize) -> Option<Cow<'_, str>> {
    let b = body.as_bytes();
    let from = b.len().saturating_sub(max);
    // Whether the backslash at `i` starts an escape (an even run of backslashes precedes it).
    let starts_escape =
        |i: usize| b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0;
    let mut start = None;
    for i in memchr::memmem::find_iter(&b[from..], b"\\n").map(|i| from + i) {
        if starts_escape(i) {
            start = Some(i + 2);
            break;
        }
    }
    let start = match start {
        Some(s) => s,
        None => {
            // No line start: the first character at or after `from` outside any escape.
            let mut i = from;
            loop {
                if i >= b.len() {
                    return None;
                }
                let in_escape = (1..=5).any(|k| {
                    i >= k
                        && b[i - k] == b'\\'
                        && starts_escape(i - k)
                        && (k == 1 || b.get(i - k + 1) == Some(&b'u'))
                });
                if body.is_char_boundary(i) && !in_escape {
                    break i;
                }
                i += 1;
            }
        }
    };
    let literal = format!("\"{}\"", &body[start..]);
    bounded_string(&literal, usize::MAX).map(|c| Cow::Owned(c.into_owned()))
}

/// Message content: a plain string (old records, typed prompts) or a list of blocks. Strings are
/// cut to `MAX` bytes like [`LText`]; a list whose elements fail to parse is empty, not an error.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LContent<'a, T, const MAX: usize = MAX_TEXT> {
    /// `"content": "..."`, cut to `MAX` bytes.
    Text(Cow<'a, str>),
    /// `"content": [ {...}, ... ]` (non-object elements dropped).
    Blocks(Vec<T>),
    /// Missing, null, or any other type.
    #[default]
    Nothing,
}

impl<'de: 'a, 'a, T: Deserialize<'de>, const MAX: usize> Deserialize<'de> for LContent<'a, T, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Look at the raw text first: a string is cut before it is unescaped, a list is parsed.
        let raw = <&'de RawValue>::deserialize(d)?.get();
        Ok(match raw.as_bytes().first() {
            Some(b'"') => bounded_string(raw, MAX).map_or(LContent::Nothing, LContent::Text),
            Some(b'[') => serde_json::from_str::<LList<T>>(raw)
                .map_or(LContent::Nothing, |l| LContent::Blocks(l.0)),
            _ => LContent::Nothing,
        })
    }
}

/// The first `max` bytes (at most; cut at a character) of the JSON string literal `raw`, unescaped.
/// Invalid escapes become U+FFFD. `None` if `raw` is not a string literal.
pub fn bounded_string(raw: &str, max: usize) -> Option<Cow<'_, str>> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    let prefix_end = floor_char_boundary(body, max.min(body.len()));
    if !body[..prefix_end].contains('\\') {
        return Some(Cow::Borrowed(&body[..prefix_end]));
    }
    let mut out = String::with_capacity(prefix_end);
    let mut left = body;
    // Text between escapes is copied a run at a time: a tool call's arguments are JSON text in a
    // string, with an escape every few bytes, and a character at a time was a fifth of a save.
    loop {
        let at = memchr::memchr(b'\\', left.as_bytes()).unwrap_or(left.len());
        let room = max.saturating_sub(out.len());
        if at > room {
            out.push_str(&left[..floor_char_boundary(left, room)]);
            break;
        }
        out.push_str(&left[..at]);
        if at == left.len() || out.len() >= max {
            break;
        }
        let mut chars = left[at + 1..].chars();
        let Some(unescaped) = unescape(&mut chars) else {
            break;
        };
        out.push(unescaped);
        left = chars.as_str();
    }
    let end = floor_char_boundary(&out, max.min(out.len()));
    out.truncate(end);
    Some(Cow::Owned(out))
}

/// The character an escape stands for, read after its backslash (`chars` moves past it);
/// `None` at the end of the text.
fn unescape(chars: &mut std::str::Chars) -> Option<char> {
    Some(match chars.next()? {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'u' => unicode_escape(chars),
        other => other, // \" \\ \/ and anything unknown, leniently
    })
}

/// The character of a `\u` escape read after its `u` (both halves of a surrogate pair, `chars`
/// moved past them); U+FFFD when it is not a whole one.
fn unicode_escape(chars: &mut std::str::Chars) -> char {
    let hex = |chars: &mut std::str::Chars| -> Option<u32> {
        let h: String = chars.by_ref().take(4).collect();
        u32::from_str_radix(&h, 16).ok().filter(|_| h.len() == 4)
    };
    match hex(chars) {
        Some(hi @ 0xD800..=0xDBFF) => {
            let rest = chars.as_str();
            let lo = rest
                .strip_prefix("\\u")
                .and_then(|r| u32::from_str_radix(r.get(..4)?, 16).ok());
            match lo {
                Some(lo @ 0xDC00..=0xDFFF) => {
                    *chars = rest[6..].chars();
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        .unwrap_or('\u{fffd}')
                }
                _ => '\u{fffd}',
            }
        }
        Some(v) => char::from_u32(v).unwrap_or('\u{fffd}'),
        None => '\u{fffd}',
    }
}

/// The largest character boundary of `s` at or below `i` (`i` at most `s.len()`).
pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Makes a line acceptable to `serde_json` without losing its good parts: invalid UTF-8 becomes
/// U+FFFD, and `\uD800`-style escapes that are not part of a surrogate pair become `\uFFFD`
/// (serde_json rejects the whole document for one lone surrogate). Borrows when nothing is wrong,
/// which is almost always.
pub fn repair_line(line: &[u8]) -> Cow<'_, [u8]> {
    let line = match std::str::from_utf8(line) {
        Ok(_) => Cow::Borrowed(line),
        Err(_) => Cow::Owned(String::from_utf8_lossy(line).into_owned().into_bytes()),
    };
    if !has_surrogate_escape(&line) {
        return line;
    }
    Cow::Owned(replace_lone_surrogates(&line))
}

/// Cheap test for `\ud8..`-`\udf..` escapes (any case).
fn has_surrogate_escape(b: &[u8]) -> bool {
    memchr::memmem::find_iter(b, b"\\u").any(|i| surrogate_at(b, i).is_some())
}

/// If `b[i..]` is a `\uXXXX` escape of a surrogate code unit, returns it.
fn surrogate_at(b: &[u8], i: usize) -> Option<u16> {
    let hex = b.get(i + 2..i + 6)?;
    let s = std::str::from_utf8(hex).ok()?;
    let v = u16::from_str_radix(s, 16).ok()?;
    (0xD800..=0xDFFF).contains(&v).then_some(v)
}

fn replace_lone_surrogates(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            // Count the run of backslashes: an even-length run is escaped backslashes only.
            if b.get(i + 1) == Some(&b'\\') {
                out.extend_from_slice(b"\\\\");
                i += 2;
                continue;
            }
            if let Some(hi) = surrogate_at(b, i) {
                let is_high = (0xD800..=0xDBFF).contains(&hi);
                let next_low = b.get(i + 6) == Some(&b'\\')
                    && surrogate_at(b, i + 6).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo));
                if is_high && next_low {
                    out.extend_from_slice(&b[i..i + 12]);
                    i += 12;
                } else {
                    out.extend_from_slice(b"\\ufffd");
                    i += 6;
                }
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Probe<'a> {
        #[serde(borrow)]
        s: LStr<'a>,
        b: LBool,
        o: LObj<Inner>,
        l: LList<Inner>,
        #[serde(borrow)]
        c: LContent<'a, Inner>,
    }

    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Inner {
        x: LBool,
    }

    #[test]
    fn wrong_types_never_fail_the_record() {
        for v in [
            "null",
            "7",
            "-3",
            "1.5",
            "true",
            "\"s\"",
            "[1,[2]]",
            "{\"a\":{\"b\":1}}",
        ] {
            let line = format!(r#"{{"s":{v},"b":{v},"o":{v},"l":{v},"c":{v}}}"#);
            let p: Probe = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{v}: {e}"));
            let _ = (p.s, p.b, p.o, p.l, p.c);
        }
    }

    #[test]
    fn integers_become_strings() {
        let p: Probe = serde_json::from_str(r#"{"s":42}"#).unwrap();
        assert_eq!(p.s.get(), Some("42"));
    }

    #[test]
    fn list_keeps_objects_only() {
        let p: Probe = serde_json::from_str(r#"{"l":[1,{"x":true},null,{"x":"no"}]}"#).unwrap();
        assert_eq!(
            p.l.0,
            vec![Inner { x: LBool(true) }, Inner { x: LBool(false) }]
        );
    }

    #[test]
    fn lone_surrogates_are_replaced_pairs_kept() {
        let line = br#"{"s":"a\ud800b \ud83d\ude00 \udc00 \\ud800"}"#;
        let fixed = repair_line(line);
        let p: Probe = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(p.s.get(), Some("a\u{fffd}b \u{1F600} \u{fffd} \\ud800"));
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let line = b"{\"s\":\"a\xffb\"}";
        let fixed = repair_line(line);
        let p: Probe = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(p.s.get(), Some("a\u{fffd}b"));
    }

    #[test]
    fn bounded_string_unescapes_only_the_kept_prefix() {
        assert_eq!(bounded_string(r#""plain""#, 100).as_deref(), Some("plain"));
        assert!(matches!(
            bounded_string(r#""plain""#, 100),
            Some(Cow::Borrowed(_))
        ));
        assert_eq!(
            bounded_string(r#""a\nb\t\"q\" \u00e9 \ud83d\ude00 \ud800 \\""#, 100).as_deref(),
            Some("a\nb\t\"q\" é 😀 \u{fffd} \\")
        );
        assert_eq!(bounded_string(r#""abcdef""#, 3).as_deref(), Some("abc"));
        assert_eq!(bounded_string(r#""éé\n""#, 3).as_deref(), Some("é"));
        assert_eq!(bounded_string("7", 10), None);
        let long = format!("\"{}\"", "x\\n".repeat(1_000_000));
        assert_eq!(bounded_string(&long, 10).unwrap().len(), 10);
    }

    /// The plain definition: unescape the whole literal a character at a time, then cut.
    fn unescaped_then_cut(raw: &str, max: usize) -> Option<String> {
        let whole: String = serde_json::from_str::<String>(raw).ok()?;
        Some(whole[..floor_char_boundary(&whole, max.min(whole.len()))].to_owned())
    }

    #[test]
    fn bounded_string_copies_runs_between_escapes_exactly() {
        for raw in [
            r#""{\"path\":\"/tmp/é\",\"n\":1}""#,
            r#""\n\n\t x \u00e9\u00e9 \ud83d\ude00 end""#,
            r#""ééé\"ééé\"""#,
            r#""\\\\\\""#,
            r#""plain, then \"quoted\"""#,
        ] {
            for max in 0..raw.len() + 2 {
                assert_eq!(
                    bounded_string(raw, max).as_deref(),
                    unescaped_then_cut(raw, max).as_deref(),
                    "{raw} at {max}"
                );
            }
        }
    }

    #[test]
    fn clean_lines_are_borrowed() {
        assert!(matches!(
            repair_line(br#"{"s":"ok \u00e9"}"#),
            Cow::Borrowed(_)
        ));
    }
}
