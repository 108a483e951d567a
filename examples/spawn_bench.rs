//! Times whole processes without a shell in between (a shell's start-up is bigger than ours):
//! `cargo run --release --example spawn_bench -- <runs> <stdin-file> [--prepare '<sh command>'] -- <cmd> [args...] [-- <cmd2> [args...] ...] [--vs <cmd> [args...]]`.
//! Each run spawns `cmd` with `stdin-file` on stdin and its stdout a pipe that is read and
//! discarded (as Claude Code reads a hook's stdout; and GNU grep stops at the first match when
//! its stdout is /dev/null, which would flatter a grep baseline); `--prepare` runs before each
//! run, untimed. Exit status 1 counts as success too: it is grep's "no line matched", which is
//! what a search baseline over a file without task tools answers. Prints the median and the
//! minimum in milliseconds, and (on Linux) the median CPU time the process took, user and system
//! (the scheduler's own count, read before the process is reaped: what other load on a shared
//! machine changes least), tab-separated. Several commands (each after its own `--`) are run in
//! turn, one run of each per round, every other round in reverse order (A B B A), so that a busy
//! machine's drift falls on all of them alike: one line per command, in the order given. With
//! `--vs` before the second of two commands, both commands' figures are on one line.

use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

/// The CPU time an exited child took, in milliseconds, read before it is reaped (Linux:
/// `/proc/<pid>/schedstat`, nanoseconds on the CPU); `None` elsewhere.
#[cfg(target_os = "linux")]
fn cpu_ms(child: &std::process::Child) -> Option<f64> {
    use rustix::process::{Pid, WaitIdOptions, waitid};
    waitid(
        rustix::process::WaitId::Pid(Pid::from_child(child)),
        WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
    )
    .ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{}/schedstat", child.id())).ok()?;
    Some(stat.split_whitespace().next()?.parse::<f64>().ok()? / 1e6)
}

#[cfg(not(target_os = "linux"))]
fn cpu_ms(_: &std::process::Child) -> Option<f64> {
    None
}

/// One timed run of `cmd` with `input` on stdin: wall and CPU milliseconds.
fn run_once(cmd: &[String], input: &str, prepare: Option<&str>) -> (f64, Option<f64>) {
    if let Some(p) = prepare {
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
    let stdin = File::open(input).unwrap();
    let start = Instant::now();
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut sink = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut sink).unwrap();
    let cpu = cpu_ms(&child);
    let status = child.wait().unwrap();
    let elapsed = start.elapsed();
    assert!(matches!(status.code(), Some(0 | 1)), "{status}");
    (elapsed.as_secs_f64() * 1000.0, cpu)
}

/// The median and the minimum wall time, and the median CPU time (`-` when unknown).
fn summary(times: Vec<(f64, Option<f64>)>) -> String {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let wall: Vec<f64> = times.iter().map(|t| t.0).collect();
    let least = wall.iter().copied().fold(f64::INFINITY, f64::min);
    let cpu: Option<Vec<f64>> = times.iter().map(|t| t.1).collect();
    let cpu = cpu.map_or("-".to_owned(), |c| format!("{:.3}", median(c)));
    format!("{:.3}\t{least:.3}\t{cpu}", median(wall))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: spawn_bench <runs> <stdin-file> [--prepare CMD] -- <cmd> [args...] [-- <cmd> ...] [--vs <cmd> [args...]]";
    let runs: usize = args.first().and_then(|s| s.parse().ok()).expect(usage);
    let input = args.get(1).expect(usage).clone();
    let mut rest = &args[2..];
    let mut prepare = None;
    if rest.first().map(String::as_str) == Some("--prepare") {
        prepare = Some(rest.get(1).expect(usage).clone());
        rest = &rest[2..];
    }
    assert_eq!(rest.first().map(String::as_str), Some("--"), "{usage}");
    let rest = &rest[1..];
    let one_line = rest.iter().any(|a| a == "--vs");
    let cmds: Vec<&[String]> = rest.split(|a| a == "--" || a == "--vs").collect();
    assert!(cmds.iter().all(|c| !c.is_empty()), "{usage}");
    assert!(!one_line || cmds.len() == 2, "{usage}");
    let prepare = prepare.as_deref();
    let mut times = vec![Vec::with_capacity(runs); cmds.len()];
    for i in 0..runs + 5 {
        // The first five rounds are warm-up; every other round runs the commands in reverse.
        let mut order: Vec<usize> = (0..cmds.len()).collect();
        if i % 2 == 1 {
            order.reverse();
        }
        for k in order {
            let t = run_once(cmds[k], &input, prepare);
            if i >= 5 {
                times[k].push(t);
            }
        }
    }
    let lines: Vec<String> = times.into_iter().map(summary).collect();
    if one_line {
        println!("{}", lines.join("\t"));
    } else {
        for line in lines {
            println!("{line}");
        }
    }
}
