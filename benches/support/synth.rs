//! Synthetic transcripts in the Claude Code 2.1.3xx layout, for benchmarks: conversation records
//! are a few percent of the bytes; `attachment` (`prompt_snapshot` ~57 KB, `skill_listing`) and
//! `api-request*` records dominate; every tenth turn carries a 1.2 MB line; a `TodoWrite` list is
//! updated every few turns. Deterministic: the same arguments give the same bytes.

#![allow(dead_code)] // each user (bench, example) calls a different part

use std::io::{self, Write};

/// About how many bytes one turn adds.
pub const TURN_BYTES: u64 = 150 * 1024;

/// Writes records for turns until `target` bytes; each turn starts with a typed prompt unless
/// `with_prompt` says otherwise.
pub struct Synth {
    seq: u64,
    parent: String,
    filler: String,
    /// Turns update a `TodoWrite` list (most sessions in the wild never do).
    pub tasks: bool,
    /// Each turn ends with the CLI's running `tools-used` record (2.1.3xx; older CLIs do not).
    pub tools_used: bool,
    used: Vec<&'static str>,
}

impl Default for Synth {
    fn default() -> Self {
        Self::new()
    }
}

impl Synth {
    pub fn new() -> Synth {
        // Lowercase words: no JSON escaping needed, realistic token mix for the parser.
        let words = [
            "the",
            "tool",
            "result",
            "cargo",
            "build",
            "parser",
            "snapshot",
            "session",
            "compaction",
            "context",
            "user",
            "agent",
            "file",
            "line",
            "error",
            "test",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut filler = String::with_capacity(1 << 21);
        while filler.len() < (1 << 21) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            filler.push_str(words[(x % words.len() as u64) as usize]);
            filler.push(if x.is_multiple_of(11) { '.' } else { ' ' });
            if x.is_multiple_of(97) {
                filler.push_str("\\n");
            }
        }
        Synth {
            seq: 0,
            parent: "root".into(),
            filler,
            tasks: true,
            tools_used: true,
            used: Vec::new(),
        }
    }

    fn text(&self, len: usize) -> &str {
        let start =
            (self.seq as usize * 7919) % (self.filler.len() - len.min(self.filler.len() - 1) - 1);
        let mut end = (start + len).min(self.filler.len());
        while !self.filler.is_char_boundary(end) || self.filler.as_bytes()[end - 1] == b'\\' {
            end -= 1;
        }
        &self.filler[start..end]
    }

    fn uuid(&mut self) -> String {
        self.seq += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.seq)
    }

    fn meta(&self) -> String {
        format!(
            r#""timestamp":"2026-11-20T10:{:02}:{:02}.000Z","userType":"external","entrypoint":"cli","cwd":"/home/dev/project","sessionId":"bench-session","version":"2.1.328","gitBranch":"main""#,
            self.seq / 60 % 60,
            self.seq % 60
        )
    }

    fn record(&mut self, out: &mut impl Write, body: &str) -> io::Result<u64> {
        let uuid = self.uuid();
        let line = format!(
            r#"{{"parentUuid":"{}","isSidechain":false,{body},"uuid":"{uuid}",{}}}"#,
            self.parent,
            self.meta()
        );
        self.parent = uuid;
        writeln!(out, "{line}")?;
        Ok(line.len() as u64 + 1)
    }

    fn bare(&mut self, out: &mut impl Write, line: &str) -> io::Result<u64> {
        writeln!(out, "{line}")?;
        Ok(line.len() as u64 + 1)
    }

    /// One turn: an optional prompt, then the CLI's attachments, API bookkeeping, tool calls.
    pub fn turn(&mut self, out: &mut impl Write, prompt: Option<&str>) -> io::Result<u64> {
        let mut n = 0;
        let turn = self.seq;
        if let Some(p) = prompt {
            n += self.record(out, &format!(r#""promptId":"p{turn}","type":"user","message":{{"role":"user","content":"{p}"}},"permissionMode":"default","origin":{{"kind":"human"}},"promptSource":"typed""#))?;
        }
        let snap = self.text(57_000).to_owned();
        n += self.record(out, &format!(r#""attachment":{{"type":"prompt_snapshot","systemPrompt":["{snap}"]}},"type":"attachment""#))?;
        let skills = self.text(14_000).to_owned();
        n += self.record(out, &format!(r#""attachment":{{"type":"skill_listing","content":"{skills}","skillCount":40}},"type":"attachment""#))?;
        n += self.record(
            out,
            r#""attachment":{"type":"date","date":"2026-11-20"},"type":"attachment""#,
        )?;
        let shape = self.text(38_000).to_owned();
        n += self.bare(
            out,
            &format!(
                r#"{{"type":"api-request-shape","shape":"{shape}","sessionId":"bench-session"}}"#
            ),
        )?;
        let blob = self.text(10_000).to_owned();
        n += self.bare(
            out,
            &format!(
                r#"{{"type":"api-request-blob","blob":"{blob}","sessionId":"bench-session"}}"#
            ),
        )?;
        n += self.bare(out, r#"{"type":"api-request","requestId":"req_1","model":"claude-opus-5-5","sessionId":"bench-session"}"#)?;
        let id = format!("toolu_{turn:08}");
        let old = self.text(1_000).to_owned();
        n += self.record(out, &format!(r#""message":{{"model":"claude-opus-5-5","id":"msg_{turn}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"{id}e","name":"Edit","input":{{"file_path":"/home/dev/project/src/file{}.rs","old_string":"{old}","new_string":"{old}"}}}}]}},"type":"assistant""#, turn % 17))?;
        n += self.record(out, &format!(r#""type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}e","type":"tool_result","content":"The file has been updated."}}]}},"toolUseResult":{{"filePath":"/home/dev/project/src/file.rs","oldString":"{old}"}}"#))?;
        n += self.record(out, &format!(r#""message":{{"model":"claude-opus-5-5","id":"msg_{turn}b","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"{id}b","name":"Bash","input":{{"command":"cargo test --all","description":"Run tests"}}}}]}},"type":"assistant""#))?;
        let big = turn % 10 == 9;
        let output = self.text(if big { 1_200_000 } else { 20_000 }).to_owned();
        n += self.record(out, &format!(r#""type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}b","type":"tool_result","content":"{output}","is_error":false}}]}}"#))?;
        if self.tasks && turn.is_multiple_of(5) {
            n += self.record(out, &format!(r#""message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}t","name":"TodoWrite","input":{{"todos":[{{"content":"Finish the parser","status":"in_progress","activeForm":"Finishing"}},{{"content":"Write tests","status":"pending","activeForm":"Writing"}},{{"content":"Turn {turn}","status":"completed","activeForm":"Done"}}]}}}}]}},"type":"assistant""#))?;
            n += self.record(out, &format!(r#""type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}t","type":"tool_result","content":"Todos have been modified successfully."}}]}}"#))?;
        }
        let reply = self.text(800).to_owned();
        n += self.record(out, &format!(r#""message":{{"role":"assistant","content":[{{"type":"text","text":"{reply}\n- [x] step one\n- [ ] step two"}}]}},"type":"assistant""#))?;
        let mut used = vec!["Edit", "Bash"];
        if self.tasks && turn >= 5 {
            used.push("TodoWrite");
        }
        n += self.tools_used(out, &used)?;
        Ok(n)
    }

    /// The CLI's running list of tools used, when this layout has one.
    fn tools_used(&mut self, out: &mut impl Write, tools: &[&'static str]) -> io::Result<u64> {
        for t in tools {
            if !self.used.contains(t) {
                self.used.push(t);
            }
        }
        if !self.tools_used || self.used.is_empty() {
            return Ok(0);
        }
        let list = self
            .used
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(",");
        self.bare(
            out,
            &format!(r#"{{"type":"tools-used","tools":[{list}],"sessionId":"bench-session"}}"#),
        )
    }
}

/// Writes a transcript of about `target` bytes with a prompt every turn.
pub fn write_transcript(out: &mut impl Write, target: u64) -> io::Result<u64> {
    write_transcript_with(out, target, Synth::new())
}

/// [`write_transcript`] with a configured generator (no task tool, an older CLI's layout).
pub fn write_transcript_with(out: &mut impl Write, target: u64, mut s: Synth) -> io::Result<u64> {
    let mut written = 0;
    let mut i = 0;
    while written < target {
        i += 1;
        written += s.turn(
            out,
            Some(&format!(
                "Prompt number {i}: please continue with the parser work"
            )),
        )?;
    }
    Ok(written)
}

/// Writes a transcript whose last five prompts are `gap` bytes apart (tool-heavy turns between).
pub fn write_gap_transcript(out: &mut impl Write, gap: u64) -> io::Result<u64> {
    let mut s = Synth::new();
    let mut written = 0;
    for i in 1..=5 {
        written += s.turn(out, Some(&format!("Gap prompt {i}: keep going")))?;
        let until = written + gap;
        while written < until {
            written += s.turn(out, None)?;
        }
    }
    Ok(written)
}

/// A long autonomous run: three prompts at the very start, then tool calls and results (Bash
/// and Edit, no task tools) of about `record_bytes` each until `target` bytes, with a short text
/// reply now and then. The shape of issue #12: the user's words sit at the start of the file.
pub fn write_autonomous_transcript(
    out: &mut impl Write,
    target: u64,
    record_bytes: usize,
) -> io::Result<u64> {
    let mut s = Synth::new();
    let mut written = 0;
    for i in 1..=3 {
        written += s.record(out, &format!(r#""promptId":"p{i}","type":"user","message":{{"role":"user","content":"Autonomous prompt {i}: work through the backlog without stopping"}},"permissionMode":"default","origin":{{"kind":"human"}},"promptSource":"typed""#))?;
    }
    // The record envelope (ids, timestamp, cwd, version, ...) is about 330 bytes.
    let pad = record_bytes.saturating_sub(330).max(8);
    let mut n: u64 = 0;
    while written < target {
        n += 1;
        let id = format!("toolu_{n:010}");
        let (name, input) = if n.is_multiple_of(7) {
            (
                "Edit",
                format!(
                    r#"{{"file_path":"/home/dev/project/src/m{}.rs","old_string":"a","new_string":"b"}}"#,
                    n % 23
                ),
            )
        } else {
            (
                "Bash",
                format!(
                    r#"{{"command":"cargo test -p crate{} -- {}","description":"Run tests"}}"#,
                    n % 31,
                    s.text(pad / 2).to_owned()
                ),
            )
        };
        written += s.record(out, &format!(r#""message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}},"type":"assistant""#))?;
        let output = s.text(pad).to_owned();
        written += s.record(out, &format!(r#""type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":"{output}","is_error":false}}]}}"#))?;
        if n.is_multiple_of(50) {
            let reply = s.text(pad).to_owned();
            written += s.record(out, &format!(r#""message":{{"role":"assistant","content":[{{"type":"text","text":"{reply}"}}]}},"type":"assistant""#))?;
        }
    }
    Ok(written)
}

/// A Codex CLI rollout (0.169 layout): five typed prompts and an `update_plan`, then tool calls
/// (`exec_command` with ~`record_bytes` of output) until `gap` bytes follow the last prompt: the
/// prompts sit `gap` bytes back.
pub fn write_codex_rollout(out: &mut impl Write, gap: u64, record_bytes: usize) -> io::Result<u64> {
    let s = Synth::new();
    let mut written = 0;
    let line = |out: &mut dyn Write, kind: &str, payload: &str| -> io::Result<u64> {
        let l = format!(
            r#"{{"timestamp":"2026-11-22T20:00:00.000Z","ordinal":1,"type":"{kind}","payload":{payload}}}"#
        );
        writeln!(out, "{l}")?;
        Ok(l.len() as u64 + 1)
    };
    written += line(
        out,
        "session_meta",
        r#"{"id":"bench","cwd":"/home/dev/project","cli_version":"0.169.0","git":{"branch":"main"}}"#,
    )?;
    for i in 1..=5 {
        let text = format!("Codex prompt {i}: keep working on the importer");
        written += line(
            out,
            "response_item",
            &format!(
                r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}],"internal_chat_message_metadata_passthrough":{{"content_item_kinds":["user.text"],"content_item_metadata":[{{"provenance":{{"type":"user"}}}}]}}}}"#
            ),
        )?;
        written += line(
            out,
            "event_msg",
            &format!(
                r#"{{"type":"item_completed","item":{{"type":"UserMessage","id":"u{i}","content":[{{"type":"text","text":"{text}","text_elements":[]}}]}}}}"#
            ),
        )?;
    }
    let plan = r#"{\"plan\":[{\"step\":\"parser\",\"status\":\"completed\"},{\"step\":\"renderer\",\"status\":\"in_progress\"}]}"#;
    written += line(
        out,
        "response_item",
        &format!(
            r#"{{"type":"function_call","name":"update_plan","arguments":"{plan}","call_id":"plan1"}}"#
        ),
    )?;
    let until = written + gap;
    let pad = record_bytes.saturating_sub(200).max(8);
    let mut n = 0u64;
    while written < until {
        n += 1;
        written += line(
            out,
            "response_item",
            &format!(
                r#"{{"type":"function_call","name":"exec_command","arguments":"{{\"cmd\":\"cargo test -p crate{}\"}}","call_id":"c{n}"}}"#,
                n % 31
            ),
        )?;
        let output = s.text(pad).to_owned();
        written += line(
            out,
            "response_item",
            &format!(
                r#"{{"type":"function_call_output","call_id":"c{n}","output":"Process exited with code 0\nOutput:\n{output}"}}"#
            ),
        )?;
        written += line(out, "event_msg", r#"{"type":"token_count","info":null}"#)?;
    }
    Ok(written)
}

/// The four 30-byte record shapes of issue #16 (bookkeeping far from any prompt).
pub const TINY_SHAPES: [&str; 4] = ["progress", "linked", "untyped", "assistant"];

/// Three prompts, then `target` bytes of records of about 30 bytes of one of [`TINY_SHAPES`]:
/// `{"type":"progress","n":0000001}`, `{"type":"x","uuid":"u0000001"}` (a link only),
/// `{"parentUuid":"a","uuid":"00001"}` (no type) or `{"type":"assistant","n":00001}` (no content).
pub fn write_tiny_transcript(out: &mut impl Write, target: u64, shape: &str) -> io::Result<u64> {
    let mut written = 0;
    for i in 0..3 {
        let line = format!(
            "{{\"type\":\"user\",\"uuid\":\"p{i}\",\"message\":{{\"content\":\"prompt {i}: keep going\"}}}}\n"
        );
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    let (mut n, mut records) = (0u64, 0u64);
    while records < target {
        let line = match shape {
            "progress" => format!("{{\"type\":\"progress\",\"n\":{n:07}}}\n"),
            "linked" => format!("{{\"type\":\"x\",\"uuid\":\"u{n:07}\"}}\n"),
            "untyped" => format!("{{\"parentUuid\":\"a\",\"uuid\":\"{n:05}\"}}\n"),
            "assistant" => format!("{{\"type\":\"assistant\",\"n\":{n:05}}}\n"),
            _ => return Err(io::Error::other(format!("no tiny shape {shape:?}"))),
        };
        out.write_all(line.as_bytes())?;
        records += line.len() as u64;
        n += 1;
    }
    Ok(written + records)
}

/// Issue #26's tag soup: a prompt, then 64 user records each a run of 1,300 wrapper elements side
/// by side (about 2 MB; quadratic to read before).
pub fn write_soup_transcript(out: &mut impl Write) -> io::Result<u64> {
    let mut written = 0;
    let first =
        "{\"type\":\"user\",\"uuid\":\"p0\",\"message\":{\"content\":\"fix the parser\"}}\n";
    out.write_all(first.as_bytes())?;
    written += first.len() as u64;
    let soup = format!("\"{}\"", "<bash-input></bash-input>".repeat(1300));
    for i in 1..=64 {
        let line = format!(
            "{{\"parentUuid\":\"p{}\",\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{soup}}},\"uuid\":\"p{i}\"}}\n",
            i - 1
        );
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    Ok(written)
}
