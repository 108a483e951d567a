//! Times whole processes without a shell in between (a shell's start-up is bigger than ours):
//! `cargo run --release --example spawn_bench -- <runs> <stdin-file> [--prepare '<sh command>'] -- <cmd> [args...] [-- <cmd2> [args...] ...]`.
//! Each run spawns `cmd` with `stdin-file` on stdin and its stdout a pipe that is read and
//! discarded (as Claude Code reads a hook's stdout; and GNU grep stops at the first match when
//! its stdout is /dev/null, which would flatter a grep baseline); `--prepare` runs before each
//! run, untimed. Exit status 1 counts as success too: it is grep's "no line matched", which is
//! what a search baseline over a file without task tools answers. Prints the median and the
//! minimum in milliseconds, tab-separated. Several commands (each after its own `--`) are run
//! in turn, one run of each per round, so that a busy machine's drift falls on all of them
//! alike: one line per command, in the order given.

use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: spawn_bench <runs> <stdin-file> [--prepare CMD] -- <cmd> [args...] [-- <cmd> ...]";
    let runs: usize = args.first().and_then(|s| s.parse().ok()).expect(usage);
    let input = args.get(1).expect(usage).clone();
    let mut rest = &args[2..];
    let mut prepare = None;
    if rest.first().map(String::as_str) == Some("--prepare") {
        prepare = Some(rest.get(1).expect(usage).clone());
        rest = &rest[2..];
    }
    assert_eq!(rest.first().map(String::as_str), Some("--"), "{usage}");
    let cmds: Vec<&[String]> = rest[1..].split(|a| a == "--").collect();
    assert!(cmds.iter().all(|c| !c.is_empty()), "{usage}");
    let mut times = vec![Vec::with_capacity(runs); cmds.len()];
    for i in 0..runs + 5 {
        for (cmd, times) in cmds.iter().zip(&mut times) {
            if let Some(p) = &prepare {
                assert!(
                    Command::new("sh")
                        .arg("-c")
                        .arg(p)
                        .status()
                        .unwrap()
                        .success(),
                    "prepare failed"
                );
            }
            let stdin = File::open(&input).unwrap();
            let start = Instant::now();
            let mut child = Command::new(&cmd[0])
                .args(&cmd[1..])
                .stdin(Stdio::from(stdin))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut sink = Vec::new();
            child.stdout.take().unwrap().read_to_end(&mut sink).unwrap();
            let status = child.wait().unwrap();
            let elapsed = start.elapsed();
            assert!(matches!(status.code(), Some(0 | 1)), "{status}");
            if i >= 5 {
                times.push(elapsed.as_secs_f64() * 1000.0); // the first five are warm-up
            }
        }
    }
    for mut times in times {
        times.sort_by(f64::total_cmp);
        println!("{:.3}\t{:.3}", times[times.len() / 2], times[0]);
    }
}
