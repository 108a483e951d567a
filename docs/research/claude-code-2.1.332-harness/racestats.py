#!/usr/bin/env python3
"""racestats.py RUNDIR...: for each race run, when the run_tests call and its result were appended,
when each compaction hook started, and what the hook's instant copy held."""
import json, os, sys, statistics
rows = []
for R in sys.argv[1:]:
    W = [json.loads(l) for l in open(os.path.join(R, "watch.jsonl"))]
    tu = next((w["t"] for w in W if any(("run_tests" in b) for b in w.get("blocks", []) if b.startswith("tool_use"))), None)
    tr = next((w["t"] for w in W if tu and w["t"] >= tu and any(b.startswith("tool_result") for b in w.get("blocks", []))), None)
    tb = next((w["t"] for w in W if w.get("subtype") == "compact_boundary"), None)
    ed = os.path.join(R, "probe", "early")
    hooks = {}
    for f in sorted(os.listdir(ed)):
        t = float(f.split("-")[0]); e = f.rsplit("-", 1)[1][:-6]
        if e not in ("PreCompact", "SessionStart", "PostCompact") or (tu and t < tu):
            continue
        use = res = bnd = 0
        for l in open(os.path.join(ed, f), "rb"):
            if b"run_tests" in l and b'"tool_use"' in l: use = 1
            if b'"tool_result"' in l and (b"FAILED" in l or b"run_tests.log" in l or b"does not exist" in l): res = 1
            if b"compact_boundary" in l: bnd = 1
        hooks.setdefault(e, (t, use, res, bnd))
    pc = hooks.get("PreCompact")
    rows.append({"run": os.path.basename(R), "tool_use_before_pc_ms": round((pc[0] - tu) * 1000) if pc and tu else None,
                 "result_after_pc_ms": round((tr - pc[0]) * 1000) if pc and tr else None,
                 "pc_sees_use": pc and pc[1], "pc_sees_result": pc and pc[2],
                 "ss_sees": hooks.get("SessionStart") and hooks["SessionStart"][1:],
                 "post_sees": hooks.get("PostCompact") and hooks["PostCompact"][1:],
                 "pc_to_ss_ms": round((hooks["SessionStart"][0] - pc[0]) * 1000) if pc and "SessionStart" in hooks else None,
                 "boundary_after_post_ms": round((tb - hooks["PostCompact"][0]) * 1000) if tb and "PostCompact" in hooks else None})
for r in rows:
    print(json.dumps(r))
def med(k):
    v = [r[k] for r in rows if isinstance(r[k], (int, float))]
    return statistics.median(v) if v else None
print("n=%d PreCompact saw call %d/%d, result %d/%d; median result-after-PreCompact %s ms (min %s, max %s); SessionStart saw result %d/%d; PostCompact %d/%d; median PreCompact->SessionStart %s ms" % (
    len(rows), sum(1 for r in rows if r["pc_sees_use"]), len(rows), sum(1 for r in rows if r["pc_sees_result"]), len(rows),
    med("result_after_pc_ms"), min((r["result_after_pc_ms"] for r in rows if r["result_after_pc_ms"] is not None), default=None),
    max((r["result_after_pc_ms"] for r in rows if r["result_after_pc_ms"] is not None), default=None),
    sum(1 for r in rows if r["ss_sees"] and r["ss_sees"][1]), len(rows), sum(1 for r in rows if r["post_sees"] and r["post_sees"][1]), len(rows), med("pc_to_ss_ms")))
