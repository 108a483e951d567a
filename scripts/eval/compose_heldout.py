"""HELD-OUT half: its own summary wording and narration (do not read when tuning).

The engine (`compose.Composer`) knows the clients' formats; this subclass writes the sections in
other words and another manner: prose paragraphs where the tune half writes bullets, numbered
user messages, its own Codex section names, and French and Portuguese beside the languages the
tune half uses.
"""

from __future__ import annotations

import compose
from compose import _short

W = {
    "en": {
        "req_intro": "What the user wanted, in the order it came up:",
        "asked": "{q}",
        "ran": "`{cmd}` returned {code}.",
        "ran_counts": "`{cmd}` reported {p} passing and {f} failing{names}.",
        "edited": "Modified `{file}`.",
        "edit_failed": "Changing `{file}` did not go through ({err})",
        "created": "Added the new file `{file}`.",
        "why_file": "Changed in this session.",
        "why_read": "Opened to understand the surrounding code.",
        "base_err": "{tool} error: {err}",
        "no_errors": "Nothing else went wrong.",
        "task_line": "{name} [{state}]",
        "none": "(none)",
        "quote_intro": "",
        "latest": "Last thing the user wrote: \"{q}\"",
        "analysis_intro": "Let me walk through what happened:",
        "concepts_tools": "Tooling seen: {tools}",
        "problem_intro": "How the work went:",
        "current_intro": "Right before the context ran out,",
        "states": {"pending": "not started", "in_progress": "underway", "completed": "finished"},
        "span_recent": "(Only the messages after the retained earlier context are summarized here.)",
        "earlier": "Before this part of the session, the agent had run:",
    },
    "zh": {
        "req_intro": "用户想要的内容，按提出的先后：",
        "asked": "{q}",
        "ran": "`{cmd}` 返回 {code}。",
        "ran_counts": "`{cmd}` 报告 {p} 个通过、{f} 个失败{names}。",
        "edited": "修改了 `{file}`。",
        "edit_failed": "修改 `{file}` 没有成功（{err}）",
        "created": "新增文件 `{file}`。",
        "why_file": "本次会话中改动。",
        "why_read": "为理解周边代码而打开。",
        "base_err": "{tool} 出错：{err}",
        "no_errors": "没有其他问题。",
        "task_line": "{name} [{state}]",
        "none": "（无）",
        "quote_intro": "",
        "latest": "用户最后写的是：“{q}”",
        "analysis_intro": "回顾一下经过：",
        "concepts_tools": "用到的工具：{tools}",
        "problem_intro": "工作过程：",
        "current_intro": "在上下文用尽之前，",
        "states": {"pending": "未开始", "in_progress": "进行中", "completed": "完成"},
        "span_recent": "（这里只总结保留的早期上下文之后的消息。）",
        "earlier": "在这部分会话之前，已经运行过：",
    },
    "ko": {
        "req_intro": "사용자가 원한 것(나온 순서대로):",
        "asked": "{q}",
        "ran": "`{cmd}` 결과 {code}.",
        "ran_counts": "`{cmd}`: 통과 {p}, 실패 {f}{names}.",
        "edited": "`{file}` 변경.",
        "edit_failed": "`{file}` 변경이 적용되지 않음 ({err})",
        "created": "새 파일 `{file}` 추가.",
        "why_file": "이 세션에서 변경됨.",
        "why_read": "주변 코드를 이해하려고 열어 봄.",
        "base_err": "{tool} 오류: {err}",
        "no_errors": "그 밖의 문제는 없었음.",
        "task_line": "{name} [{state}]",
        "none": "(없음)",
        "quote_intro": "",
        "latest": "사용자가 마지막으로 쓴 말: \"{q}\"",
        "analysis_intro": "진행 상황을 되짚어 보면:",
        "concepts_tools": "사용한 도구: {tools}",
        "problem_intro": "작업 경과:",
        "current_intro": "컨텍스트가 다 차기 직전에,",
        "states": {"pending": "시작 전", "in_progress": "진행 중", "completed": "끝남"},
        "span_recent": "(유지된 이전 맥락 이후의 메시지만 요약함.)",
        "earlier": "이 부분 이전에 실행한 것:",
    },
    "ja": {
        "req_intro": "ユーザーの要望（出てきた順）：",
        "asked": "{q}",
        "ran": "`{cmd}` の結果は {code}。",
        "ran_counts": "`{cmd}` は成功 {p} 件・失敗 {f} 件{names}。",
        "edited": "`{file}` を変更。",
        "edit_failed": "`{file}` の変更は適用されなかった（{err}）",
        "created": "新規ファイル `{file}` を追加。",
        "why_file": "このセッションで変更。",
        "why_read": "周辺コードの理解のために開いた。",
        "base_err": "{tool} のエラー：{err}",
        "no_errors": "ほかに問題はなかった。",
        "task_line": "{name}［{state}］",
        "none": "（なし）",
        "quote_intro": "",
        "latest": "ユーザーの最後の発言：「{q}」",
        "analysis_intro": "経緯を振り返る：",
        "concepts_tools": "使われたツール：{tools}",
        "problem_intro": "作業の流れ：",
        "current_intro": "コンテキストが尽きる直前、",
        "states": {"pending": "未着手", "in_progress": "対応中", "completed": "済み"},
        "span_recent": "（保持された以前の文脈より後のメッセージのみを要約。）",
        "earlier": "この部分より前に実行したもの：",
    },
    "fr": {
        "req_intro": "Ce que l'utilisateur a demandé, dans l'ordre :",
        "asked": "{q}",
        "ran": "`{cmd}` a renvoyé {code}.",
        "ran_counts": "`{cmd}` : {p} réussis, {f} en échec{names}.",
        "edited": "`{file}` modifié.",
        "edit_failed": "La modification de `{file}` n'a pas été appliquée ({err})",
        "created": "Nouveau fichier `{file}`.",
        "why_file": "Modifié pendant cette session.",
        "why_read": "Ouvert pour comprendre le code voisin.",
        "base_err": "Erreur {tool} : {err}",
        "no_errors": "Rien d'autre n'a échoué.",
        "task_line": "{name} [{state}]",
        "none": "(aucune)",
        "quote_intro": "",
        "latest": "Dernier message de l'utilisateur : « {q} »",
        "analysis_intro": "Reprenons le déroulé :",
        "concepts_tools": "Outils vus : {tools}",
        "problem_intro": "Déroulement du travail :",
        "current_intro": "Juste avant la fin du contexte,",
        "states": {"pending": "pas commencée", "in_progress": "en cours", "completed": "terminée"},
        "span_recent": "(Seuls les messages après le contexte antérieur conservé sont résumés ici.)",
        "earlier": "Avant cette partie de la session, l'agent avait lancé :",
    },
    "pt": {
        "req_intro": "O que o usuário pediu, na ordem:",
        "asked": "{q}",
        "ran": "`{cmd}` retornou {code}.",
        "ran_counts": "`{cmd}`: {p} passaram, {f} falharam{names}.",
        "edited": "`{file}` alterado.",
        "edit_failed": "A alteração de `{file}` não foi aplicada ({err})",
        "created": "Novo arquivo `{file}`.",
        "why_file": "Alterado nesta sessão.",
        "why_read": "Aberto para entender o código ao redor.",
        "base_err": "Erro de {tool}: {err}",
        "no_errors": "Nada mais deu errado.",
        "task_line": "{name} [{state}]",
        "none": "(nenhuma)",
        "quote_intro": "",
        "latest": "Última mensagem do usuário: \"{q}\"",
        "analysis_intro": "Recapitulando o que aconteceu:",
        "concepts_tools": "Ferramentas vistas: {tools}",
        "problem_intro": "Como o trabalho andou:",
        "current_intro": "Pouco antes de o contexto acabar,",
        "states": {"pending": "não iniciada", "in_progress": "em andamento", "completed": "concluída"},
        "span_recent": "(Só as mensagens depois do contexto anterior mantido são resumidas aqui.)",
        "earlier": "Antes desta parte da sessão, o agente tinha executado:",
    },
}
W["es"] = dict(W["pt"], req_intro="Lo que pidió el usuario, en orden:", latest="Último mensaje del usuario: \"{q}\"", ran="`{cmd}` devolvió {code}.", edited="`{file}` modificado.", none="(ninguna)")
W["de"] = dict(W["en"], req_intro="Was der Nutzer wollte, in der Reihenfolge:", latest="Zuletzt schrieb der Nutzer: „{q}“", ran="`{cmd}` lieferte {code}.", edited="`{file}` geändert.", none="(keine)")

HEADINGS = dict(compose.HEADINGS)
HEADINGS["fr"] = ["Demande principale et intention", "Concepts techniques clés", "Fichiers et sections de code", "Erreurs et corrections", "Résolution de problèmes", "Tous les messages de l'utilisateur", "Tâches en attente", "Travail en cours", "Prochaine étape facultative"]
HEADINGS["pt"] = ["Pedido principal e intenção", "Conceitos técnicos principais", "Arquivos e trechos de código", "Erros e correções", "Resolução de problemas", "Todas as mensagens do usuário", "Tarefas pendentes", "Trabalho atual", "Próximo passo opcional"]


class Composer(compose.Composer):
    words = W
    headings = HEADINGS
    CODEX_HEADS = {
        "en": ["Objective", "Done so far", "Decisions", "Constraints & preferences", "Next steps", "References & data"],
        "zh": ["任务目标", "已完成", "决定", "约束与偏好", "下一步", "参考与数据"],
        "ko": ["목적", "지금까지 한 일", "결정 사항", "제약 및 선호", "다음 단계", "참고 자료"],
        "ja": ["目的", "完了したこと", "決定事項", "制約と好み", "次の手順", "参照とデータ"],
        "fr": ["Objectif", "Fait jusqu'ici", "Décisions", "Contraintes et préférences", "Prochaines étapes", "Références et données"],
        "pt": ["Objetivo", "Feito até agora", "Decisões", "Restrições e preferências", "Próximos passos", "Referências e dados"],
        "es": ["Objetivo", "Hecho hasta ahora", "Decisiones", "Restricciones y preferencias", "Próximos pasos", "Referencias y datos"],
        "de": ["Ziel", "Bisher erledigt", "Entscheidungen", "Vorgaben und Vorlieben", "Nächste Schritte", "Referenzen und Daten"],
    }

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
