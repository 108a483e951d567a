//! Reads a JSON line too long to buffer, in pieces, into a small line of the same structure.
//!
//! A record over [`crate::tail::MAX_LINE`] is nearly always a few small fields around a few huge
//! strings (a prompt with pasted screenshots, a 50 MB tool output) or one huge array. What
//! extraction reads from such a record (who wrote it, its type, the words the user typed, the
//! tool's name) is small, so the line is copied through a byte-level state machine that keeps
//! every key whole and the structure, and cuts each string to [`KEEP_STRING`] bytes (at a
//! character and escape boundary, so the result still parses). Once the copy passes
//! [`SOFT_CAP`], further strings keep only [`LATE_KEEP`] bytes; past [`HARD_CAP`], the further
//! elements of nested containers are dropped (the first ones stay), and past half as much again
//! the record's own further members too. Memory is the output,
//! bounded by [`GIVE_UP`]; time is one pass over the line's bytes. A line that is not JSON comes
//! out as whatever it shrinks to and fails to parse like any damaged line.

use std::io::{self, Read};

/// Bytes of a string's raw (still escaped) content that are kept: twice what any text is read to
/// after unescaping ([`crate::json::MAX_TEXT`]).
pub const KEEP_STRING: usize = 64 * 1024;
/// Past [`SOFT_CAP`] of output, each further string keeps this much.
pub const LATE_KEEP: usize = 1024;
/// Output past which further strings are cut to [`LATE_KEEP`].
pub const SOFT_CAP: usize = 1024 * 1024;
/// Output past which the further elements of nested containers are dropped (and past 1.5 times
/// this, the record's own further members).
pub const HARD_CAP: usize = 2 * 1024 * 1024;
/// Output this long means the line is not a record of a few fields: it is not read at all.
pub const GIVE_UP: usize = 4 * 1024 * 1024;
/// What is kept of a line given up on.
pub const GIVE_UP_HEAD: usize = 64 * 1024;
/// Bytes read from the file per step.
const PIECE: usize = 64 * 1024;

/// The bounds of one shrink (the constants above; tests use small ones).
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// See [`KEEP_STRING`].
    pub keep_string: usize,
    /// See [`LATE_KEEP`].
    pub late_keep: usize,
    /// See [`SOFT_CAP`].
    pub soft_cap: usize,
    /// See [`HARD_CAP`].
    pub hard_cap: usize,
    /// See [`GIVE_UP`].
    pub give_up: usize,
}

impl Bounds {
    /// The bounds used on transcript lines.
    pub const LINE: Bounds = Bounds {
        keep_string: KEEP_STRING,
        late_keep: LATE_KEEP,
        soft_cap: SOFT_CAP,
        hard_cap: HARD_CAP,
        give_up: GIVE_UP,
    };
}

/// Where the copy is in the JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between tokens: structure is copied, white space dropped.
    Structure,
    /// Inside a string, copying; `kept` content bytes so far, at most `limit`.
    Str { kept: usize, limit: usize },
    /// Inside a string past its limit: skipped to its closing quote (`escaped`: the next byte
    /// follows a backslash).
    StrCut { escaped: bool },
    /// After a backslash inside a string: the escape is gathered whole, then kept or not.
    Escape { kept: usize, limit: usize },
    /// Dropping the rest of the container open, up to its closing bracket.
    Drop(Skip),
}

/// Where the skipping of a dropped container is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Skip {
    /// Containers opened inside the dropped part and not yet closed.
    depth: usize,
    in_string: bool,
    /// The next byte follows a backslash in a string.
    escaped: bool,
}

/// Copies the JSON line read from `src` into `out`, shrunk. `Ok(false)` when it would not fit in
/// [`GIVE_UP`] bytes: `out` then holds the first [`GIVE_UP_HEAD`] bytes of the shrunk copy (not
/// JSON), enough to tell what kind of record it was.
pub fn shrink(src: impl Read, out: &mut Vec<u8>) -> io::Result<bool> {
    shrink_within(src, out, Bounds::LINE)
}

/// [`shrink`] within other bounds.
pub fn shrink_within(mut src: impl Read, out: &mut Vec<u8>, bounds: Bounds) -> io::Result<bool> {
    out.clear();
    let mut s = Shrinker {
        bounds,
        out,
        state: State::Structure,
        depth: 0,
        objects: Vec::new(),
        last: 0,
        esc: Vec::with_capacity(6),
        string_start: 0,
        high_surrogate_at: None,
    };
    let mut piece = vec![0u8; PIECE];
    loop {
        let n = match src.read(&mut piece) {
            Ok(0) => return Ok(true),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        s.feed(&piece[..n]);
        if s.out.len() > bounds.give_up {
            s.out.truncate(GIVE_UP_HEAD);
            return Ok(false);
        }
    }
}

struct Shrinker<'o> {
    bounds: Bounds,
    out: &'o mut Vec<u8>,
    state: State,
    /// Containers open (`{` or `[`), the record itself being depth 1.
    depth: usize,
    /// Whether each open container is an object (innermost last), to tell keys from values.
    objects: Vec<bool>,
    /// The last structural byte copied: a string after `{` or `,` in an object is a key.
    last: u8,
    /// The escape being gathered (`\n`, `\u00e9`).
    esc: Vec<u8>,
    /// Where the current string's content starts in `out`.
    string_start: usize,
    /// Where a `\uD8xx` escape just copied starts in `out`: a cut right after it would leave a
    /// lone surrogate, which does not parse, so it is taken back.
    high_surrogate_at: Option<usize>,
}

impl Shrinker<'_> {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let used = match self.state {
                State::Structure => self.structure(bytes),
                State::Str { kept, limit } => self.string(bytes, kept, limit),
                State::StrCut { escaped } => self.string_cut(bytes, escaped),
                State::Escape { kept, limit } => self.escape(bytes[0], kept, limit),
                State::Drop(skip) => self.drop(bytes, skip),
            };
            bytes = &bytes[used..];
        }
    }

    /// One structural byte.
    fn structure(&mut self, bytes: &[u8]) -> usize {
        let b = bytes[0];
        match b {
            b'"' => {
                let key = matches!(self.last, b'{' | b',') && self.objects.last() == Some(&true);
                self.out.push(b'"');
                self.string_start = self.out.len();
                self.high_surrogate_at = None;
                // Keys are kept whole: a cut key would change what the record says.
                self.state = State::Str {
                    kept: 0,
                    limit: if key {
                        usize::MAX
                    } else if self.out.len() > self.bounds.soft_cap {
                        self.bounds.late_keep
                    } else {
                        self.bounds.keep_string
                    },
                };
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.objects.push(b == b'{');
                self.out.push(b);
            }
            b'}' | b']' => {
                self.close(b);
            }
            b',' if self.depth >= 2 && self.out.len() > self.bounds.hard_cap
                || self.out.len() > self.bounds.hard_cap / 2 * 3 =>
            {
                // The rest of this container is dropped; its closing bracket is kept.
                self.state = State::Drop(Skip::default());
            }
            b' ' | b'\t' | b'\n' | b'\r' => return 1,
            _ => self.out.push(b),
        }
        self.last = b;
        1
    }

    /// A closing bracket.
    fn close(&mut self, b: u8) {
        self.depth = self.depth.saturating_sub(1);
        self.objects.pop();
        self.out.push(b);
        self.last = b;
    }

    /// A run of string content up to the next quote or backslash.
    fn string(&mut self, bytes: &[u8], kept: usize, limit: usize) -> usize {
        let run = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
        if run > 0 {
            self.high_surrogate_at = None;
            let room = limit.saturating_sub(kept);
            if run <= room {
                self.out.extend_from_slice(&bytes[..run]);
                self.state = State::Str {
                    kept: kept + run,
                    limit,
                };
            } else {
                self.out.extend_from_slice(&bytes[..room]);
                self.end_string_here();
                return room;
            }
            return run;
        }
        match bytes[0] {
            b'"' => self.end_quote(),
            _ => {
                self.esc.clear();
                self.esc.push(b'\\');
                self.state = State::Escape { kept, limit };
            }
        }
        1
    }

    /// The closing quote of a string.
    fn end_quote(&mut self) {
        self.out.push(b'"');
        self.last = b'"';
        self.state = State::Structure;
    }

    /// The string has reached its limit: its content ends at a whole character and escape, and
    /// the rest up to the closing quote is skipped.
    fn end_string_here(&mut self) {
        if let Some(at) = self.high_surrogate_at.take() {
            self.out.truncate(at);
        }
        trim_partial_char(self.out, self.string_start);
        self.state = State::StrCut { escaped: false };
    }

    /// One byte of an escape: `\x`, or `\uXXXX` once its four digits are in.
    fn escape(&mut self, b: u8, kept: usize, limit: usize) -> usize {
        self.esc.push(b);
        let whole = if self.esc[1] == b'u' {
            self.esc.len() == 6
        } else {
            true
        };
        if !whole {
            return 1;
        }
        if kept.saturating_add(self.esc.len()) > limit {
            self.end_string_here();
            return 1;
        }
        let at = self.out.len();
        self.out.extend_from_slice(&self.esc);
        self.high_surrogate_at = (self.esc[1] == b'u'
            && matches!(self.esc[2], b'd' | b'D')
            && matches!(self.esc[3], b'8' | b'9' | b'a' | b'b' | b'A' | b'B'))
        .then_some(at);
        self.state = State::Str {
            kept: kept.saturating_add(self.esc.len()),
            limit,
        };
        1
    }

    /// Skips string content past its limit, to the closing quote.
    fn string_cut(&mut self, bytes: &[u8], escaped: bool) -> usize {
        if escaped {
            self.state = State::StrCut { escaped: false };
            return 1;
        }
        let Some(i) = memchr::memchr2(b'"', b'\\', bytes) else {
            return bytes.len();
        };
        if bytes[i] == b'"' {
            self.end_quote();
        } else {
            // A backslash hides the byte after it (the digits of `\u` hide no quote).
            self.state = State::StrCut { escaped: true };
        }
        i + 1
    }

    /// Skips the rest of a dropped container, strings and nesting included, up to its closing
    /// bracket, which is kept.
    fn drop(&mut self, bytes: &[u8], mut skip: Skip) -> usize {
        let mut i = 0;
        while i < bytes.len() {
            if skip.escaped {
                skip.escaped = false;
                i += 1;
                continue;
            }
            if skip.in_string {
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    None => i = bytes.len(),
                    Some(j) => {
                        skip.in_string = bytes[i + j] != b'"';
                        skip.escaped = skip.in_string;
                        i += j + 1;
                    }
                }
                continue;
            }
            match bytes[i] {
                b'"' => skip.in_string = true,
                b'{' | b'[' => skip.depth += 1,
                b'}' | b']' if skip.depth == 0 => {
                    self.close(bytes[i]);
                    self.state = State::Structure;
                    return i + 1;
                }
                b'}' | b']' => skip.depth -= 1,
                _ => {}
            }
            i += 1;
        }
        self.state = State::Drop(skip);
        i
    }
}

/// Removes a UTF-8 sequence left incomplete at the end of `out` (never before `floor`).
fn trim_partial_char(out: &mut Vec<u8>, floor: usize) {
    let content = &out[floor..];
    // The last lead byte, at most three bytes back.
    let Some(back) = content.iter().rev().take(4).position(|&b| b & 0xC0 != 0x80) else {
        return;
    };
    let lead_at = content.len() - 1 - back;
    let need = match content[lead_at] {
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        b if b >= 0xC0 => 2,
        _ => 1,
    };
    if content.len() - lead_at < need {
        out.truncate(floor + lead_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// A reader that hands out its bytes in pieces of the given sizes, in turn.
    struct Pieces<'a> {
        data: &'a [u8],
        sizes: Vec<usize>,
        turn: usize,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let want = self.sizes[self.turn % self.sizes.len()].max(1);
            self.turn += 1;
            let n = want.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn run(data: &[u8], sizes: Vec<usize>, bounds: Bounds) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let src = Pieces {
            data,
            sizes,
            turn: 0,
        };
        shrink_within(src, &mut out, bounds).unwrap().then_some(out)
    }

    const SMALL: Bounds = Bounds {
        keep_string: 8,
        late_keep: 2,
        soft_cap: 60,
        hard_cap: 120,
        give_up: 4_000,
    };

    /// Whether `small` is what shrinking may make of `big`: the same type and keys in the same
    /// order (trailing ones may be dropped), strings cut to a prefix, leading array elements.
    fn is_shrink_of(small: &Value, big: &Value) -> bool {
        match (small, big) {
            (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
            (Value::Array(a), Value::Array(b)) => {
                a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| is_shrink_of(x, y))
            }
            (Value::Object(a), Value::Object(b)) => {
                a.len() <= b.len()
                    && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
                        kb.starts_with(ka.as_str()) && is_shrink_of(va, vb)
                    })
            }
            (a, b) => a == b,
        }
    }

    #[test]
    fn a_record_with_pasted_screenshots_keeps_its_typed_text() {
        let image = "iVBORw0KGgo".repeat(200_000); // 2.2 MB of base64 per image
        let line = json!({
            "type": "user",
            "uuid": "u9",
            "message": {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "data": image}},
                {"type": "image", "source": {"type": "base64", "data": image}},
                {"type": "text", "text": "fix the layout shown in these screenshots"},
            ]},
            "promptSource": "typed",
        })
        .to_string();
        assert!(line.len() > crate::tail::MAX_LINE);
        let mut out = Vec::new();
        assert!(shrink(line.as_bytes(), &mut out).unwrap());
        assert!(out.len() < 3 * KEEP_STRING, "{}", out.len());
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["uuid"], "u9");
        assert_eq!(v["promptSource"], "typed");
        assert_eq!(
            v["message"]["content"][2]["text"],
            "fix the layout shown in these screenshots"
        );
    }

    #[test]
    fn cuts_fall_on_whole_characters_and_escapes() {
        for text in [
            "é€😀".repeat(5),
            "\\u00e9\\n\\\"".repeat(5),
            "\\ud83d\\ude00".repeat(5),
        ] {
            let raw = format!(r#"{{"t":"{text}"}}"#);
            for keep in 0..30 {
                let bounds = Bounds {
                    keep_string: keep,
                    ..SMALL
                };
                let out = run(raw.as_bytes(), vec![1, 2, 3], bounds).unwrap();
                let v: Value = serde_json::from_slice(&out)
                    .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
                let full: Value = serde_json::from_str(&raw).unwrap();
                assert!(is_shrink_of(&v, &full), "{v} / {full}");
            }
        }
    }

    #[test]
    fn a_huge_array_keeps_its_first_elements_and_the_keys_after_it() {
        let names: Vec<String> = (0..500).map(|i| format!("file{i}.rs")).collect();
        let line = json!({"type": "user", "toolUseResult": {"filenames": names}, "uuid": "u1"})
            .to_string();
        let out = run(line.as_bytes(), vec![7], SMALL).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        let kept = v["toolUseResult"]["filenames"].as_array().unwrap().len();
        assert!((1..500).contains(&kept), "{kept}");
        assert_eq!(v["uuid"], "u1");
    }

    #[test]
    fn deep_nesting_or_endless_structure_gives_up() {
        let deep = "[".repeat(10_000);
        assert!(run(deep.as_bytes(), vec![100], SMALL).is_none());
        let flat = format!("{{{}\"k\":1}}", "\"k\":1,".repeat(10_000));
        // Top-level members past the hard cap are dropped: bounded, not given up.
        let out = run(flat.as_bytes(), vec![100], SMALL).unwrap();
        assert!(out.len() < 200);
        serde_json::from_slice::<Value>(&out).unwrap();
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "\\PC{0,30}".prop_map(Value::String),
            "[\\\\\"\\n\\u{1}-\\u{1f}é😀a]{0,30}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[a-z]{1,6}", inner), 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn cases(cases: u32) -> ProptestConfig {
        ProptestConfig {
            cases,
            source_file: Some(file!()),
            ..ProptestConfig::default()
        }
    }

    #[test]
    fn shrunk_json_parses_and_is_a_shrink_of_the_original() {
        let input = (
            any_value(),
            prop::collection::vec(1..20usize, 1..5),
            0..40usize,
            0..10usize,
            0..300usize,
            any::<bool>(),
        );
        let kinds = [("shrunk", 0.2), ("kept whole", 0.1)];
        crate::proptesting::check(
            cases(1_000),
            input,
            &kinds,
            |(v, sizes, keep, late, soft, pretty), seen| {
                let text = if pretty {
                    serde_json::to_string_pretty(&v)
                } else {
                    serde_json::to_string(&v)
                }
                .unwrap();
                let bounds = Bounds {
                    keep_string: keep,
                    late_keep: late,
                    soft_cap: soft,
                    hard_cap: soft * 2,
                    give_up: 1 << 20,
                };
                let out = run(text.as_bytes(), sizes.clone(), bounds).unwrap();
                let small: Value = serde_json::from_slice(&out).map_err(|e| {
                    TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&out)))
                })?;
                seen.saw("shrunk", small != v);
                seen.saw("kept whole", small == v);
                prop_assert!(is_shrink_of(&small, &v), "{} from {}", small, v);
                // Where the pieces fall changes nothing.
                prop_assert_eq!(run(text.as_bytes(), vec![1 << 20], bounds).unwrap(), out);
                Ok(())
            },
        );
    }

    #[test]
    fn small_json_comes_back_equal() {
        let kinds = [("nested", 0.3)];
        crate::proptesting::check(cases(1_000), any_value(), &kinds, |v, seen| {
            seen.saw("nested", v.is_array() || v.is_object());
            let text = serde_json::to_string(&v).unwrap();
            let out = run(text.as_bytes(), vec![3], Bounds::LINE).unwrap();
            prop_assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), v);
            Ok(())
        });
    }

    #[test]
    fn any_bytes_stay_bounded_and_never_panic() {
        // Bytes, and bytes after a JSON opening (most random bytes are given up on at once).
        let data = prop_oneof![
            prop::collection::vec(any::<u8>(), 0..2_000),
            prop::collection::vec(any::<u8>(), 0..2_000)
                .prop_map(|d| [b"{\"a\":[\"".to_vec(), d].concat()),
        ];
        let input = (data, prop::collection::vec(1..50usize, 1..4));
        let kinds = [("read", 0.5), ("cut", 0.1)];
        crate::proptesting::check(cases(1_000), input, &kinds, |(data, sizes), seen| {
            let out = run(&data, sizes, SMALL);
            seen.saw("read", out.is_some());
            seen.saw("cut", out.as_ref().is_some_and(|o| o.len() < data.len()));
            if let Some(out) = out {
                prop_assert!(out.len() <= SMALL.give_up + 64);
            }
            Ok(())
        });
    }
}
