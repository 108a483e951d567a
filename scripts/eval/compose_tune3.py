"""The TUNE3 half's narration: tune2's composer (`compose_tune2.Composer`) with its own English
prose (status lines, passive voice) and its own Codex handoff headings, so that the sentences
around the claims are not tune2's either."""

from __future__ import annotations

import compose_tune2

W_EN = dict(
    compose_tune2.W["en"],
    req_lead="Requests, oldest first:",
    earlier="Earlier request: {q}",
    main="Request in progress: {q}",
    follow="Follow-up: {q}",
    p_lead="Work log:",
    p_earlier="Commands run earlier in the session: {x}.",
    n_run="`{cmd}` was run ({result})",
    n_edit="`{file}` was modified",
    n_new="`{file}` was created",
    n_read="`{file}` was read",
    n_fail="an edit of `{file}` was rejected ({err})",
    n_tasks="the task list was updated ({items})",
    cur_lead="Most recently:",
    then=";",
    last="; and",
    next_quote="Newest user message: “{q}”",
    an_lead="Chronological pass over the conversation:",
    an_user="User: {q}",
    an_me="Assistant: {n}.",
    e_none="No errors needed fixing.",
    pend_none="(none)",
)

LAYOUTS = {
    "ledger": {"en": ["Mission", "Completed so far", "State of play", "To do", "Caveats", "Pointers"]},
    "status": {"en": ["Context", "Progress log", "Status", "Outstanding", "Notes", "Files and commands"]},
}


class Composer(compose_tune2.Composer):
    def __init__(self, case, base_events, full, base_extra):
        super().__init__(case, base_events, full, base_extra)
        if self.lang == "en":
            self.w = W_EN

    def _codex(self, code_lines: int, prompt_len: int) -> str:
        saved = compose_tune2.CODEX_LAYOUTS
        compose_tune2.CODEX_LAYOUTS = dict(saved, **LAYOUTS)
        try:
            return super()._codex(code_lines, prompt_len)
        finally:
            compose_tune2.CODEX_LAYOUTS = saved
