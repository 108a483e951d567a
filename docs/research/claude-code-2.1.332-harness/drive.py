#!/usr/bin/env python3
"""drive.py NAME CLI STEP... : one probe run of the real Claude Code CLI against mock.py.

Each STEP is a prompt for `claude -p` (the first with --session-id, then --resume; "/compact"
compacts). The probe plugin (probe/) is copied into the run with the hooks in DRIVE_EVENTS; each
hook first runs bin/early (copies the transcript at that instant), then bin/probe.sh.
Knobs (environment): DRIVE_EVENTS (hook events, default: all), DRIVE_ENV='K=V K2=V2' (extra
environment for the CLI, hooks and mock; V=UNSET removes K), DRIVE_ARGS (extra CLI arguments),
DRIVE_SETTINGS='<json>' (HOME/.claude/settings.json), DRIVE_GLOBAL='<json>' (merged into
HOME/.claude.json, e.g. {"cachedGrowthBookFeatures":{...}}), DRIVE_TIMEOUT (seconds a step,
default 120), DRIVE_TAIL (seconds watched after the last step), DRIVE_WATCH (watcher lifetime),
DRIVE_SID (session id), DRIVE_RUNS (where runs go, default /tmp/cc-probe-runs).
Everything lands in $DRIVE_RUNS/NAME/: mock/ (requests.jsonl, bodies/), probe/ (hooks.jsonl, in/,
tx/, early/), watch.jsonl, debug-N.txt, out-N.txt, transcript.jsonl, timeline.txt."""
import json, os, shutil, subprocess, sys, time, signal
H = os.path.dirname(os.path.abspath(__file__))
ROOT = H  # probe/ lives beside the scripts
RUNS = os.environ.get("DRIVE_RUNS", "/tmp/cc-probe-runs")
name, cli, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
R = os.path.join(RUNS, name)
shutil.rmtree(R, ignore_errors=True)
home, proj, mockd, probed = [os.path.join(R, x) for x in ("home", "project", "mock", "probe")]
for d in (home, proj, mockd, probed):
    os.makedirs(d)
with open(os.path.join(proj, "run_tests.sh"), "w") as f:
    f.write("echo 'running 3 tests'\necho 'test billing::total ... FAILED'\necho 'test result: FAILED. 2 passed; 1 failed'\nexit 101\n")
extra = dict(kv.split("=", 1) for kv in os.environ.get("DRIVE_ENV", "").split() if kv)
os.makedirs(os.path.join(home, ".claude"))
if os.environ.get("DRIVE_SETTINGS"):
    with open(os.path.join(home, ".claude", "settings.json"), "w") as f:
        f.write(os.environ["DRIVE_SETTINGS"])
g = {"hasCompletedOnboarding": True, "numStartups": 5}
if os.environ.get("DRIVE_GLOBAL"):
    g.update(json.loads(os.environ["DRIVE_GLOBAL"]))
with open(os.path.join(home, ".claude.json"), "w") as f:
    json.dump(g, f)
env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC", "COMPACT_GUARDIAN", "DRIVE_", "PROBE_", "MOCK_"))}
env.update({"HOME": home, "MOCK_PROJECT": proj, "MOCK_DIR": mockd, "PROBE_DIR": probed, "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
            "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"})
env.update(extra)
for k in [k for k, v in env.items() if v == "UNSET"]:
    del env[k]
# The probe plugin, per run: the events in DRIVE_EVENTS (default: all), each hook first runs
# bin/early (copies the transcript at that instant), then bin/probe.sh (stdin, timing, output).
plug = os.path.join(R, "probe-plugin")
shutil.copytree(os.path.join(ROOT, "probe"), plug)
# the manifest is written here, not kept in the repository, so no stray plugin sits in docs/
os.makedirs(os.path.join(plug, ".claude-plugin"))
os.makedirs(os.path.join(plug, "hooks"))
json.dump({"name": "cc-probe", "version": "0.0.1", "description": "Logs every hook call"}, open(os.path.join(plug, ".claude-plugin", "plugin.json"), "w"))
subprocess.run(["cc", "-O2", "-o", os.path.join(plug, "bin", "early"), os.path.join(plug, "bin", "early.c")], check=True)
events = os.environ.get("DRIVE_EVENTS", "PreCompact PostCompact SessionStart SessionEnd UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure Stop Notification SubagentStop SubagentStart").split()
hooks = {}
for e in events:
    cmd = '"${CLAUDE_PLUGIN_ROOT}/bin/early" %s; "${CLAUDE_PLUGIN_ROOT}/bin/probe.sh" %s' % (e, e)
    entry = {"hooks": [{"type": "command", "command": cmd, "timeout": 60}]}
    if e in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification"):
        entry["matcher"] = "*"
    hooks[e] = [entry]
json.dump({"hooks": hooks}, open(os.path.join(plug, "hooks", "hooks.json"), "w"), indent=1)
mock = subprocess.Popen([sys.executable, os.path.join(H, "mock.py")], env=env, stdout=open(os.path.join(mockd, "out.txt"), "w"), stderr=subprocess.STDOUT)
for _ in range(200):
    if os.path.exists(os.path.join(mockd, "port")) and open(os.path.join(mockd, "port")).read():
        break
    time.sleep(0.05)
port = open(os.path.join(mockd, "port")).read().strip()
env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
sid = os.environ.get("DRIVE_SID", "11111111-2222-4333-8444-%012d" % (os.getpid() % 10**12))
munged = "".join(c if c.isalnum() else "-" for c in proj)
tx = os.path.join(home, ".claude", "projects", munged, sid + ".jsonl")
env["PROBE_TX"] = tx
watch = subprocess.Popen([sys.executable, os.path.join(H, "watch.py"), tx, os.path.join(R, "watch.jsonl"), os.environ.get("DRIVE_WATCH", "1200")])
timeout = float(os.environ.get("DRIVE_TIMEOUT", "120"))
steplog = open(os.path.join(R, "steps.jsonl"), "w")
for i, p in enumerate(steps):
    args = [cli, "-p", p, "--plugin-dir", plug, "--debug-file", os.path.join(R, f"debug-{i}.txt"),
            "--permission-mode", "acceptEdits", "--allowed-tools", "Bash Read Write Edit"] + os.environ.get("DRIVE_ARGS", "").split()
    args += ["--session-id", sid] if i == 0 else ["--resume", sid]
    t0 = time.time()
    with open(os.path.join(R, f"out-{i}.txt"), "w") as out:
        c = subprocess.Popen(args, cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            rc = c.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            c.kill(); rc = "timeout"; c.wait()
    steplog.write(json.dumps({"step": i, "prompt": p, "t0": t0, "t1": time.time(), "rc": rc}) + "\n"); steplog.flush()
time.sleep(float(os.environ.get("DRIVE_TAIL", "2")))
open(os.path.join(R, "STOP"), "w").close()
watch.wait(timeout=10)
mock.terminate(); mock.wait(timeout=10)
shutil.copy(tx, os.path.join(R, "transcript.jsonl")) if os.path.exists(tx) else None
subprocess.run([sys.executable, os.path.join(H, "timeline.py"), R])
