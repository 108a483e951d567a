//! Property tests over the line reader, record parser, extraction and rendering: arbitrary bytes
//! and arbitrary JSON records never panic, the output stays within the size budget, a valid
//! prompt appended after garbage is always found, the byte triage agrees with parsing every line,
//! and a last reply or checklist found is always shown. Each property says which kinds of case it
//! is about and fails when too few of its generated cases were of that kind
//! (`proptesting::check`, #40): none passes by comparing empty results.

use compact_guardian::extract::{Extractor, Part, extract};
use compact_guardian::pipeline::{build, build_with};
use compact_guardian::read::record::parse_line;
use compact_guardian::read::transcript::{Fold, Limits};
use compact_guardian::read::wants::{FarSet, Wants};
use compact_guardian::render::{
    HARD_LIMIT, Meta, Source, TARGET, render, utf16_len, wholeness_error,
};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};
use std::time::SystemTime;

#[path = "../src/proptesting.rs"]
mod proptesting;
use proptesting::check;

/// `cases` cases, failing seeds kept beside this file.
fn cases(cases: u32) -> Config {
    Config {
        cases,
        source_file: Some(file!()),
        ..Config::default()
    }
}

fn meta() -> Meta {
    Meta {
        taken_at: SystemTime::now(),
        trigger: Some("auto".into()),
        cwd: Some("/w".into()),
        git_branch: None,
        focus: None,
        source: Source::Saved,
    }
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::hash_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Record-shaped JSON: the keys the parser looks at, with values of any type (mostly plausible).
fn any_record() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just(json!("user")),
        Just(json!("assistant")),
        Just(json!("system")),
        Just(json!("attachment")),
        any_json()
    ];
    let text = prop_oneof![".{0,300}".prop_map(Value::String), any_json()];
    let block = (prop_oneof![Just("text"), Just("tool_use"), Just("tool_result"), Just("image")], text.clone(), any_json(), prop_oneof![Just(json!("Bash")), Just(json!("Edit")), Just(json!("TodoWrite")), Just(json!("TaskCreate")), Just(json!("TaskUpdate")), any_json()])
        .prop_map(|(t, text, input, name)| json!({"type": t, "text": text, "id": "x", "tool_use_id": "x", "name": name, "input": input, "content": text, "is_error": input}));
    let content = prop_oneof![
        text,
        prop::collection::vec(block, 0..5).prop_map(Value::Array)
    ];
    (kind, content, any_json(), any::<bool>(), prop::option::of("[a-c]{1,2}"), prop::option::of("[a-c]{1,2}"))
        .prop_map(|(kind, content, extra, side, uuid, parent)| {
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": side, "message": {"content": content}, "attachment": extra, "subtype": "compact_boundary"})
        })
}

#[test]
fn arbitrary_bytes_never_panic() {
    let bytes = prop::collection::vec(any::<u8>(), 0..4096);
    check(
        cases(512),
        bytes,
        &[("several lines", 0.5)],
        |bytes, seen| {
            seen.saw("several lines", bytes.split(|b| *b == b'\n').count() > 2);
            for line in bytes.split(|b| *b == b'\n') {
                let _ = parse_line(line);
            }
            Ok(())
        },
    );
}

#[test]
fn arbitrary_records_render_within_budget() {
    let records = prop::collection::vec(any_record(), 0..40);
    let kinds = [
        ("records read", 0.5),
        ("a prompt found", 0.1),
        ("a reply found", 0.1),
    ];
    check(cases(512), records, &kinds, |records, seen| {
        let recs: Vec<_> = records
            .iter()
            .filter_map(|r| parse_line(r.to_string().as_bytes()))
            .collect();
        let ex = extract(&recs);
        seen.saw("records read", !recs.is_empty());
        seen.saw("a prompt found", !ex.instructions.is_empty());
        seen.saw("a reply found", ex.last_response.is_some());
        let text = render(&ex, &meta());
        prop_assert!(utf16_len(&text) <= TARGET);
        prop_assert_eq!(wholeness_error(&text), None);
        prop_assert!(utf16_len(&text) <= HARD_LIMIT);
        Ok(())
    });
}

#[test]
fn prompt_after_garbage_is_always_found() {
    let input = (
        prop::collection::vec(any::<u8>(), 0..8192),
        "[a-zA-Z ]{1,60}",
    );
    check(
        cases(512),
        input,
        &[("garbage lines", 0.5)],
        |(garbage, words), seen| {
            seen.saw("garbage lines", garbage.split(|b| *b == b'\n').count() > 2);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.jsonl");
            let prompt = format!("PROMPT {words}");
            let mut body = garbage;
            body.push(b'\n');
            body.extend_from_slice(
                json!({"type":"user","uuid":"zz-last","message":{"content": prompt}})
                    .to_string()
                    .as_bytes(),
            );
            body.push(b'\n');
            std::fs::write(&path, body).unwrap();
            let ex = build(&path, Part::Whole, Limits::default())
                .unwrap()
                .extraction;
            prop_assert_eq!(
                ex.instructions.last().map(|s| s.trim()),
                Some(prompt.trim())
            );
            Ok(())
        },
    );
}

/// Each case builds megabytes of text: fewer cases, same coverage of sizes and scripts.
#[test]
fn huge_fields_still_fit() {
    let input = (
        1usize..30,
        0usize..20_000,
        prop_oneof![Just('a'), Just('é'), Just('😀'), Just('\n')],
    );
    check(
        cases(64),
        input,
        &[("cut to fit", 0.3)],
        |(n, len, ch), seen| {
            let big: String = std::iter::repeat_n(ch, len).collect();
            let lines: Vec<String> = (0..n).flat_map(|i| [
            json!({"type":"user","message":{"content": format!("{i}{big}")}}).to_string(),
            json!({"type":"assistant","message":{"content":[{"type":"text","text": format!("- [ ] {big}")},{"type":"tool_use","id":format!("t{i}"),"name":"Write","input":{"file_path": big.clone()}}]}}).to_string(),
            json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":format!("d{i}"),"name":"TodoWrite","input":{"todos":[{"content": big.clone(),"status":"pending"}]}}]}}).to_string(),
        ]).collect();
            let recs: Vec<_> = lines
                .iter()
                .filter_map(|l| parse_line(l.as_bytes()))
                .collect();
            let text = render(
                &extract(&recs),
                &Meta {
                    focus: Some(big.clone()),
                    ..meta()
                },
            );
            seen.saw(
                "cut to fit",
                text.contains("[... cut") || text.contains(" more "),
            );
            prop_assert!(utf16_len(&text) <= TARGET, "{}", utf16_len(&text));
            prop_assert_eq!(wholeness_error(&text), None);
            Ok(())
        },
    );
}

/// A random conversation: prompts, replies, tool calls with results (some failing), task calls,
/// bookkeeping attachments, and rewinds (a prompt whose parent is an earlier record).
fn conversation() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec((0u8..11, 0usize..40, "[a-z]{1,12}"), 1..120).prop_map(|steps| {
        let mut lines = Vec::new();
        let mut uuids: Vec<String> = Vec::new();
        let mut next_task = 1;
        for (i, (kind, back, word)) in steps.into_iter().enumerate() {
            let uuid = format!("u{i}");
            let parent = match (kind, uuids.len()) {
                (_, 0) => Value::Null,
                // a rewind: the new prompt hangs off an earlier record
                (7, n) => Value::from(uuids[n - 1 - back % n].clone()),
                (_, n) => Value::from(uuids[n - 1].clone()),
            };
            let line = match kind {
                0 | 7 => json!({"parentUuid":parent,"type":"user","message":{"role":"user","content":format!("prompt {word} {i}")},"uuid":uuid}),
                // a reply with a checklist item, from a few words to thousands of characters
                1 => json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":format!("reply {word}\n- [ ] {word}\n{}", "more words ".repeat(back * back * back / 16))}]},"uuid":uuid}),
                // a short reply alone (the kind that went missing, #40)
                6 => json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":format!("done with {word}")}]},"uuid":uuid}),
                2 => json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":format!("t{i}"),"name":(["Bash","Edit","Write"][back % 3]),"input":{"command":word,"file_path":format!("/f/{word}")}}]},"uuid":uuid}),
                3 => json!({"parentUuid":parent,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("t{}", i.saturating_sub(1)),"content":"out","is_error":back % 3 == 0}]},"uuid":uuid}),
                4 => {
                    next_task += 1;
                    json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":format!("c{i}"),"name":"TaskCreate","input":{"subject":word}}]},"uuid":uuid})
                }
                5 => json!({"parentUuid":parent,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("c{}", i.saturating_sub(1)),"content":format!("Task #{} created successfully", next_task - 1)}]},"uuid":uuid}),
                8 => json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":format!("g{i}"),"name":"Bash","input":{"command":format!("git commit -m {word}")}}]},"uuid":uuid}),
                // git's report of the commit (or of nothing to commit), to the call just before
                9 => json!({"parentUuid":parent,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("g{}", i.saturating_sub(1)),"content":if back % 4 == 0 { "nothing to commit".to_owned() } else { format!("[main {:07x}] {word}\n 1 file changed, 2 insertions(+)", i) },"is_error":back % 4 == 0}]},"uuid":uuid}),
                _ => json!({"parentUuid":parent,"type":"attachment","attachment":{"type":"hook_success","content":word},"uuid":uuid}),
            };
            uuids.push(uuid);
            lines.push(line.to_string());
        }
        lines
    })
}

/// A conversation, and how much of it (from the end) is read as the recent window: none (every
/// line through the byte triage), some, or all of it.
fn conversation_and_window() -> impl Strategy<Value = (Vec<String>, u64)> {
    conversation().prop_flat_map(|lines| {
        let len = lines.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
        (Just(lines), prop_oneof![Just(0), 0..=len, Just(len)])
    })
}

/// The byte triage never changes the prompts or the task list that parsing every line gives,
/// rewinds included (every line through it: recent window 0, or part of the file); and the same
/// fold with every line parsed gives the same tasks, prompts, files, actions and last commit
/// with the same window: the triage (and the whole-chunk search) never drops a line that any
/// fold, the wants table's rows included, needs.
#[test]
fn byte_triage_agrees_with_parsing_every_line() {
    // Each kind of result compared must be there in enough cases: with the window at 0 alone,
    // files, actions and the commit (recent activity) were empty on both sides, every time.
    let kinds = [
        ("prompts", 0.5),
        ("tasks", 0.25),
        ("files", 0.25),
        ("actions", 0.25),
        ("a last commit", 0.05),
        ("only part of the file in the window", 0.2),
    ];
    check(
        cases(256),
        conversation_and_window(),
        &kinds,
        |(lines, window), seen| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.jsonl");
            let body = lines.join("\n") + "\n";
            std::fs::write(&path, &body).unwrap();
            let fold = Extractor::new(Part::Whole).with_recent_window(window);
            let streamed = build_with(&path, fold, Limits::default())
                .unwrap()
                .extraction;
            let recs: Vec<_> = lines
                .iter()
                .filter_map(|l| parse_line(l.as_bytes()))
                .collect();
            let reference = extract(&recs);
            prop_assert_eq!(&streamed.instructions, &reference.instructions);
            prop_assert_eq!(&streamed.tasks, &reference.tasks);
            let mut every_line =
                ParseEveryLine(Extractor::new(Part::Whole).with_recent_window(window));
            compact_guardian::read::transcript::scan(&path, Limits::default(), &mut every_line)
                .unwrap();
            let all = every_line.0.finish(streamed.searched);
            prop_assert_eq!(&streamed.last_commit, &all.last_commit);
            prop_assert_eq!(&streamed.tasks, &all.tasks);
            prop_assert_eq!(&streamed.instructions, &all.instructions);
            prop_assert_eq!(&streamed.files_changed, &all.files_changed);
            prop_assert_eq!(&streamed.actions, &all.actions);
            prop_assert_eq!(&streamed.facts, &all.facts);
            seen.saw("prompts", !all.instructions.is_empty());
            seen.saw("tasks", !all.tasks.is_empty());
            seen.saw("files", !all.files_changed.is_empty());
            seen.saw("actions", !all.actions.is_empty());
            seen.saw("a last commit", all.last_commit.is_some());
            seen.saw(
                "only part of the file in the window",
                window > 0 && window < body.len() as u64,
            );
            Ok(())
        },
    );
}

/// The reply rule (#40, D035) over generated sessions, as `save` reads and renders them: a last
/// reply or checklist the extraction found is always in the snapshot (whole, or cut with its
/// mark), and no heading is printed with nothing under it (`wholeness_error`).
#[test]
fn a_last_reply_or_checklist_found_is_always_shown() {
    let kinds = [
        ("a reply", 0.5),
        ("a short reply", 0.2),
        ("a reply cut to fit", 0.05),
        ("a checklist", 0.4),
    ];
    check(cases(256), conversation(), &kinds, |lines, seen| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let built = build(&path, Part::Whole, Limits::default()).unwrap();
        let ex = built.extraction.clone();
        let Some(text) = built.render(&meta()) else {
            prop_assert!(ex.is_empty(), "nothing rendered from {ex:?}");
            return Ok(());
        };
        prop_assert_eq!(wholeness_error(&text), None);
        if let Some(reply) = &ex.last_response {
            let first: String = reply
                .trim()
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(12)
                .collect();
            prop_assert!(
                text.contains(&format!(
                    "Last reply from the agent (may be cut):\n> {first}"
                )),
                "reply {first:?} not shown:\n{text}"
            );
            seen.saw("a reply", true);
            seen.saw("a short reply", reply.chars().count() < 120);
            seen.saw(
                "a reply cut to fit",
                text.contains("more characters]\n\n## Files"),
            );
        }
        if let Some(item) = ex.checklist.first() {
            let label = "Checklist as last written (latest state of each item):\n";
            prop_assert!(
                text.contains(&format!("{label}{item}\n")),
                "checklist not shown:\n{text}"
            );
            seen.saw("a checklist", true);
        }
        Ok(())
    });
}

/// A fold that has every line parsed, whatever the one inside still wants: the reference the
/// byte triage is compared with.
struct ParseEveryLine(Extractor);

impl Fold for ParseEveryLine {
    fn wants(&self) -> Wants {
        Wants {
            lines: true,
            everything: true,
            actions: true,
            far: FarSet::ALL,
        }
    }
    fn record(&mut self, rec: compact_guardian::read::record::Record) {
        self.0.record(rec);
    }
    fn link(&mut self, link: compact_guardian::read::record::Link) {
        self.0.link(link);
    }
    fn unreadable(&mut self, line: &[u8]) {
        self.0.unreadable(line);
    }
    fn scanned(&mut self, bytes: u64) {
        self.0.scanned(bytes);
    }
    fn satisfied(&self) -> bool {
        false
    }
}

// ---- Corrections (issue #27): any summary against any record.

/// Summary-shaped text: sentences built from the words claims are made of, headings, quotes,
/// check marks, paths and commands, mixed with arbitrary text.
fn summary_text() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("renderer".to_owned()),
        Just("billing".to_owned()),
        Just("tests".to_owned()),
        Just("pass".to_owned()),
        Just("done".to_owned()),
        Just("not".to_owned()),
        Just("all".to_owned()),
        Just("tasks".to_owned()),
        Just("completed".to_owned()),
        Just("committed".to_owned()),
        Just("`src/render.rs`".to_owned()),
        Just("updated".to_owned()),
        Just("\"".to_owned()),
        Just("\u{2705}".to_owned()),
        Just("Pending Tasks:\n".to_owned()),
        Just("## Next\n".to_owned()),
        Just(". ".to_owned()),
        Just(", ".to_owned()),
        Just("\n".to_owned()),
        ".{0,12}",
    ];
    prop::collection::vec(word, 0..80).prop_map(|w| w.join(" "))
}

fn digest_strategy() -> impl Strategy<Value = compact_guardian::extract::digest::Digest> {
    use compact_guardian::extract::checks::Check;
    use compact_guardian::extract::facts::{
        Act, ActEnd, ActKind, Attempt, CheckRun, Facts, FileFact, Outcome, Write, WriteEnd,
    };
    let outcome = prop_oneof![
        Just(Outcome::Passed),
        ".{0,40}".prop_map(|how| Outcome::Failed { how }),
        Just(Outcome::Running),
        Just(Outcome::RanNothing),
        Just(Outcome::NotRun),
        Just(Outcome::Unknown),
    ];
    let command = prop_oneof![
        Just("cargo test --test billing".to_owned()),
        Just("pnpm build".to_owned()),
        Just("npm start".to_owned()),
        ".{0,30}"
    ];
    let check = (command.clone(), outcome, 0u32..50, ".{0,60}").prop_map(
        |(command, outcome, age, output)| CheckRun {
            check: if command.contains("build") {
                Check::Build
            } else {
                Check::Test
            },
            words: command.split_whitespace().map(str::to_owned).collect(),
            scope: Vec::new(),
            command,
            outcome,
            why: String::new(),
            output,
            age,
            later: None,
        },
    );
    let file = (
        prop_oneof![
            Just("/p/src/render.rs".to_owned()),
            Just("README.md".to_owned()),
            ".{0,20}"
        ],
        prop_oneof![
            Just(WriteEnd::Applied),
            Just(WriteEnd::Failed),
            Just(WriteEnd::Rejected)
        ],
        0u32..50,
        proptest::option::of(0u32..50),
    )
        .prop_map(|(path, end, age, applied)| FileFact {
            path,
            last: Some(Write {
                tool: "Edit".into(),
                end,
                why: String::new(),
                age,
            }),
            applied,
        });
    let act = (0usize..ActKind::ALL.len(), command, any::<bool>(), 0u32..50).prop_map(
        |(kind, command, done, age)| Act {
            kind: ActKind::ALL[kind],
            attempts: 1,
            last: Attempt {
                command,
                end: if done { ActEnd::Done } else { ActEnd::NotRun },
                age,
            },
            done: done.then_some(age),
        },
    );
    (
        prop::collection::vec(".{0,40}", 0..8),
        prop::collection::vec(check, 0..8),
        prop::collection::vec(file, 0..8),
        prop::collection::vec(act, 0..4),
        any::<bool>(),
        proptest::option::of(".{0,300}"),
    )
        .prop_map(|(open, checks, files, acts, since_start, latest)| {
            let mut facts = Facts {
                checks,
                files,
                acts,
                calls: 50,
                ..Facts::default()
            };
            // Read back to the session's start (in the audit's process), absences count too.
            facts.reach.since_start = since_start;
            compact_guardian::extract::digest::Digest {
                saved: true,
                open_kind: "tasks".into(),
                states: open.iter().map(|_| "pending".to_owned()).collect(),
                open,
                facts,
                latest,
                ..Default::default()
            }
        })
}

/// Any summary against any record: no panic, the section within its room and accepted as one,
/// and the snapshot with it inserted still within what the client inlines, ending whole.
#[test]
fn corrections_stay_bounded_and_whole() {
    use compact_guardian::corrections::{MAX_UNITS, corrections, inserted, is_section, section};
    let input = (digest_strategy(), summary_text());
    check(
        cases(256),
        input,
        &[("a corrections section", 0.1)],
        |(d, summary), seen| {
            let d = d.bounded();
            let found = corrections(&d, &summary);
            if let Some(s) = section(&found) {
                seen.saw("a corrections section", true);
                prop_assert!(utf16_len(&s) <= MAX_UNITS, "{}", utf16_len(&s));
                prop_assert!(is_section(&s));
                let ex = extract(&[]);
                let snap = render(&ex, &meta());
                let both = inserted(&snap, &s);
                prop_assert!(utf16_len(&both) <= HARD_LIMIT);
                prop_assert!(both.ends_with(compact_guardian::render::END_LINE));
            }
            let _ = compact_guardian::render::audit::compare(&d, &summary);
            Ok(())
        },
    );
}
