//! A JSON text read as a stream of pieces, token by token, in bounded memory: the one scanner
//! under the hook input's reader (`input::hook_input`) and the shrinker of lines too long to
//! buffer (`read::shrink`).
//!
//! It knows only JSON's lexical shape: which bytes are structure, which are white space between
//! tokens (dropped, a run at a time) and which are inside a string. What to keep is its caller's
//! to decide, token by token. At a string's opening quote the caller either lets the string be
//! skipped or has it copied into its output up to a bound; a copy is cut only where a character
//! starts outside an escape (and never between the two halves of a surrogate pair), so what is
//! kept still parses. Strings are read a run at a time (`memchr`), never a byte at a time. Input
//! that is not JSON is scanned all the same: what it means is the caller's to refuse.

/// What the scanner has read, borrowed from the piece it was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// Structure: `{`, `}`, `[`, `]`, `,` or `:`.
    Punct(u8),
    /// A run of anything else outside strings but white space: a number or a literal (`true`),
    /// or bytes that are not JSON. A run ends at the piece's end too: one number may come in two.
    Bare(&'a [u8]),
    /// A string's opening quote. The string is skipped unless [`Scanner::copy`] is called next.
    Quote,
    /// A string's closing quote; `cut` when its copy reached its bound and the rest was skipped.
    End { cut: bool },
}

/// Where the scanner is: between tokens or in a string, and what it does with the string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Between,
    /// Skipping a string to its closing quote; `escaped`: the next byte follows a backslash.
    Skip {
        escaped: bool,
    },
    /// Copying a string ([`Scanner::copying`]).
    Copy,
}

/// A string being copied.
#[derive(Debug, Clone, Copy, Default)]
struct Copying {
    /// Where its content starts in the output.
    start: usize,
    /// Content bytes copied, at most `limit`.
    kept: usize,
    limit: usize,
    /// The escape being gathered (`\n`, `\u00e9`) and its length so far (0: none).
    escape: [u8; 6],
    escape_len: u8,
    /// Where a `\uD8xx` escape just copied starts in the output: a cut right after it would leave
    /// a lone surrogate, which does not parse, so it is taken back.
    high_surrogate_at: Option<usize>,
}

/// What a step of a copy came to.
enum Step {
    More,
    /// The bound is reached: the rest of the string is skipped.
    Cut,
    /// The closing quote.
    End,
}

/// Reads a JSON text in pieces; see the module's documentation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scanner {
    state: State,
    copying: Copying,
    /// The string being read was cut.
    cut: bool,
}

impl Default for Scanner {
    fn default() -> Scanner {
        Scanner {
            state: State::Between,
            copying: Copying::default(),
            cut: false,
        }
    }
}

impl Scanner {
    /// The next token of `bytes` from `*at` on, with `*at` moved past it; `None` once the piece
    /// is used up (the scanner then waits in its state for the next piece). A string being copied
    /// goes into `out`.
    pub(crate) fn next<'a>(
        &mut self,
        bytes: &'a [u8],
        at: &mut usize,
        out: &mut Vec<u8>,
    ) -> Option<Token<'a>> {
        while *at < bytes.len() {
            let token = match self.state {
                State::Between => self.between(bytes, at),
                State::Skip { escaped } => self.skip_string(bytes, at, escaped),
                State::Copy => match self.copying.step(bytes, at, out) {
                    Step::More => None,
                    Step::Cut => {
                        self.cut = true;
                        self.state = State::Skip { escaped: false };
                        None
                    }
                    Step::End => {
                        self.state = State::Between;
                        Some(Token::End { cut: false })
                    }
                },
            };
            if token.is_some() {
                return token;
            }
        }
        None
    }

    /// Copies the string whose [`Token::Quote`] was just read into `out`, from its end on: at
    /// most `limit` bytes of its raw (still escaped) content.
    pub(crate) fn copy(&mut self, out: &[u8], limit: usize) {
        self.state = State::Copy;
        self.copying = Copying {
            start: out.len(),
            limit,
            ..Copying::default()
        };
    }

    /// Stops copying the string being read: its rest is skipped. What was copied stays in the
    /// output, which the caller may now shorten.
    pub(crate) fn skip_rest(&mut self) {
        if self.state == State::Copy {
            // A backslash alone hides the byte after it (the digits of `\u` hide no quote).
            self.state = State::Skip {
                escaped: self.copying.escape_len == 1,
            };
        }
    }

    /// Skips the rest of the value being read, `depth` containers deep in it (strings and nested
    /// containers included), to the first `,`, `}` or `]` outside them, which is returned; `None`
    /// once the piece is used up (`depth` and the scanner carry on with the next). A byte at a
    /// time, without a token for each: a skipped member can be megabytes of small ones.
    pub(crate) fn skip(&mut self, bytes: &[u8], at: &mut usize, depth: &mut usize) -> Option<u8> {
        while *at < bytes.len() {
            match self.state {
                State::Between => {}
                State::Skip { escaped } => {
                    self.skip_string(bytes, at, escaped);
                    continue;
                }
                State::Copy => {
                    self.skip_rest();
                    continue;
                }
            }
            let b = bytes[*at];
            *at += 1;
            match b {
                b'"' => self.state = State::Skip { escaped: false },
                b'{' | b'[' => *depth += 1,
                b',' | b'}' | b']' if *depth == 0 => return Some(b),
                b'}' | b']' => *depth -= 1,
                _ => {}
            }
        }
        None
    }

    /// Between tokens: white space is passed over (64 MiB of it is a hostile input, not a reason
    /// to return a token a byte).
    fn between<'a>(&mut self, bytes: &'a [u8], at: &mut usize) -> Option<Token<'a>> {
        let mut b = bytes[*at];
        while is_space(b) {
            *at += 1;
            b = *bytes.get(*at)?;
        }
        let start = *at;
        *at += 1;
        Some(match b {
            b'"' => {
                self.state = State::Skip { escaped: false };
                self.cut = false;
                Token::Quote
            }
            b'{' | b'}' | b'[' | b']' | b',' | b':' => Token::Punct(b),
            _ => {
                let rest = &bytes[*at..];
                *at += rest
                    .iter()
                    .position(|&b| ends_bare(b))
                    .unwrap_or(rest.len());
                Token::Bare(&bytes[start..*at])
            }
        })
    }

    /// A string skipped, to its closing quote.
    fn skip_string(
        &mut self,
        bytes: &[u8],
        at: &mut usize,
        escaped: bool,
    ) -> Option<Token<'static>> {
        if escaped {
            *at += 1;
            self.state = State::Skip { escaped: false };
            return None;
        }
        let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[*at..]) else {
            *at = bytes.len();
            return None;
        };
        *at += i + 1;
        if bytes[*at - 1] == b'"' {
            self.state = State::Between;
            return Some(Token::End { cut: self.cut });
        }
        self.state = State::Skip { escaped: true };
        None
    }
}

impl Copying {
    /// A run of content up to the next quote or backslash and that byte, or one byte of an
    /// escape.
    fn step(&mut self, bytes: &[u8], at: &mut usize, out: &mut Vec<u8>) -> Step {
        if self.escape_len > 0 {
            let b = bytes[*at];
            *at += 1;
            return self.escape_byte(b, out);
        }
        let rest = &bytes[*at..];
        let run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
        if run > 0 {
            self.high_surrogate_at = None;
            let take = run.min(self.limit - self.kept);
            out.extend_from_slice(&rest[..take]);
            self.kept += take;
            *at += take;
            if take < run {
                return self.cut(out);
            }
            if run == rest.len() {
                return Step::More;
            }
        }
        *at += 1;
        if rest[run] == b'"' {
            return Step::End;
        }
        self.escape[0] = b'\\';
        self.escape_len = 1;
        Step::More
    }

    /// One byte of an escape: `\x`, or `\uXXXX` once its four digits are in; a whole escape is
    /// copied if it fits within the bound, else the string is cut before it.
    fn escape_byte(&mut self, b: u8, out: &mut Vec<u8>) -> Step {
        self.escape[usize::from(self.escape_len)] = b;
        self.escape_len += 1;
        let len = usize::from(self.escape_len);
        if self.escape[1] == b'u' && len < 6 {
            return Step::More;
        }
        self.escape_len = 0;
        if self.kept.saturating_add(len) > self.limit {
            return self.cut(out);
        }
        let escape = &self.escape[..len];
        self.high_surrogate_at = (len == 6
            && matches!(escape[2], b'd' | b'D')
            && matches!(escape[3], b'8' | b'9' | b'a' | b'b' | b'A' | b'B'))
        .then_some(out.len());
        out.extend_from_slice(escape);
        self.kept += len;
        Step::More
    }

    /// The copy reached its bound: it ends at a whole character and escape.
    fn cut(&mut self, out: &mut Vec<u8>) -> Step {
        if let Some(at) = self.high_surrogate_at.take() {
            out.truncate(at);
        }
        trim_partial_char(out, self.start);
        Step::Cut
    }
}

/// JSON's white space.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `b` ends a run of [`Token::Bare`] bytes.
fn ends_bare(b: u8) -> bool {
    is_space(b) || matches!(b, b'"' | b'{' | b'}' | b'[' | b']' | b',' | b':')
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

    /// Every token of `text` read in pieces of `size` bytes, each string copied within `limit`
    /// (keys too), with the output: the text rebuilt from the tokens.
    fn scan(text: &[u8], size: usize, limit: usize) -> (Vec<String>, Vec<u8>) {
        let mut scanner = Scanner::default();
        let (mut tokens, mut out) = (Vec::new(), Vec::new());
        for piece in text.chunks(size.max(1)) {
            let mut at = 0;
            while let Some(token) = scanner.next(piece, &mut at, &mut out) {
                match token {
                    Token::Punct(b) => out.push(b),
                    Token::Bare(run) => out.extend_from_slice(run),
                    Token::Quote => {
                        out.push(b'"');
                        scanner.copy(&out, limit);
                    }
                    Token::End { .. } => out.push(b'"'),
                }
                tokens.push(format!("{token:?}"));
            }
        }
        (tokens, out)
    }

    #[test]
    fn white_space_between_tokens_is_dropped_and_strings_are_kept_as_written() {
        let (tokens, out) = scan(b" { \"a b\\\"\" :\n[1, true] }\r\n", 64, usize::MAX);
        assert_eq!(out, b"{\"a b\\\"\":[1,true]}");
        let expected = [
            Token::Punct(b'{'),
            Token::Quote,
            Token::End { cut: false },
            Token::Punct(b':'),
            Token::Punct(b'['),
            Token::Bare(b"1"),
            Token::Punct(b','),
            Token::Bare(b"true"),
            Token::Punct(b']'),
            Token::Punct(b'}'),
        ];
        assert_eq!(tokens, expected.map(|t| format!("{t:?}")));
    }

    #[test]
    fn a_string_skipped_ends_at_its_closing_quote_whatever_it_escapes() {
        let mut scanner = Scanner::default();
        let mut out = Vec::new();
        let text = br#""a\"}\\" ,"#;
        let mut got = Vec::new();
        for piece in text.chunks(1) {
            let mut at = 0;
            while let Some(token) = scanner.next(piece, &mut at, &mut out) {
                got.push(token);
            }
        }
        assert_eq!(
            got,
            [Token::Quote, Token::End { cut: false }, Token::Punct(b',')]
        );
        assert!(out.is_empty(), "nothing copied");
    }

    #[test]
    fn a_cut_falls_on_a_whole_character_escape_and_surrogate_pair() {
        for (text, limit, kept) in [
            ("\"é€\"", 3, "\"é\""),
            ("\"é€\"", 4, "\"é\""),
            ("\"é€\"", 5, "\"é€\""),
            ("\"ab\\u00e9\"", 7, "\"ab\""),
            ("\"ab\\u00e9\"", 8, "\"ab\\u00e9\""),
            ("\"a\\n\"", 2, "\"a\""),
            ("\"\\ud83d\\ude00!\"", 11, "\"\""),
            ("\"\\ud83d\\ude00!\"", 12, "\"\\ud83d\\ude00\""),
        ] {
            for size in 1..5 {
                let (tokens, out) = scan(text.as_bytes(), size, limit);
                assert_eq!(String::from_utf8_lossy(&out), kept, "{text} {limit} {size}");
                let cut = kept.len() < text.len();
                let end = format!("{:?}", Token::End { cut });
                assert_eq!(tokens.last(), Some(&end), "{text} {limit}");
            }
        }
    }

    #[test]
    fn copying_stops_where_it_is_told_and_the_string_still_ends() {
        let mut scanner = Scanner::default();
        let mut out = Vec::new();
        let mut at = 0;
        let text = br#""abc\"d" 1"#;
        assert_eq!(scanner.next(text, &mut at, &mut out), Some(Token::Quote));
        scanner.copy(&out, 100);
        assert_eq!(scanner.next(&text[..4], &mut at, &mut out), None);
        scanner.skip_rest();
        assert_eq!(
            scanner.next(text, &mut at, &mut out),
            Some(Token::End { cut: false })
        );
        assert_eq!(
            scanner.next(text, &mut at, &mut out),
            Some(Token::Bare(b"1"))
        );
        assert_eq!(out, b"abc");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn a_copy_within_any_bound_parses_and_pieces_change_nothing(
            v in crate::proptesting::json_value(), limit in 0..30usize, size in 1..9usize, pretty: bool,
        ) {
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
            let (_, out) = scan(text.as_bytes(), size, limit);
            prop_assert!(serde_json::from_slice::<serde_json::Value>(&out).is_ok(), "{}", String::from_utf8_lossy(&out));
            prop_assert_eq!(&scan(text.as_bytes(), 1 << 20, limit).1, &out);
            let whole = scan(text.as_bytes(), size, usize::MAX).1;
            prop_assert_eq!(serde_json::from_slice::<serde_json::Value>(&whole).unwrap(), v);
        }
    }
}
