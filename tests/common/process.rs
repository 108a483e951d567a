//! Processes a test starts itself, beside [`Cmd`](super::Cmd): through `sh` (a resource limit or
//! a closed stdout set before the binary starts), several at once, or not yet waited for. Each is
//! isolated from the machine's settings as [`Cmd`](super::Cmd) is, and a hang fails the test after
//! [`HANG`], never a slow machine.

use super::{HANG, Run, Sandbox, bin, isolate, spawn};
use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::time::Instant;

/// Runs `c` with `env`, `input` on stdin, stdout and stderr captured; kills it and fails the test
/// after [`HANG`].
pub fn run_child(mut c: Command, env: &[(String, String)], input: &str) -> Run {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    isolate(&mut c);
    c.envs(env.iter().map(|(k, v)| (k, v)));
    let started = Instant::now();
    let child = start(c, input.as_bytes());
    let out = wait_bounded(child);
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
        user_line: None,
    }
}

/// Runs `sh -c "<prefix>; exec BIN <args>"` with the sandbox's environment (a resource limit, a
/// closed stdout, a variable set before the binary starts), `input` on stdin.
pub fn via_sh(sb: &Sandbox, prefix: &str, args: &str, input: &str) -> Run {
    let mut c = Command::new("sh");
    c.args(["-c", &format!("{prefix}; exec \"$0\" {args}"), bin()]);
    run_child(c, &sb.env, input)
}

/// Starts `c` (its stdin piped) and writes `input` to it from a thread: the child may stop
/// reading early, which is allowed. Not yet waited for.
pub fn start(mut c: Command, input: &[u8]) -> Child {
    c.stdin(Stdio::piped());
    let mut child = spawn(&mut c);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    child
}

/// Starts the binary's `sub` in the sandbox with `input` on stdin and stdout as given (stderr
/// captured); not yet waited for: several can run at once.
pub fn start_in(sb: &Sandbox, sub: &str, input: &[u8], stdout: Stdio) -> Child {
    let mut c = Command::new(bin());
    c.arg(sub).stdout(stdout).stderr(Stdio::piped());
    isolate(&mut c);
    c.envs(sb.env.iter().map(|(k, v)| (k, v)));
    start(c, input)
}

/// Waits for `child`, killing it (and failing) after [`HANG`].
pub fn wait_bounded(child: Child) -> Output {
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("hung for {} s", HANG.as_secs());
        }
    }
}
