//! Extraction on the 18 real transcripts in `../shared/transcripts/` (CLI 1.0.17 to 2.1.221).
//! Skipped when that folder is absent. Every expectation below was checked by hand against the
//! file: the prompts are each file's latest genuine prompts on the current branch (prefixes),
//! oldest first.

use crate::common::{assert_has_all, corpus, corpus_files};
use compact_guardian::extract::tasks::Status;
use compact_guardian::extract::{Extraction, Extractor, Part, extract};
use compact_guardian::pipeline::{Built, build, build_with};
use compact_guardian::read::record::parse_line;
use compact_guardian::read::transcript::Limits;
use compact_guardian::render::{Meta, Source, TARGET, render, utf16_len, wholeness_error};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Read as `save` reads by default: no byte cap, no deadline.
const FULL: Limits = Limits {
    max_bytes: None,
    deadline: None,
};

fn scan(path: &Path, limits: Limits) -> Option<Built> {
    build(path, Part::Whole, limits).ok()
}

/// Every line of the file parsed and folded, with no triage and no early stop: the reference
/// the streaming pipeline must agree with.
fn eager(path: &Path) -> Extraction {
    let body = std::fs::read(path).unwrap();
    let records: Vec<_> = body.split(|b| *b == b'\n').filter_map(parse_line).collect();
    extract(&records)
}

struct Expect {
    prompts: &'static [&'static str],
    completed: usize,
    open: usize,
    first_file: Option<&'static str>,
}

/// A transcript in which nothing is found: no prompt, no task, no file changed.
const NOTHING: Expect = Expect {
    prompts: &[],
    completed: 0,
    open: 0,
    first_file: None,
};

fn check(file: &str, want: Expect) {
    let dir = corpus();
    let path = dir.join(file);
    let s = scan(&path, FULL).unwrap();
    assert_eq!(
        s.stats.skipped_lines, 0,
        "{file}: every line of a real transcript parses"
    );
    let ex = s.extraction;
    assert_eq!(
        ex.instructions.len(),
        want.prompts.len(),
        "{file}: {:#?}",
        ex.instructions
    );
    for (got, prefix) in ex.instructions.iter().zip(want.prompts) {
        assert!(
            got.starts_with(prefix),
            "{file}: {got:?} should start with {prefix:?}"
        );
    }
    for p in &ex.instructions {
        for injected in [
            "<system-reminder>",
            "<command-name>",
            "<local-command",
            "[Request interrupted",
            "<bash-",
            "<task-notification>",
            "This session is being continued",
        ] {
            assert!(
                !p.contains(injected),
                "{file}: injected text {injected} in {p:?}"
            );
        }
    }
    let done = ex
        .tasks
        .iter()
        .filter(|t| t.status == Status::Completed)
        .count();
    assert_eq!(
        (done, ex.tasks.len() - done),
        (want.completed, want.open),
        "{file}: tasks {:#?}",
        ex.tasks
    );
    assert_eq!(
        ex.files_changed.first().map(String::as_str),
        want.first_file,
        "{file}"
    );
    budget_holds(&ex, file);
}

/// A snapshot saved now before an automatic compaction, with this `/compact` focus.
fn saved(focus: Option<String>) -> Meta {
    Meta {
        taken_at: SystemTime::now(),
        trigger: Some("auto".into()),
        cwd: None,
        git_branch: None,
        focus,
        source: Source::Saved,
    }
}

fn budget_holds(ex: &Extraction, file: &str) {
    if ex.is_empty() {
        return;
    }
    let text = render(ex, &saved(Some("x".repeat(5000))));
    let n = utf16_len(&text);
    assert!(n <= TARGET, "{file}: {n}");
    assert_eq!(wholeness_error(&text), None, "{file}");
    eprintln!("{file}: restore text {n} UTF-16 code units");
}

/// One real transcript's test: its extraction is what `Expect` says ([`check`]).
macro_rules! transcript_test {
    ($name:ident, $file:literal, $expect:expr) => {
        corpus_test!($name, || {
            check($file, $expect);
        });
    };
}

transcript_test!(
    v1_0_17_sniffly_todowrite,
    "sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl",
    Expect {
        prompts: &[
            "create a jupyter notebook file",
            "help me find models where",
            "it doesn't sound quite like music",
            "all of texts now sound the same",
            "python diverse_musical_ai.py"
        ],
        completed: 6,
        open: 0,
        first_file: Some("/Users/chip/dev/ai-music/radical_musical_ai.py"),
    }
);
transcript_test!(
    v1_0_57_local_commands_hang_off_caveat,
    "claude-transcript__test2.jsonl",
    Expect {
        prompts: &[
            "Nice...please commit",
            "Since we no longer have 2 separate apps",
            "works great... please commit",
            "Node v24 no longer requires",
            "(saved to memory) When committing to git repo"
        ],
        completed: 9,
        open: 0,
        first_file: Some("/Users/michael/Projects/oss/graph-monitor/CLAUDE.md"),
    }
);

// The session committed four times (heredoc messages, as Claude Code writes them): the newest
// commit is git's own line for it, and the snapshot shows it.
corpus_test!(v1_0_57_last_commit_is_gits_report_of_the_newest, |dir| {
    let path = dir.join("claude-transcript__test2.jsonl");
    let built = scan(&path, FULL).unwrap();
    let commit = built
        .extraction
        .last_commit
        .as_ref()
        .map(|c| c.report.as_str());
    assert_eq!(
        commit,
        Some(
            "[main 3e202eb] chore: remove --experimental-strip-types flag and specify Node v24 requirement"
        )
    );
    let text = built.render(&saved(None)).unwrap();
    assert_has_all(
        &text,
        &["## Last commit (as git reported it)\n- [main 3e202eb] chore: remove"],
    );
});

transcript_test!(
    v1_0_98_inline_sidechains_orchestrator,
    "claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    Expect {
        prompts: &[
            "/orchestrator create TODO app by Next.js",
            "Thanks! Please update CLAUDE.md"
        ],
        completed: 5,
        open: 0,
        first_file: Some("/path/to/Demo/CLAUDE.md"),
    }
);
transcript_test!(
    v1_0_108_custom_command_with_args,
    "claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    Expect {
        prompts: &["/orchestrator @CLAUDE.md を最新の状態に"],
        completed: 4,
        open: 0,
        first_file: Some("/path/to/Demo/CLAUDE.md"),
    }
);
transcript_test!(
    v2_0_2_ide_opened_file_block,
    "bradymholt-dotfiles__30128756-d093-4148-81ad-0dfa3cf7a1b1.jsonl",
    Expect {
        prompts: &[
            "claude mcp add chrome-devtools",
            "Take screenshot of google.com",
            "I want the file",
            "Tell me about how google.com is laid out"
        ],
        completed: 0,
        open: 0,
        first_file: Some(
            "/Users/bholt/Library/Application Support/Claude/claude_desktop_config.json"
        ),
    }
);
transcript_test!(
    v2_0_15_init_command,
    "agent-swarm-config__f30f7044-51d0-4948-83a1-85aba848e746.jsonl",
    Expect {
        prompts: &[
            "/init",
            "can we just chat like normal claude",
            "can i attach images",
            "tell me about agents"
        ],
        completed: 0,
        open: 0,
        first_file: Some("/Users/robinsonchan/CLAUDE.md"),
    }
);
transcript_test!(
    v2_0_19_warmup_sidechain,
    "claude-mem__sample-transcript.jsonl",
    Expect {
        prompts: &[
            "can you update the ui",
            "i'm most concerned with getting",
            "this is completely",
            "think about everything you did",
            "yes."
        ],
        completed: 3,
        open: 0,
        first_file: Some(
            "/Users/alexnewman/Scripts/clean-kit/src/app/api/patient-qa/providers/patient-counts/route.ts"
        ),
    }
);
transcript_test!(
    v2_0_29_interrupt_notice,
    "cccc_clash_test__7190121f-79f3-4ecf-ad6a-6848bbbb2b2a.jsonl",
    Expect {
        prompts: &[
            "为什么注册的时候",
            "数据库里肯定是没有",
            "Access to XMLHttpRequest"
        ],
        completed: 0,
        open: 0,
        first_file: Some("c:\\code\\bohack\\Bohack-Backend\\app\\main.py"),
    }
);
transcript_test!(
    v2_0_77_sdk_summary_session,
    "claude-config__c450d6a1-1faa-4f47-b7e1-8068f81db4ef.jsonl",
    Expect {
        prompts: &["Context: This summary will be shown in a list"],
        ..NOTHING
    }
);
transcript_test!(
    v2_1_56_subagent_only_file,
    "claude-mem__identity-resume__output-c-narrative.jsonl",
    NOTHING
);
transcript_test!(
    v2_1_97_queued_prompt_attachment,
    "omarchy-backup__8a3e5a2e-788d-4759-ad92-56023d9aee60.jsonl",
    Expect {
        prompts: &[
            "we changed sleep to 10 minutes",
            "stop",
            "we changed wallpaper and sleep time",
            "but will it stay as 10 minutes"
        ],
        completed: 0,
        open: 0,
        first_file: Some("/home/vwestberg/.local/share/omarchy/config/hypr/hypridle.conf"),
    }
);
transcript_test!(
    v2_1_140_compaction_rewind_skills_notifications,
    "claude-config__02fb0004-79f5-4617-90c8-faa9d1167059.jsonl",
    Expect {
        prompts: &[
            "codex cli는 이미 설치되어있음",
            "저장",
            "/oh-my-claudecode:ccg ask gemini",
            "질문.\n\n1. 지금 ccg gemini",
            "/oh-my-claudecode:omc-teams 3:gemini"
        ],
        completed: 0,
        open: 0,
        first_file: Some("D:\\21. harness\\agent-harness-ygkim\\.claude\\settings.local.json"),
    }
);
transcript_test!(
    v2_1_140_clear_then_one_prompt,
    "claude-config__19b1e7ae-7160-457c-ad5f-83522a330ac1.jsonl",
    Expect {
        prompts: &["react19에서 생긴 훅 정보 확인해줘"],
        ..NOTHING
    }
);
transcript_test!(
    v2_1_140_subagent_file,
    "claude-config__agent-ae053c2b3e1fa3411.jsonl",
    NOTHING
);
transcript_test!(
    v2_1_220_task_tools_resend_after_interrupt,
    "claude_backup__719f12f0-d8aa-4d12-9ac6-a5bd544bb57c.jsonl",
    Expect {
        prompts: &[
            "Framework引用lib_moxa_ies_auto_mibs以後",
            "請問目前在iss和framework",
            "$ cat -n /etc/moxa/version/BUILD_TIME",
            "先收，整理成新 session 的 handoff",
            "好，那就 handoff 到新 session"
        ],
        completed: 5,
        open: 0,
        first_file: Some("/home/moxa/session-framework-readpath-2026-07-28.md"),
    }
);
transcript_test!(
    v2_1_221_huge_line_origin_human,
    "claude_backup__5bccb0bf-1361-447a-baf2-5c808cf7cb7f.jsonl",
    Expect {
        prompts: &[
            "可以幫我設定subagent預設使用sonnet 5",
            "當你要切到Fable 5之前提醒一下我好了",
            "建 build-log-checker agent 檔",
            "三個 debugging skill 砍到剩一個",
            "請把這個session標題改成"
        ],
        completed: 0,
        open: 0,
        first_file: Some("/home/moxa/.claude/agents/build-log-checker.md"),
    }
);
transcript_test!(
    v2_1_221_local_commands_only,
    "claude_backup__88c258da-108f-4399-aad8-fb07ba5d8c4d.jsonl",
    NOTHING
);
transcript_test!(
    titles_only,
    "claude_backup__8cfed5d8-4864-4852-909c-dc38e8002435.jsonl",
    NOTHING
);

// The streaming pipeline (newest first, byte-level triage, early stop) gives what folding every
// parsed line gives, on every real transcript: the triage never drops a line that matters.
corpus_test!(streaming_triage_agrees_with_parsing_every_line, |dir| {
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let streamed = scan(&path, FULL).unwrap().extraction;
        let reference = eager(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(streamed.instructions, reference.instructions, "{name}");
        assert_eq!(streamed.tasks, reference.tasks, "{name}");
        assert_eq!(streamed.files_changed, reference.files_changed, "{name}");
        assert_eq!(streamed.actions, reference.actions, "{name}");
        assert_eq!(streamed.checklist, reference.checklist, "{name}");
        assert_eq!(streamed.last_response, reference.last_response, "{name}");
        assert_eq!(streamed.plan, reference.plan, "{name}");
        assert_eq!(streamed.last_commit, reference.last_commit, "{name}");
        // Every line through the byte triage (no recent window): prompts and tasks unchanged.
        let fold = Extractor::new(Part::Whole).with_recent_window(0);
        let triaged = build_with(&path, fold, FULL).unwrap();
        assert_eq!(
            triaged.extraction.instructions, reference.instructions,
            "{name}"
        );
        assert_eq!(triaged.extraction.tasks, reference.tasks, "{name}");

        files += 1;
    }
    assert_eq!(files, 18);
});

// The reply rule (#40, D035) on every real transcript and fixture: where the extraction finds a
// last reply or a checklist, the snapshot shows it, and no heading stands with nothing under it
// (`wholeness_error`). The 2026-11 main showed the reply on 11 of these 17 and printed 4 empty
// headings; the build before it (dc6bfc4) on all 17.
corpus_test!(
    the_last_reply_found_is_shown_on_every_real_transcript,
    |dir| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut files = corpus_files(&dir);
        files.extend(
            [
                "tests/fixtures/cli-2.1.328-two-compactions.jsonl",
                "tests/fixtures/codex-0.169-plan-patch-fail-auto-compaction.jsonl",
                "examples/session.jsonl",
            ]
            .map(|f| root.join(f)),
        );
        let (mut replies, mut checklists) = (0, 0);
        for path in &files {
            let name = path.file_name().unwrap().to_string_lossy();
            let built = scan(path, FULL).unwrap();
            let Some(text) = built.render(&saved(None)) else {
                continue;
            };
            assert_eq!(wholeness_error(&text), None, "{name}");
            if let Some(reply) = &built.extraction.last_response {
                let first: String = reply
                    .trim()
                    .lines()
                    .next()
                    .unwrap()
                    .chars()
                    .take(20)
                    .collect();
                assert!(
                    text.contains(&format!(
                        "Last reply from the agent (may be cut):\n> {first}"
                    )),
                    "{name}: the last reply is not shown:\n{text}"
                );
                replies += 1;
            }
            if let Some(item) = built.extraction.checklist.first() {
                assert!(
                    text.contains(item.as_str()),
                    "{name}: the checklist is not shown:\n{text}"
                );
                checklists += 1;
            }
        }
        eprintln!(
            "{} files: the last reply shown on {replies}, the checklist on {checklists}",
            files.len()
        );
        assert!(
            replies >= 17 && checklists >= 8,
            "{replies} replies, {checklists} checklists"
        );
    }
);

// The compacted part of a real transcript (2.1.140 has one compaction): the fallback rebuild.
corpus_test!(rebuild_before_real_compaction_boundary, |dir| {
    let path = dir.join("claude-config__02fb0004-79f5-4617-90c8-faa9d1167059.jsonl");
    // Only interrupt notices follow this file's boundary, so it is taken as the latest compaction.
    let ex = build(&path, Part::Compacted, FULL).unwrap().extraction;
    assert_eq!(
        ex.instructions.last().map(String::as_str),
        Some("/oh-my-claudecode:omc-teams 3:gemini \"리액트 19 리뷰\"")
    );
});

/// A transcript written by the real Claude Code 2.1.328 in the end-to-end suite: Write, Read, Edit
/// and a failing Bash call, then `/compact <focus>`, a prompt, a Write, a second `/compact`, and a
/// last prompt. Kept in `tests/fixtures/` (our own data, unlike `../shared/transcripts/`).
#[test]
fn cli_2_1_328_two_compactions_fixture() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cli-2.1.328-two-compactions.jsonl");
    let s = scan(&path, FULL).unwrap();
    assert_eq!(s.stats.skipped_lines, 0);
    let ex = s.extraction;
    assert_eq!(
        ex.instructions,
        [
            "EDIT:notes.txt Add a second line to notes.txt",
            "FAILTEST Run the test script and report",
            "What is next?",
            "WRITE:todo.md Write the todo list",
            "And now?"
        ]
    );
    let files: Vec<_> = ex
        .files_changed
        .iter()
        .map(|f| f.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(files, ["todo.md", "notes.txt"]);
    let actions: Vec<_> = ex
        .actions
        .iter()
        .map(|a| (a.tool.as_str(), a.error))
        .collect();
    assert_eq!(
        actions,
        [
            ("Write", false),
            ("Read", false),
            ("Edit", false),
            ("Bash", true),
            ("Bash", false),
            ("Write", false)
        ]
    );

    // The moment of the first restore: 2.1.328 has not written the boundary yet.
    let body = std::fs::read(&path).unwrap();
    let first_boundary = memchr::memmem::find(&body, br#""subtype":"compact_boundary""#).unwrap();
    let line_start = body[..first_boundary]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, &body[..line_start]).unwrap();
    let ex = build(&cut, Part::Compacted, FULL).unwrap().extraction;
    assert_eq!(
        ex.instructions.first().map(String::as_str),
        Some("WRITE:notes.txt Create notes.txt with a greeting — café ✓ 日本語")
    );
    assert_eq!(
        ex.instructions.last().map(String::as_str),
        Some("FAILTEST Run the test script and report")
    );
}

/// A rollout the real Codex CLI 0.169 wrote (issue #17), with this plugin installed and its hooks
/// run: `update_plan`, an `apply_patch` (twice), a failing `exec_command` (three times), then an
/// automatic compaction before the last prompt. Kept in `tests/fixtures/`.
#[test]
fn codex_0_169_rollout_fixture() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/codex-0.169-plan-patch-fail-auto-compaction.jsonl");
    let s = scan(&path, FULL).unwrap();
    assert_eq!(
        s.stats.format,
        compact_guardian::read::record::Format::Codex
    );
    let ex = s.extraction;
    assert_eq!(
        ex.instructions,
        [
            "PLAN: make the importer retry failed batches",
            "PATCH: add notes",
            "FAIL: run the tests",
            "BIG: read everything",
            "after the compaction, continue with the renderer"
        ],
        "each prompt once; AGENTS.md, environment and developer text never"
    );
    let tasks: Vec<_> = ex
        .tasks
        .iter()
        .map(|t| (t.content.as_str(), t.status.label()))
        .collect();
    assert_eq!(
        tasks,
        [
            ("write parser", "completed"),
            ("write renderer", "in progress"),
            ("billing tests", "pending")
        ]
    );
    assert_eq!(ex.files_changed, ["notes.txt"]);
    let actions: Vec<_> = ex
        .actions
        .iter()
        .map(|a| (a.tool.as_str(), a.summary.as_str(), a.error, a.count))
        .collect();
    assert_eq!(
        actions,
        [
            ("apply_patch", "notes.txt", false, 2),
            ("exec_command", "echo failing; exit 3", true, 3)
        ]
    );
    assert_eq!(ex.cwd.as_deref(), Some("/tmp/cx/proj"));
    // The summarizer's answer is recorded as an assistant message: never the agent's last reply.
    assert!(
        !ex.last_response
            .as_deref()
            .unwrap_or_default()
            .contains("SUMMARY")
    );
    // The streaming pipeline agrees with folding every parsed line, also through the triage.
    let reference = eager(&path);
    assert_eq!(ex.instructions, reference.instructions);
    assert_eq!(ex.tasks, reference.tasks);
    assert_eq!(ex.actions, reference.actions);
    let fold = Extractor::new(Part::Whole).with_recent_window(0);
    let triaged = build_with(&path, fold, FULL).unwrap().extraction;
    assert_eq!(triaged.instructions, reference.instructions);
    assert_eq!(triaged.tasks, reference.tasks);
}
