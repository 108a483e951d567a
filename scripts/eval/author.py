"""Authors one half of the corrections evaluation set: `tests/fixtures/eval/<half>/<half>-cases.json`.

    python3 scripts/eval/author.py tune|tune2|tune3|heldout

A half is its scenarios (`scenarios_<half>.py`: each writes the steps that put the record in a
known state, the claims the summary makes, with their subjects, and the sentences that are no
claims, traps) and its data (`data/<half>.json`'s `author`: its projects and their code, its
wording, its base transcripts and cut points). The halves are authored apart: none reads
another's wording, and nobody who tunes the corrections reads the held-out half's
(`scenarios_heldout.py`, `data/heldout.json`). tune3 is tune2's projects and scenario code
with its own wording and scenarios.

Every case is materialized here once: its label, read from the record by `label.py`, must be
the verdict the scenario intends, or authoring stops. A half that puts its cases on bases as it
goes (tune2, tune3: `place`) tries another base when a summary comes out of length.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

from materialize import REPO, SetError, base_lines, materialize  # noqa: E402
import reader  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
HALVES = ("tune", "tune2", "tune3", "heldout")


def data(half: str) -> dict:
    """What a half's scenarios are written from (`data/<half>.json`'s `author`)."""
    return json.loads((DATA / f"{half}.json").read_text(encoding="utf-8"))["author"]


def spec_of(template: dict):
    """A test run's output spec for `passed` and `failed`: the template's `$p` and `$f`."""
    return lambda p, f: {k: (p if v == "$p" else f if v == "$f" else v) for k, v in template.items()}


def open_in_base(base: str, cut: int) -> bool:
    """Whether the base, cut there, leaves a task or a checklist item open: a claim about the
    whole record ("all done") would then be false."""
    tl = reader.read(base_lines({"id": "probe", "base": base, "cut": cut}))
    return bool(tl.open_tasks() or [t for t, c in tl.last_checklist() if not c])


def late_result_for_codex(d: dict) -> bool:
    """Codex summarizes the whole record when it compacts, after every output is written: a
    result written after PreCompact becomes a failing run just before an automatic compaction.
    Whether the scenario had one."""
    if not any(len(st) > 4 and st[0] == "run" and st[4] == "pending" for st in d["steps"]):
        return False
    d["steps"] = [st[:4] if st[0] == "run" else st for st in d["steps"] if st[0] != "finish_pending"]
    d.pop("save_at", None)
    d["classes"] = ["failing_run_just_before_auto_compaction"]
    return True


def settle(case: dict, place=None) -> dict:
    """The case materialized, its label checked; `place` puts it on a base first, and on
    another (up to six tries) while its summary comes out of length."""
    if place is None:
        return materialize(case)
    last = ""
    for attempt in range(6):
        place(case, min(attempt, 1))
        try:
            return materialize(case)
        except SetError as e:
            if "bytes, outside" not in str(e):
                raise
            last = str(e)
    raise SetError(f"{case['id']}: no base gave a summary of the right length ({last})")


def main():
    half = sys.argv[1] if len(sys.argv) == 2 else ""
    if half not in HALVES:
        raise SystemExit(f"usage: author.py {'|'.join(HALVES)}")
    scenarios = importlib.import_module(f"scenarios_{half}")
    bad, counts, out_cases = [], {}, []
    for c in scenarios.build():
        c["half"] = half
        try:
            m = settle(c, getattr(scenarios, "place", None))
        except SetError as e:
            bad.append(str(e))
            continue
        finally:
            c.pop("half")
        key = (c["client"], m["label"]["verdict"])
        counts[key] = counts.get(key, 0) + 1
        out_cases.append(scenarios.finish(c) if hasattr(scenarios, "finish") else c)
    if bad:
        for b in bad:
            print("BAD", b)
        raise SystemExit(1)
    ids = [c["id"] for c in out_cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit(f"duplicate case ids: {sorted(dup)}")
    out = REPO / f"tests/fixtures/eval/{half}/{half}-cases.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"about": scenarios.ABOUT, "cases": out_cases}, ensure_ascii=False, indent=1)
    out.write_text(text + "\n", encoding="utf-8")
    print(f"{len(out_cases)} cases -> {out}: {counts}")


if __name__ == "__main__":
    main()
