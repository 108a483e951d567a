#!/usr/bin/env python3
"""timeline.py RUNDIR: merges steps, API requests, hook calls and transcript appends by time."""
import json, os, sys
R = sys.argv[1]
ev = []
def rd(p):
    p = os.path.join(R, p)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
for s in rd("steps.jsonl"):
    ev.append((s["t0"], f"STEP {s['step']} start: claude -p {s['prompt'][:70]!r}"))
    ev.append((s["t1"], f"STEP {s['step']} end rc={s['rc']}"))
for q in rd("mock/requests.jsonl"):
    if q.get("method") == "GET" or "idx" not in q:
        ev.append((q["t"], f"API {q.get('method')} {q.get('path')}")); continue
    ev.append((q["t"], f"API #{q['idx']} {q['kind']} prompt={q['prompt'][:40]!r} step={q['step']} msgs={q['nmsgs']} -> {q['reply']} tokens={q['tokens']}"))
for h in rd("probe/hooks.jsonl"):
    inp = json.load(open(os.path.join(R, "probe", "in", h["key"] + ".json")))
    extra = {k: inp.get(k) for k in ("trigger", "source", "tool_name", "reason") if inp.get(k) is not None}
    if "compact_summary" in inp: extra["compact_summary_len"] = len(inp["compact_summary"] or "")
    ev.append((h["t"], f"HOOK {h['event']} {json.dumps(extra)} transcript at copy: {h['lines']} lines (copied +{(h['t_copied']-h['t'])*1000:.0f} ms)"))
def facts(path):
    """What a transcript copy holds: lines, the run_tests call and its result, boundaries."""
    n = use = res = bnd = 0
    ids = set()
    for l in open(path, "rb"):
        n += 1
        try: o = json.loads(l)
        except Exception: continue
        if o.get("subtype") == "compact_boundary": bnd += 1
        c = (o.get("message") or {}).get("content")
        if isinstance(c, list):
            for b in c:
                if isinstance(b, dict) and b.get("type") == "tool_use" and "run_tests" in json.dumps(b.get("input")):
                    use += 1; ids.add(b.get("id"))
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in ids:
                    res += 1
    return f"lines={n} run_tests_use={use} result={res} boundaries={bnd}"
ed = os.path.join(R, "probe", "early")
for f in sorted(os.listdir(ed)) if os.path.isdir(ed) else []:
    t = float(f.split("-")[0]); evn = f.rsplit("-", 1)[1][:-6]
    ev.append((t, f"EARLY {evn}: {facts(os.path.join(ed, f))}"))
for w in rd("watch.jsonl"):
    d = {k: v for k, v in w.items() if k not in ("t", "line")}
    ev.append((w["t"], f"   tx line {w.get('line')}: {json.dumps(d)[:200]}"))
ev.sort(key=lambda e: e[0])
t0 = ev[0][0] if ev else 0
with open(os.path.join(R, "timeline.txt"), "w") as f:
    for t, s in ev:
        f.write(f"{t-t0:9.3f}  {s}\n")
print(open(os.path.join(R, "timeline.txt")).read())
