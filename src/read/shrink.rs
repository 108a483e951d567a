//! Reads a JSON line too long to buffer, in pieces, into a small line of the same structure.
//!
//! A record over [`crate::read::tail::MAX_LINE`] is nearly always a few small fields around a few huge
//! strings (a prompt with pasted screenshots, a 50 MB tool output) or one huge array. What
//! extraction reads from such a record (who wrote it, its type, the words the user typed, the
//! tool's name) is small, so the line is copied token by token (the scanner `json::scan`, shared
//! with the hook input), keeping every key whole and the structure, and each string cut to
//! [`KEEP_STRING`] bytes (at a character and escape boundary, so the result still parses). Once
//! the copy passes [`SOFT_CAP`], further strings keep only [`LATE_KEEP`] bytes. Memory is the
//! output, bounded by [`GIVE_UP`]; time is one pass over the line's bytes. A line that is not
//! JSON comes out as whatever it shrinks to and fails to parse like any damaged line.
//!
//! What the user wrote is never cut below what a reader reads (issue #41, D042). In a record that
//! is not a tool's call or result, a string under a key that holds text ([`TEXT_KEYS`]: the typed
//! words of a prompt, Claude Code's or Codex's) keeps [`TEXT_KEEP`] bytes wherever it comes: at
//! least [`crate::json::MAX_TEXT`] once unescaped, so a longer text is cut by the reader, whose
//! cut the snapshot marks, never silently here. Past [`HARD_CAP`] (the record's own members:
//! past half as much again) the copy keeps only what tells a record apart and what it says: an
//! object's further members named in [`KEPT_KEYS`], an array's further elements that are objects
//! (each reduced the same way); the rest is skipped. In a tool's record, where nothing read is the
//! user's, the further elements and members past the cap are all dropped, as before.

use crate::json::scan::{Scanner, Token};
use std::io::{self, Read};

/// Bytes of a string's raw (still escaped) content that are kept: twice what any text is read to
/// after unescaping ([`crate::json::MAX_TEXT`]).
pub const KEEP_STRING: usize = 64 * 1024;
/// Bytes of raw content kept of a string that holds text the user may have written: an escape
/// takes at most six bytes for one unescaped byte, so this is never less than what the reader
/// reads ([`crate::json::MAX_TEXT`]).
pub const TEXT_KEEP: usize = 6 * crate::json::MAX_TEXT;
/// Past [`SOFT_CAP`] of output, each further string keeps this much.
pub const LATE_KEEP: usize = 1024;
/// Output past which further strings are cut to [`LATE_KEEP`].
pub const SOFT_CAP: usize = 1024 * 1024;
/// Output past which only what tells a record apart is copied of nested containers' further
/// members and elements (and past 1.5 times this, of the record's own).
pub const HARD_CAP: usize = 2 * 1024 * 1024;
/// Output this long means the line is not a record of a few fields: it is not read at all.
pub const GIVE_UP: usize = 4 * 1024 * 1024;
/// What is kept of a line given up on.
pub const GIVE_UP_HEAD: usize = 64 * 1024;
/// Bytes read from the file per step.
const PIECE: usize = 64 * 1024;

/// Keys whose string values hold text a user may have typed: a Claude Code prompt's
/// `message.content` (a string, or blocks' `text`), a queued prompt's `prompt`, Codex's
/// `message` and `text`.
pub const TEXT_KEYS: &[&[u8]] = &[b"text", b"content", b"message", b"prompt"];
/// Keys kept past the hard cap besides [`TEXT_KEYS`]: what the readers use to tell what a record
/// is, who wrote it, where it hangs in the conversation, and which call a result answers.
pub const KEPT_KEYS: &[&[u8]] = &[
    b"type",
    b"subtype",
    b"role",
    b"uuid",
    b"parentUuid",
    b"isSidechain",
    b"isMeta",
    b"isCompactSummary",
    b"isVisibleInTranscriptOnly",
    b"promptSource",
    b"origin",
    b"kind",
    b"payload",
    b"attachment",
    b"item",
    b"tool_use_id",
    b"call_id",
    b"is_error",
    b"id",
    b"name",
];
/// Keys that mark a tool's call or result: its texts are not the user's.
const TOOL_KEYS: &[&[u8]] = &[
    b"tool_use_id",
    b"toolUseResult",
    b"input",
    b"call_id",
    b"arguments",
    b"output",
];

/// The bounds of one shrink (the constants above; tests use small ones).
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// See [`KEEP_STRING`].
    pub keep_string: usize,
    /// See [`TEXT_KEEP`].
    pub text_keep: usize,
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
        text_keep: TEXT_KEEP,
        late_keep: LATE_KEEP,
        soft_cap: SOFT_CAP,
        hard_cap: HARD_CAP,
        give_up: GIVE_UP,
    };
}

/// What the copy is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Copying: structure (white space dropped) and strings, each within its bound.
    Copy,
    /// Skipping: the rest of the container open (its closing bracket kept), or one member or
    /// element of it (up to the `,` or bracket after it, which is then read as structure).
    Drop(Skip),
    /// Past the hard cap in an array: the next element is copied if it is an object, skipped
    /// otherwise.
    PickElement,
}

/// Where the skipping of a dropped container is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Skip {
    /// Containers opened inside the dropped part and not yet closed.
    depth: usize,
    /// Only one member or element is skipped: it ends at a `,` (or the closing bracket) at its
    /// level.
    one: bool,
}

/// What the key a value sits under says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    /// Nothing in particular.
    #[default]
    Other,
    /// A text the user may have written ([`TEXT_KEYS`]).
    Text,
}

/// An open container.
#[derive(Debug, Clone, Copy)]
struct Frame {
    object: bool,
    /// The key of the member being copied (an object), or the key the array sits under.
    key: Key,
    /// Where its opening bracket is in the output.
    open_at: usize,
    /// An element copied past the hard cap: where the output goes back to if nothing of it is
    /// kept (its separator included).
    rollback: Option<usize>,
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
        scanner: Scanner::default(),
        state: State::Copy,
        frames: Vec::new(),
        last: 0,
        string_start: 0,
        judge_key: None,
        in_key: false,
        tool: false,
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
    scanner: Scanner,
    state: State,
    /// The containers open (`{` or `[`), the record itself first.
    frames: Vec<Frame>,
    /// The last structural byte copied: a string after `{` or `,` in an object is a key.
    last: u8,
    /// Where the current string's content starts in `out`.
    string_start: usize,
    /// Past the hard cap, a key being read decides whether its member is kept: if not, the output
    /// goes back to this length (its separator included) and the member is skipped.
    judge_key: Option<usize>,
    /// The string being copied is a key.
    in_key: bool,
    /// The record is a tool's call or result ([`TOOL_KEYS`]).
    tool: bool,
}

impl Shrinker<'_> {
    fn feed(&mut self, bytes: &[u8]) {
        let mut at = 0;
        loop {
            if let State::Drop(mut skip) = self.state {
                let end = self.scanner.skip(bytes, &mut at, &mut skip.depth);
                self.state = State::Drop(skip);
                match end {
                    Some(b) => self.dropped_to(b, skip),
                    None => return,
                }
                continue;
            }
            let Some(token) = self.scanner.next(bytes, &mut at, self.out) else {
                return;
            };
            match self.state {
                State::PickElement => self.pick_element(token),
                _ => self.structure(token),
            }
        }
    }

    /// Whether the output is past the cap for the container open now: the record's own members
    /// past 1.5 times the hard cap, nested ones past it.
    fn past_cap(&self) -> bool {
        self.out.len() > self.bounds.hard_cap / 2 * 3
            || self.frames.len() >= 2 && self.out.len() > self.bounds.hard_cap
    }

    /// One token copied.
    fn structure(&mut self, token: Token) {
        let b = match token {
            Token::Quote => {
                self.open_string();
                self.last = b'"';
                return;
            }
            Token::End { .. } => return self.end_quote(),
            Token::Bare(run) => {
                self.out.extend_from_slice(run);
                self.last = run[run.len() - 1];
                return;
            }
            Token::Punct(b) => b,
        };
        match b {
            b'{' | b'[' => self.open(b),
            b'}' | b']' => self.close(b),
            b',' if self.past_cap() => self.past_cap_separator(),
            b':' => {
                self.out.push(b);
                self.judge_key = None;
            }
            _ => self.out.push(b),
        }
        self.last = b;
    }

    /// A string's opening quote: a key is kept whole (a cut key would change what the record
    /// says), a text the user may have written up to [`Bounds::text_keep`], any other string to
    /// its bound (a smaller one past the soft cap).
    fn open_string(&mut self) {
        let key = matches!(self.last, b'{' | b',') && self.frames.last().is_some_and(|f| f.object);
        self.out.push(b'"');
        self.string_start = self.out.len();
        self.in_key = key;
        let under = self.frames.last().map(|f| f.key).unwrap_or_default();
        let limit = if key {
            usize::MAX
        } else if under == Key::Text && !self.tool {
            self.bounds.text_keep
        } else if self.out.len() > self.bounds.soft_cap {
            self.bounds.late_keep
        } else {
            self.bounds.keep_string
        };
        self.scanner.copy(self.out, limit);
        if !key {
            self.judge_key = None;
        }
    }

    /// A separator past the hard cap: in a tool's record the rest of the container is dropped
    /// (its closing bracket kept); in another, the next member or element decides for itself.
    fn past_cap_separator(&mut self) {
        if self.tool {
            self.state = State::Drop(Skip::default());
            return;
        }
        let at = self.out.len();
        // A separator only between what is kept.
        if !matches!(self.out.last(), Some(b'{' | b'[')) {
            self.out.push(b',');
        }
        self.pick_next(at);
    }

    /// Past the hard cap, the next member or element decides for itself whether it is kept;
    /// `at` is where the output goes back to if it is not.
    fn pick_next(&mut self, at: usize) {
        match self.frames.last() {
            Some(f) if f.object => self.judge_key = Some(at),
            _ => self.state = State::PickElement,
        }
    }

    /// A container opens (past the hard cap, its first member or element is judged like the
    /// further ones).
    fn open(&mut self, b: u8) {
        let key = match (b, self.frames.last()) {
            (b'[', Some(f)) => f.key, // an array's elements sit under the array's key
            _ => Key::Other,
        };
        let rollback = self.judge_key.take().filter(|_| b == b'{');
        self.frames.push(Frame {
            object: b == b'{',
            key,
            open_at: self.out.len(),
            rollback: None,
        });
        if let Some(at) = rollback
            && let Some(f) = self.frames.last_mut()
        {
            f.rollback = Some(at);
        }
        self.out.push(b);
        self.last = b;
        if self.past_cap() && !self.tool {
            let at = self.out.len();
            self.pick_next(at);
        }
    }

    /// A closing bracket.
    fn close(&mut self, b: u8) {
        self.judge_key = None;
        let frame = self.frames.pop();
        match frame {
            // An element copied past the cap of which nothing was kept goes, separator and all.
            Some(Frame {
                rollback: Some(at),
                open_at,
                ..
            }) if self.out.len() == open_at + 1 => self.out.truncate(at),
            _ => self.out.push(b),
        }
        self.last = b;
    }

    /// Past the hard cap in an array, the next element: an object is copied (reduced like the
    /// rest), anything else skipped.
    fn pick_element(&mut self, token: Token) {
        match token {
            Token::Punct(b'{') => {
                self.state = State::Copy;
                // Its opening bracket goes back with it if nothing of it is kept.
                let at = self.element_start();
                self.judge_key = Some(at);
                self.open(b'{');
            }
            Token::Punct(b']') => {
                self.state = State::Copy;
                self.drop_separator();
                self.close(b']');
            }
            _ => {
                // Skipped from this token on (a string's rest is the scanner's to skip).
                self.drop_separator();
                let mut one = Skip {
                    one: true,
                    ..Skip::default()
                };
                match token {
                    Token::Punct(b @ (b',' | b'}' | b']')) => return self.dropped_to(b, one),
                    Token::Punct(b'[') => one.depth = 1,
                    _ => {}
                }
                self.state = State::Drop(one);
            }
        }
    }

    /// Where the element being picked starts, its separator included.
    fn element_start(&self) -> usize {
        match self.out.last() {
            Some(b',') => self.out.len() - 1,
            _ => self.out.len(),
        }
    }

    /// Takes back the separator written before an element or member that is skipped.
    fn drop_separator(&mut self) {
        if self.out.last() == Some(&b',') {
            self.out.pop();
        }
    }

    /// The closing quote of a string (a key's: what it names is noted).
    fn end_quote(&mut self) {
        if std::mem::take(&mut self.in_key) {
            self.key_read();
        }
        if matches!(self.state, State::Drop(_)) {
            return; // the member it named is skipped
        }
        self.out.push(b'"');
        self.last = b'"';
    }

    /// A key has been read whole (it is the output from `string_start`): the value after it
    /// is read as its key says; past the hard cap, a key not worth keeping skips its member.
    fn key_read(&mut self) {
        let key = &self.out[self.string_start..];
        self.tool |= TOOL_KEYS.contains(&key);
        let text = TEXT_KEYS.contains(&key);
        if let Some(f) = self.frames.last_mut() {
            f.key = if text { Key::Text } else { Key::Other };
        }
        if let Some(at) = self.judge_key
            && !text
            && !KEPT_KEYS.contains(&key)
        {
            self.out.truncate(at);
            self.judge_key = None;
            self.state = State::Drop(Skip {
                one: true,
                ..Skip::default()
            });
        }
    }

    /// What is skipped has reached a `,` or a bracket at its own level: one member or element
    /// ends there (and the byte is read as structure); the rest of a container ends at its
    /// closing bracket, which is kept.
    fn dropped_to(&mut self, b: u8, skip: Skip) {
        if skip.one {
            self.state = State::Copy;
            self.structure(Token::Punct(b));
        } else if b != b',' {
            self.close(b);
            self.state = State::Copy;
        }
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
        text_keep: 16,
        late_keep: 2,
        soft_cap: 60,
        hard_cap: 120,
        give_up: 4_000,
    };

    /// Whether `small` is what shrinking may make of `big`: the same type, an object's members
    /// and an array's elements in the same order with some left out, each kept one a shrink of
    /// its own, strings cut to a prefix.
    fn is_shrink_of(small: &Value, big: &Value) -> bool {
        match (small, big) {
            (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
            (Value::Array(a), Value::Array(b)) => subsequence(a.iter(), b.iter()),
            (Value::Object(a), Value::Object(b)) => subsequence(a.iter(), b.iter()),
            (a, b) => a == b,
        }
    }

    /// Whether each of `small` matches, in order, one of `big` (leftmost first, which finds a
    /// match whenever one exists).
    fn subsequence<'v, T: Matches + 'v>(
        small: impl Iterator<Item = T>,
        mut big: impl Iterator<Item = T>,
    ) -> bool {
        small.into_iter().all(|s| big.any(|b| s.matches(&b)))
    }

    trait Matches {
        fn matches(&self, big: &Self) -> bool;
    }

    impl Matches for &Value {
        fn matches(&self, big: &Self) -> bool {
            is_shrink_of(self, big)
        }
    }

    impl Matches for (&String, &Value) {
        fn matches(&self, big: &Self) -> bool {
            self.0 == big.0 && is_shrink_of(self.1, big.1)
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
        assert!(line.len() > crate::read::tail::MAX_LINE);
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
        assert!(
            run(
                deep.as_bytes(),
                vec![100],
                Bounds {
                    hard_cap: 1 << 20,
                    ..SMALL
                }
            )
            .is_none()
        );
        // Past the cap, nested arrays in arrays are skipped: bounded, not given up.
        let out = run(deep.as_bytes(), vec![100], SMALL).unwrap();
        assert!(out.len() < 200);
        let flat = format!("{{{}\"k\":1}}", "\"k\":1,".repeat(10_000));
        // Top-level members past the hard cap are dropped: bounded, not given up.
        let out = run(flat.as_bytes(), vec![100], SMALL).unwrap();
        assert!(out.len() < 200);
        serde_json::from_slice::<Value>(&out).unwrap();
    }

    #[test]
    fn the_typed_text_after_sixteen_screenshots_is_kept_whole() {
        // Issue #41 item 3: past the soft cap every later string kept 1 KiB, the typed text too.
        let image = "iVBORw0KGgo".repeat(28_000);
        let words = "Refactor the importer. ".repeat(172); // 3,956 characters
        let mut content: Vec<Value> = (0..16)
            .map(|_| json!({"type": "image", "source": {"type": "base64", "data": image}}))
            .collect();
        content.push(json!({"type": "text", "text": words}));
        let line =
            json!({"type": "user", "message": {"role": "user", "content": content}}).to_string();
        let out = run(line.as_bytes(), vec![PIECE], Bounds::LINE).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["message"]["content"][16]["text"], words.as_str());
    }

    #[test]
    fn a_text_is_never_cut_below_what_the_reader_reads() {
        // Every character escaped as \u0001 (six bytes each): the raw bound still leaves
        // `json::MAX_TEXT` bytes once unescaped, so the reader's own (marked) cut is the one.
        let text = "\\u0001".repeat(crate::json::MAX_TEXT + 10);
        let line = format!(r#"{{"type":"user","message":{{"content":"{text}"}}}}"#);
        let out = run(line.as_bytes(), vec![PIECE], Bounds::LINE).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        let kept = v["message"]["content"].as_str().unwrap();
        assert!(kept.len() >= crate::json::MAX_TEXT, "{}", kept.len());
    }

    #[test]
    fn past_the_hard_cap_what_tells_a_prompt_apart_is_kept_and_the_rest_skipped() {
        // Issue #41 item 10: a `message.content` after the bulk was dropped with the rest of
        // its object, and the record was no prompt.
        let bulk: Vec<String> = (0..400).map(|i| format!("{i:04}")).collect();
        let line = json!({"type": "user", "bulk": bulk, "uuid": "u2", "extra": "x",
            "message": {"role": "user", "usage": bulk, "model": "m", "content": [
                {"type": "image", "source": {"data": "AAAA"}},
                "a string element",
                [1, 2],
                {"source": {"data": "BBBB"}},
                {"type": "text", "text": "the typed words"}]}})
        .to_string();
        let out = run(line.as_bytes(), vec![5], SMALL).unwrap();
        let v: Value = serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
        assert!(
            is_shrink_of(&v, &serde_json::from_str(&line).unwrap()),
            "{v}"
        );
        assert_eq!(v["uuid"], "u2");
        assert!(v["message"].get("model").is_none(), "skipped: {v}");
        assert!(v["message"].get("usage").is_none(), "skipped: {v}");
        // The image's source, the string and the nested array are skipped; the blocks stay,
        // with what tells them apart (their `type`, cut like any late string) and the text.
        let content = v["message"]["content"].as_array().unwrap();
        assert_eq!(content.len(), 2, "{v}");
        assert!(content[0].get("source").is_none(), "{v}");
        assert_eq!(content[1]["text"], "the typed words", "{v}");
    }

    #[test]
    fn in_a_tools_record_the_further_elements_past_the_cap_are_dropped() {
        let names: Vec<String> = (0..500).map(|i| format!("file{i}.rs")).collect();
        let line = json!({"type": "user", "message": {"content": [{"tool_use_id": "t1",
            "type": "tool_result", "content": names}]}, "toolUseResult": {"filenames": names}})
        .to_string();
        let out = run(line.as_bytes(), vec![7], SMALL).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert!(is_shrink_of(&v, &serde_json::from_str(&line).unwrap()));
        assert_eq!(v["message"]["content"][0]["tool_use_id"], "t1");
        assert!(out.len() < 400, "{}", out.len());
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
            crate::proptesting::json_value(),
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
                    text_keep: keep * 2,
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
        crate::proptesting::check(
            cases(1_000),
            crate::proptesting::json_value(),
            &kinds,
            |v, seen| {
                seen.saw("nested", v.is_array() || v.is_object());
                let text = serde_json::to_string(&v).unwrap();
                let out = run(text.as_bytes(), vec![3], Bounds::LINE).unwrap();
                prop_assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), v);
                Ok(())
            },
        );
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
