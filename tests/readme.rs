//! The README tells the truth about what the bundled demo prints (issue #30 point 7): its sample
//! snapshot is the demo's output, line for line (the time it was taken aside).

use crate::common::*;

fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text with its "- Taken: <time>, ..." line's time left out.
fn timeless(s: &str) -> String {
    s.lines()
        .map(|l| match l.strip_prefix("- Taken: ") {
            Some(rest) => format!("- Taken: <time>{}", &rest[rest.find(',').unwrap_or(0)..]),
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_readme_sample_is_what_the_demo_prints() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let at = readme
        .find("## What the model sees after compaction")
        .expect("the section");
    let open = readme[at..].find("```markdown\n").unwrap() + at + "```markdown\n".len();
    let close = readme[open..].find("\n```\n").unwrap() + open;
    let sample = &readme[open..close];
    // The demo: save, then restore as text, on the bundled session and hook inputs.
    let sb = Sandbox::new();
    let input = |f: &str| std::fs::read_to_string(repo().join("examples").join(f)).unwrap();
    let abs = repo().join("examples/session.jsonl");
    let fix = |json: String| {
        json.replace(
            "\"examples/session.jsonl\"",
            &serde_json::to_string(&abs).unwrap(),
        )
    };
    sb.cmd(&["save"])
        .stdin(fix(input("precompact.json")))
        .run()
        .assert_fail_open();
    let r = sb
        .cmd(&["restore", "--text"])
        .stdin(fix(input("sessionstart.json")))
        .run();
    r.assert_fail_open();
    assert_eq!(
        timeless(sample),
        timeless(r.stdout.trim_end()),
        "README.md's sample differs from what the demo prints: paste the demo's output"
    );
}

/// The lines of the README's `sh` code blocks.
fn shell_lines(readme: &str) -> Vec<&str> {
    readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .flat_map(str::lines)
        .collect()
}

/// Issue #55: the README's install blocks run as pasted, today. Every `cargo install` builds
/// with the crate versions the project tested (`--locked`: without it cargo picks newer ones),
/// and while no version is published there is no `release` branch to follow, so no block names
/// it (`codex plugin marketplace add ... --ref release` failed with a backtrace).
#[test]
fn the_readmes_install_blocks_run_as_pasted_today() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = shell_lines(&readme);
    let installs: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("cargo install"))
        .collect();
    assert!(!installs.is_empty());
    for l in installs {
        assert!(l.contains("--locked"), "{l}");
    }
    if env!("CARGO_PKG_VERSION").ends_with("-dev") {
        for l in &lines {
            assert!(!l.contains("--ref release"), "no release branch yet: {l}");
        }
    }
}
