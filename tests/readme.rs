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
