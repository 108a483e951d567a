//! Extraction on the 18 real transcripts in `../shared/transcripts/` (CLI 1.0.17 to 2.1.221).
//! Skipped when that folder is absent. Every expectation below was checked by hand against the
//! file: the prompts are each file's latest genuine prompts on the current branch (prefixes),
//! oldest first.

use compact_guardian::extract::{Extraction, compacted_part, extract};
use compact_guardian::render::{Meta, Source, TARGET, render, utf16_len};
use compact_guardian::tasks::Status;
use compact_guardian::transcript::{Limits, scan};
use std::path::PathBuf;
use std::time::SystemTime;

/// Read as `save` reads by default: up to 64 MiB, no deadline.
const FULL: Limits = Limits {
    max_bytes: 64 << 20,
    deadline: None,
};

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/transcripts");
    if dir.is_dir() {
        return Some(dir);
    }
    // CI sets this (.ci/run): there a missing corpus is a failure, not a silent pass.
    assert!(
        std::env::var_os("COMPACT_GUARDIAN_REQUIRE_CORPUS").is_none(),
        "COMPACT_GUARDIAN_REQUIRE_CORPUS is set but {} is absent",
        dir.display()
    );
    eprintln!(
        "skipping: {} is absent (the shared corpus beside this checkout)",
        dir.display()
    );
    None
}

struct Expect {
    prompts: &'static [&'static str],
    completed: usize,
    open: usize,
    first_file: Option<&'static str>,
}

fn check(file: &str, want: Expect) {
    let Some(dir) = corpus() else { return };
    let path = dir.join(file);
    let s = scan(&path, FULL).unwrap();
    assert_eq!(
        s.stats.skipped_lines, 0,
        "{file}: every line of a real transcript parses"
    );
    let ex = extract(&s.records);
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

fn budget_holds(ex: &Extraction, file: &str) {
    if ex.is_empty() {
        return;
    }
    let meta = Meta {
        taken_at: SystemTime::now(),
        trigger: Some("auto".into()),
        cwd: None,
        git_branch: None,
        focus: Some("x".repeat(5000)),
        source: Source::Saved,
    };
    let text = render(ex, &meta);
    let n = utf16_len(&text);
    assert!(n <= TARGET, "{file}: {n}");
    eprintln!("{file}: restore text {n} UTF-16 code units");
}

macro_rules! transcript_test {
    ($name:ident, $file:literal, $expect:expr) => {
        #[test]
        fn $name() {
            check($file, $expect);
        }
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
        completed: 0,
        open: 0,
        first_file: None,
    }
);
transcript_test!(
    v2_1_56_subagent_only_file,
    "claude-mem__identity-resume__output-c-narrative.jsonl",
    Expect {
        prompts: &[],
        completed: 0,
        open: 0,
        first_file: None,
    }
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
        completed: 0,
        open: 0,
        first_file: None,
    }
);
transcript_test!(
    v2_1_140_subagent_file,
    "claude-config__agent-ae053c2b3e1fa3411.jsonl",
    Expect {
        prompts: &[],
        completed: 0,
        open: 0,
        first_file: None,
    }
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
    Expect {
        prompts: &[],
        completed: 0,
        open: 0,
        first_file: None,
    }
);
transcript_test!(
    titles_only,
    "claude_backup__8cfed5d8-4864-4852-909c-dc38e8002435.jsonl",
    Expect {
        prompts: &[],
        completed: 0,
        open: 0,
        first_file: None,
    }
);

/// The same files read from a window too small for them: extension must still find the prompts.
#[test]
fn small_window_extension_finds_the_same_prompts() {
    let Some(dir) = corpus() else { return };
    for file in [
        "claude_backup__719f12f0-d8aa-4d12-9ac6-a5bd544bb57c.jsonl",
        "claude-config__02fb0004-79f5-4617-90c8-faa9d1167059.jsonl",
    ] {
        let path = dir.join(file);
        let whole = extract(&scan(&path, FULL).unwrap().records);
        let tight = extract(
            &scan(
                &path,
                Limits {
                    max_bytes: 0,
                    deadline: None,
                },
            )
            .unwrap()
            .records,
        );
        assert_eq!(whole.instructions, tight.instructions, "{file}");
    }
}

/// The compacted part of a real transcript (2.1.140 has one compaction): the fallback rebuild.
#[test]
fn rebuild_before_real_compaction_boundary() {
    let Some(dir) = corpus() else { return };
    let path = dir.join("claude-config__02fb0004-79f5-4617-90c8-faa9d1167059.jsonl");
    let s = scan(&path, FULL).unwrap();
    // Only interrupt notices follow this file's boundary, so it is taken as the latest compaction.
    let part = compacted_part(&s.records);
    assert!(part.len() < s.records.len());
    let ex = extract(part);
    assert_eq!(
        ex.instructions.last().map(String::as_str),
        Some("/oh-my-claudecode:omc-teams 3:gemini \"리액트 19 리뷰\"")
    );
}

/// A transcript written by the real Claude Code 2.1.328 in the end-to-end suite: Write, Read, Edit
/// and a failing Bash call, then `/compact <focus>`, a prompt, a Write, a second `/compact`, and a
/// last prompt. Kept in `tests/fixtures/` (our own data, unlike `../shared/transcripts/`).
#[test]
fn cli_2_1_328_two_compactions_fixture() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cli-2.1.328-two-compactions.jsonl");
    let s = scan(&path, FULL).unwrap();
    assert_eq!(s.stats.skipped_lines, 0);
    let ex = extract(&s.records);
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
    let s = scan(&cut, FULL).unwrap();
    let ex = extract(compacted_part(&s.records));
    assert_eq!(
        ex.instructions.first().map(String::as_str),
        Some("WRITE:notes.txt Create notes.txt with a greeting — café ✓ 日本語")
    );
    assert_eq!(
        ex.instructions.last().map(String::as_str),
        Some("FAILTEST Run the test script and report")
    );
}
