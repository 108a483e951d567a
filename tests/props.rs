//! Property tests over the line reader, record parser, extraction and rendering: arbitrary bytes
//! and arbitrary JSON records never panic, the output stays within the size budget, and a valid
//! prompt appended after garbage is always found.

use compact_guardian::extract::{Extractor, Part, extract};
use compact_guardian::pipeline::{build, build_with};
use compact_guardian::record::parse_line;
use compact_guardian::render::{
    HARD_LIMIT, Meta, Source, TARGET, render, utf16_len, wholeness_error,
};
use compact_guardian::transcript::{Fold, Limits};
use compact_guardian::wants::{FarSet, Wants};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::time::SystemTime;

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        for line in bytes.split(|b| *b == b'\n') {
            let _ = parse_line(line);
        }
    }

    #[test]
    fn arbitrary_records_render_within_budget(records in prop::collection::vec(any_record(), 0..40)) {
        let recs: Vec<_> = records.iter().filter_map(|r| parse_line(r.to_string().as_bytes())).collect();
        let ex = extract(&recs);
        let text = render(&ex, &meta());
        prop_assert!(utf16_len(&text) <= TARGET);
        prop_assert_eq!(wholeness_error(&text), None);
        prop_assert!(utf16_len(&text) <= HARD_LIMIT);
    }

    #[test]
    fn prompt_after_garbage_is_always_found(garbage in prop::collection::vec(any::<u8>(), 0..8192), words in "[a-zA-Z ]{1,60}") {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let prompt = format!("PROMPT {words}");
        let mut body = garbage;
        body.push(b'\n');
        body.extend_from_slice(json!({"type":"user","uuid":"zz-last","message":{"content": prompt}}).to_string().as_bytes());
        body.push(b'\n');
        std::fs::write(&path, body).unwrap();
        let ex = build(&path, Part::Whole, Limits::default()).unwrap().extraction;
        prop_assert_eq!(ex.instructions.last().map(|s| s.trim()), Some(prompt.trim()));
    }
}

proptest! {
    // Each case builds megabytes of text: fewer cases, same coverage of sizes and scripts.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn huge_fields_still_fit(n in 1usize..30, len in 0usize..20_000, ch in prop_oneof![Just('a'), Just('é'), Just('😀'), Just('\n')]) {
        let big: String = std::iter::repeat_n(ch, len).collect();
        let lines: Vec<String> = (0..n).flat_map(|i| [
            json!({"type":"user","message":{"content": format!("{i}{big}")}}).to_string(),
            json!({"type":"assistant","message":{"content":[{"type":"text","text": format!("- [ ] {big}")},{"type":"tool_use","id":format!("t{i}"),"name":"Write","input":{"file_path": big.clone()}}]}}).to_string(),
            json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":format!("d{i}"),"name":"TodoWrite","input":{"todos":[{"content": big.clone(),"status":"pending"}]}}]}}).to_string(),
        ]).collect();
        let recs: Vec<_> = lines.iter().filter_map(|l| parse_line(l.as_bytes())).collect();
        let text = render(&extract(&recs), &Meta { focus: Some(big.clone()), ..meta() });
        prop_assert!(utf16_len(&text) <= TARGET, "{}", utf16_len(&text));
        prop_assert_eq!(wholeness_error(&text), None);
    }
}

/// A random conversation: prompts, replies, tool calls with results (some failing), task calls,
/// bookkeeping attachments, and rewinds (a prompt whose parent is an earlier record).
fn conversation() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec((0u8..10, 0usize..40, "[a-z]{1,12}"), 1..120).prop_map(|steps| {
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
                1 => json!({"parentUuid":parent,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":format!("reply {word}\n- [ ] {word}")}]},"uuid":uuid}),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The byte triage (every line through it: recent window 0) never changes the prompts or the
    /// task list that parsing every line gives, rewinds included.
    #[test]
    fn byte_triage_agrees_with_parsing_every_line(lines in conversation()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let fold = Extractor::new(Part::Whole).with_recent_window(0);
        let streamed = build_with(&path, fold, Limits::default()).unwrap().extraction;
        let recs: Vec<_> = lines.iter().filter_map(|l| parse_line(l.as_bytes())).collect();
        let reference = extract(&recs);
        prop_assert_eq!(&streamed.instructions, &reference.instructions);
        prop_assert_eq!(&streamed.tasks, &reference.tasks);
        // The same fold, the same window, every line parsed: the byte triage (and the whole-chunk
        // search) never drops a line that any fold, the wants table's rows included, needs.
        let mut every_line = ParseEveryLine(Extractor::new(Part::Whole).with_recent_window(0));
        compact_guardian::transcript::scan(&path, Limits::default(), &mut every_line).unwrap();
        let all = every_line.0.finish(streamed.searched);
        prop_assert_eq!(&streamed.last_commit, &all.last_commit);
        prop_assert_eq!(&streamed.tasks, &all.tasks);
        prop_assert_eq!(&streamed.instructions, &all.instructions);
        prop_assert_eq!(&streamed.files_changed, &all.files_changed);
        prop_assert_eq!(&streamed.actions, &all.actions);
    }
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
    fn record(&mut self, rec: compact_guardian::record::Record) {
        self.0.record(rec);
    }
    fn link(&mut self, link: compact_guardian::record::Link) {
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

fn digest_strategy() -> impl Strategy<Value = compact_guardian::audit::Digest> {
    let action = (
        prop_oneof![
            Just("Bash"),
            Just("Edit"),
            Just("exec_command"),
            Just("apply_patch")
        ],
        prop_oneof![
            Just("cargo test --test billing".to_owned()),
            Just("git commit -m x".to_owned()),
            Just("/p/src/render.rs".to_owned()),
            ".{0,30}"
        ],
        any::<bool>(),
        prop_oneof![
            Just(String::new()),
            Just("test result: FAILED. 3 passed; 1 failed".to_owned()),
            Just("nothing to commit, working tree clean".to_owned()),
            ".{0,60}"
        ],
    )
        .prop_map(
            |(tool, summary, error, output)| compact_guardian::extract::Action {
                tool: tool.into(),
                summary,
                error,
                count: 1,
                exit: error.then_some(1),
                output,
                pending: false,
            },
        );
    (
        prop::collection::vec(".{0,40}", 0..8),
        prop::collection::vec(action, 0..24),
        proptest::option::of(".{0,300}"),
    )
        .prop_map(|(open, actions, latest)| compact_guardian::audit::Digest {
            saved: true,
            open_kind: "tasks".into(),
            states: open.iter().map(|_| "pending".to_owned()).collect(),
            open,
            actions,
            latest,
            ..Default::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any summary against any record: no panic, the section within its room and accepted as
    /// one, and the snapshot with it inserted still within what the client inlines, ending whole.
    #[test]
    fn corrections_stay_bounded_and_whole(d in digest_strategy(), summary in summary_text()) {
        use compact_guardian::corrections::{MAX_UNITS, corrections, inserted, is_section, section};
        let d = d.bounded();
        let found = corrections(&d, &summary);
        if let Some(s) = section(&found) {
            prop_assert!(utf16_len(&s) <= MAX_UNITS, "{}", utf16_len(&s));
            prop_assert!(is_section(&s));
            let ex = extract(&[]);
            let snap = render(&ex, &meta());
            let both = inserted(&snap, &s);
            prop_assert!(utf16_len(&both) <= HARD_LIMIT);
            prop_assert!(both.ends_with(compact_guardian::render::END_LINE));
        }
        let _ = compact_guardian::audit::compare(&d, &summary);
    }
}
