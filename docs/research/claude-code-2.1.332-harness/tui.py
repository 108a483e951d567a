#!/usr/bin/env python3
"""tui.py NAME CLI STEP... : drive.py's set-up (same knobs), one interactive session in tmux.

STEPs: send:TEXT (typed, then Enter), keys:K1,K2 (tmux key names), wait:SECONDS, screen (saves the
pane to screen-NN.txt). The session is named cgprobe-NAME; after the last step it gets two ctrl-c
and its tmux session is killed. The folder is trusted and the API key approved in .claude.json."""
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
# trust the project folder and the API key, so no dialog stops the session
g = json.load(open(os.path.join(home, ".claude.json")))
g.setdefault("projects", {})[proj] = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
g["customApiKeyResponses"] = {"approved": [env["ANTHROPIC_API_KEY"][-20:]], "rejected": []}
json.dump(g, open(os.path.join(home, ".claude.json"), "w"))
tm = "cgprobe-" + name
args = [cli, "--plugin-dir", plug, "--debug-file", os.path.join(R, "debug-tui.txt"), "--session-id", sid,
        "--permission-mode", "acceptEdits", "--allowed-tools", "Bash Read Write Edit"] + os.environ.get("DRIVE_ARGS", "").split()
envargs = ["env", "-i"] + [f"{k}={v}" for k, v in env.items()] + ["TERM=xterm-256color"]
subprocess.run(["tmux", "new-session", "-d", "-s", tm, "-x", "200", "-y", "50", "-c", proj] + envargs + args, check=True)
pid = subprocess.run(["tmux", "display-message", "-p", "-t", tm, "#{pane_pid}"], capture_output=True, text=True).stdout.strip()
open(os.path.join(R, "cli.pid"), "w").write(pid)
steplog = open(os.path.join(R, "steps.jsonl"), "w")
shots = 0
def screen():
    global shots
    shots += 1
    out = subprocess.run(["tmux", "capture-pane", "-p", "-t", tm, "-S", "-200"], capture_output=True, text=True).stdout
    open(os.path.join(R, f"screen-{shots:02d}.txt"), "w").write(out)
    return out
time.sleep(8)
for i, st in enumerate(steps):
    t0 = time.time()
    kind, _, arg = st.partition(":")
    if kind == "send":
        subprocess.run(["tmux", "send-keys", "-t", tm, "-l", arg])
        time.sleep(0.5)
        subprocess.run(["tmux", "send-keys", "-t", tm, "Enter"])
    elif kind == "keys":
        for k in arg.split(","):
            subprocess.run(["tmux", "send-keys", "-t", tm, k]); time.sleep(0.7)
    elif kind == "wait":
        time.sleep(float(arg))
    elif kind == "screen":
        screen()
    steplog.write(json.dumps({"step": i, "prompt": st, "t0": t0, "t1": time.time(), "rc": "-"}) + "\n"); steplog.flush()
screen()
subprocess.run(["tmux", "send-keys", "-t", tm, "C-c"]); time.sleep(1)
subprocess.run(["tmux", "send-keys", "-t", tm, "C-c"]); time.sleep(3)
subprocess.run(["tmux", "kill-session", "-t", tm])
time.sleep(float(os.environ.get("DRIVE_TAIL", "2")))
open(os.path.join(R, "STOP"), "w").close()
watch.wait(timeout=10)
mock.terminate(); mock.wait(timeout=10)
shutil.copy(tx, os.path.join(R, "transcript.jsonl")) if os.path.exists(tx) else None
subprocess.run([sys.executable, os.path.join(H, "timeline.py"), R])
