"""HELD-OUT half: its own summary narration (do not read when tuning).

The engine (`compose.Composer`) knows the clients' formats; this `Listing` writes the sections
in another manner: prose paragraphs where the tune half writes bullets, numbered user messages,
the project's conventions in a Codex handoff. Its wording (its own Codex section names, French
and Portuguese beside the languages the tune half uses) is its voice, in `data/heldout.json`.
"""

from __future__ import annotations

import compose
from compose import _short


class Composer(compose.Listing):
    """The held-out half's narration, in its voice (`data/heldout.json`)."""

    def sec_request(self) -> str:
        ps = self.prompts()
        lines = [self.w["req_intro"]]
        for i, p in enumerate(ps, 1):
            lines.append(f"{i}) {_short(p, 260)}")
        lines += ["- " + t for t in self.case.get("request", [])]
        lines += ["- " + t for t in self.placed("request")]
        return "\n".join(lines)

    def sec_problem(self) -> str:
        # Prose: the steps as one paragraph, then the placed sentences each on its own line.
        runs = [e for e in self.base if e["k"] == "run"][-3:]
        para = []
        if runs:
            para.append(self.w["earlier"] + " " + "; ".join(f"`{_short(e['cmd'], 80)}` ({e['exit']})" for e in runs) + ".")
        steps = self.step_lines()
        if steps:
            para.append(self.w["problem_intro"] + " " + " ".join(steps))
        out = [" ".join(para)] if para else []
        out += self.placed("problem")
        return "\n".join(out) if out else self.w["none"]

    def sec_messages(self) -> str:
        out = []
        for i, p in enumerate(self.prompts(), 1):
            out.append(f"{i}. \"{self.quoted_prompt(p)}\"")
        out += self.placed("messages")
        return "\n".join(out)

    def sec_current(self) -> str:
        last = self.step_lines()[-2:]
        head = self.w["current_intro"] + (" " + " ".join(last) if last else "")
        return "\n".join([head] + self.placed("current"))

    def sec_next(self) -> str:
        out = list(self.placed("next"))
        ps = self.prompts()
        if ps and self.shape.get("next_quote", True):
            out.append(self.w["latest"].format(q=_short(ps[-1], 500)))
        return "\n".join(out) if out else self.w["none"]

    def codex(self) -> str:
        # The held-out handoffs also carry the conventions the agent read, as Codex's summaries
        # keep the user's and the project's constraints.
        out = super().codex()
        reads = [st for st in self.case.get("steps", []) if st[0] == "read" and st[1].startswith("RUNBOOK")]
        if reads:
            rules = [l for l in reads[0][2].split("\n") if l.startswith("- ")][:8]
            head = {"markdown": "## Project conventions", "plain": "Project conventions:"}.get(self.shape.get("codex_style"), "**Project conventions**")
            out += "\n\n" + head + " (from `" + reads[0][1] + "`)\n" + "\n".join(rules)
        return out

    def analysis(self) -> str:
        out = [self.w["analysis_intro"]]
        for p in self.prompts()[-4:]:
            out.append("- " + _short(p, 140))
        out += ["- " + l for l in self.step_lines()]
        out += ["- " + t for t in self.placed("analysis")]
        return "\n".join(out)
