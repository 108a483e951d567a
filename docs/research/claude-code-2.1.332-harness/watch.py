#!/usr/bin/env python3
"""watch.py TRANSCRIPT OUT LIFETIME: polls TRANSCRIPT every 2 ms and logs each appended line (time,
line number, type/subtype and what it holds) to OUT as JSON lines. Ends after LIFETIME seconds or
when the file STOP next to OUT exists."""
import json, os, sys, time
path, out, life = sys.argv[1], sys.argv[2], float(sys.argv[3])
stop = os.path.join(os.path.dirname(out), "STOP")
end = time.time() + life
pos, buf, n = 0, b"", 0
def desc(o):
    t = o.get("type"); d = {"type": t}
    if o.get("subtype"): d["subtype"] = o["subtype"]
    if o.get("uuid"): d["uuid"] = o["uuid"][:8]
    if o.get("isCompactSummary"): d["compact_summary"] = True
    if o.get("isMeta"): d["meta"] = True
    if t == "attachment":
        a = o.get("attachment") or {}
        d["att"] = a.get("type"); 
        if a.get("hookEvent"): d["hook"] = a.get("hookEvent")
    m = o.get("message") or {}
    c = m.get("content")
    if isinstance(c, list):
        k = []
        for b in c:
            if not isinstance(b, dict): continue
            if b.get("type") == "tool_use": k.append("tool_use:" + str(b.get("name")) + ":" + json.dumps(b.get("input"))[:40])
            elif b.get("type") == "tool_result": k.append("tool_result" + (":ERR" if b.get("is_error") else ""))
            elif b.get("type") == "text": k.append("text:" + b.get("text", "")[:50])
        d["blocks"] = k
    elif isinstance(c, str):
        d["text"] = c[:60]
    return d
with open(out, "a") as f:
    while time.time() < end and not os.path.exists(stop):
        try:
            with open(path, "rb") as t:
                t.seek(pos); data = t.read()
        except FileNotFoundError:
            data = b""
        if data:
            now = time.time(); pos += len(data); buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1); n += 1
                try: d = desc(json.loads(line))
                except Exception: d = {"unparsed": len(line)}
                d["t"] = now; d["line"] = n
                f.write(json.dumps(d) + "\n"); f.flush()
        time.sleep(0.002)
