"""The TUNE2 half's summary writer: the same formats as `compose.py` (Claude Code 2.1.332's nine
sections and three variants, Codex 0.169's handoff after its prefix), in other words.

Where the tune half's writer lists ("Ran `x` (exit 1).", "Asked: ..."), this one narrates the way
the summarizers tend to: first person, prose paragraphs in Primary Request, Problem Solving and
Current Work, each run told by its runner's own result line ("Tests run: 11, Failures: 1"),
edits shown with the code before and after, pending tasks in several list forms. Codex
handoffs come in three layouts of its own headings ("What's done", "Where things stand",
"Open items", "Gotchas", ...), some translated, some English over other-language prose.
Languages: en, zh, ja, ko, de, es, fr, pt, it.

As in `compose.py`, a step a claim speaks for is not narrated (the claim says it), and nothing
here decides a label.
"""

from __future__ import annotations

import hashlib
import re

import compose
from compose import _code, _lang_of, _short

EXT = {"kt": "kotlin", "kts": "kotlin", "java": "java", "rb": "ruby", "ex": "elixir", "exs": "elixir", "php": "php", "cs": "csharp", "csproj": "xml", "xml": "xml", "cpp": "cpp", "hpp": "cpp", "txt": "cmake", "yml": "yaml"}


def lang_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name in ("justfile", "Rakefile", "Makefile"):
        return {"justfile": "just", "Rakefile": "ruby", "Makefile": "make"}[name]
    if name == "CMakeLists.txt":
        return "cmake"
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return EXT.get(ext) or _lang_of(path)


HEADINGS = {
    "en": compose.HEADINGS["en"],
    "up_to": compose.HEADINGS["up_to"],
    "fr": ["Demande principale et intention", "Concepts techniques clés", "Fichiers et sections de code", "Erreurs et corrections", "Résolution de problèmes", "Tous les messages de l'utilisateur", "Tâches en attente", "Travail en cours", "Prochaine étape facultative"],
    "pt": ["Solicitação principal e intenção", "Conceitos técnicos principais", "Arquivos e trechos de código", "Erros e correções", "Resolução de problemas", "Todas as mensagens do usuário", "Tarefas pendentes", "Trabalho atual", "Próximo passo opcional"],
    "it": ["Richiesta principale e intento", "Concetti tecnici chiave", "File e sezioni di codice", "Errori e correzioni", "Risoluzione dei problemi", "Tutti i messaggi dell'utente", "Attività in sospeso", "Lavoro attuale", "Prossimo passo facoltativo"],
    "zh": ["主要需求与意图", "关键技术概念", "相关文件与代码", "错误与修复", "问题解决过程", "用户的全部消息", "待完成任务", "当前工作", "下一步（可选）"],
    "ja": ["主要なリクエストと意図", "重要な技術的概念", "ファイルとコード", "エラーと修正内容", "問題解決", "ユーザーメッセージ一覧", "未完了のタスク", "現在の作業", "次のステップ（任意）"],
    "ko": ["주요 요청과 의도", "주요 기술 개념", "파일 및 코드", "오류와 수정 사항", "문제 해결 과정", "사용자 메시지 전체", "남은 작업", "현재 진행 중인 작업", "다음 단계(선택)"],
    "de": ["Hauptanfrage und Ziel", "Zentrale technische Konzepte", "Dateien und Code", "Fehler und Behebungen", "Problemlösung", "Sämtliche Nachrichten des Nutzers", "Ausstehende Aufgaben", "Aktueller Stand der Arbeit", "Möglicher nächster Schritt"],
    "es": ["Petición principal e intención", "Conceptos técnicos clave", "Archivos y fragmentos de código", "Errores y soluciones", "Resolución de problemas", "Todos los mensajes del usuario", "Tareas pendientes", "Trabajo en curso", "Próximo paso opcional"],
}
UP_TO = {
    "fr": ["Travail terminé", "Contexte pour poursuivre le travail"],
    "pt": ["Trabalho concluído", "Contexto para continuar o trabalho"],
    "it": ["Lavoro completato", "Contesto per proseguire il lavoro"],
    "zh": ["已完成工作", "后续工作所需背景"],
    "ja": ["完了済みの作業", "作業継続のためのコンテキスト"],
    "ko": ["완료된 작업", "이어서 작업하기 위한 맥락"],
    "de": ["Erledigte Arbeit", "Kontext zum Weiterarbeiten"],
    "es": ["Trabajo realizado", "Contexto para seguir trabajando"],
}

W = {
    "en": {
        "req_lead": "This has been a long session; the requests below are in the order the user made them.",
        "earlier": "Before the current task the user asked: {q}",
        "main": "The current task: {q}",
        "follow": "Then: {q}",
        "stack": "Stack and tooling of the project being changed: {x}",
        "tools": "Claude Code tools the session relied on: {x}",
        "f_read": "Read before changing anything (no edits).",
        "f_edit": "Modified in this session. Before:",
        "f_after": "After:",
        "f_new": "Created in this session:",
        "f_fail": "An edit was attempted here and the tool refused it, so that attempt changed nothing.",
        "f_base": "Part of the earlier work in this session.",
        "e_base": "`{cmd}` exited {code}: {line}",
        "e_run": "`{cmd}` failed: {result}",
        "e_edit": "The edit of `{file}` was refused: {err}",
        "e_none": "Nothing went wrong that needed a fix.",
        "p_lead": "How the work went, step by step:",
        "p_earlier": "Earlier in the session these commands ran: {x}.",
        "n_run": "ran `{cmd}` ({result})",
        "n_edit": "changed `{file}`",
        "n_new": "created `{file}`",
        "n_read": "read `{file}`",
        "n_fail": "tried to edit `{file}` without success ({err})",
        "n_tasks": "updated the task list ({items})",
        "m_lead": "The user's messages, verbatim:",
        "pend_none": "None.",
        "cur_lead": "Right before this summary was requested, I",
        "then": ", then",
        "last": ", and finally",
        "end": ".",
        "next_quote": "The latest message from the user reads: “{q}”",
        "an_lead": "Going through the conversation in order, to make sure nothing is missed:",
        "an_user": "The user wrote: {q}",
        "an_me": "I {n}.",
        "recent": "(This summary covers the recent part of the conversation only; the earlier context was retained as is.)",
        "states": {"pending": "not started", "in_progress": "in progress", "completed": "done"},
        "exit": "exit {code}",
    },
    "fr": {
        "req_lead": "La session est longue ; voici les demandes de l'utilisateur, dans l'ordre.",
        "earlier": "Avant la tâche actuelle, l'utilisateur a demandé : {q}",
        "main": "La tâche en cours : {q}",
        "follow": "Ensuite : {q}",
        "stack": "Pile technique du projet modifié : {x}",
        "tools": "Outils de Claude Code utilisés pendant la session : {x}",
        "f_read": "Lu avant toute modification (aucune édition).",
        "f_edit": "Modifié pendant la session. Avant :",
        "f_after": "Après :",
        "f_new": "Créé pendant la session :",
        "f_fail": "Une édition a été tentée ici et l'outil l'a refusée ; cette tentative n'a rien changé.",
        "f_base": "Fait partie du travail précédent de la session.",
        "e_base": "`{cmd}` a renvoyé {code} : {line}",
        "e_run": "`{cmd}` a échoué : {result}",
        "e_edit": "L'édition de `{file}` a été refusée : {err}",
        "e_none": "Aucune erreur n'a nécessité de correction.",
        "p_lead": "Déroulement du travail, étape par étape :",
        "p_earlier": "Plus tôt dans la session, ces commandes ont tourné : {x}.",
        "n_run": "lancé `{cmd}` ({result})",
        "n_edit": "modifié `{file}`",
        "n_new": "créé `{file}`",
        "n_read": "lu `{file}`",
        "n_fail": "tenté de modifier `{file}`, sans succès ({err})",
        "n_tasks": "mis à jour la liste des tâches ({items})",
        "m_lead": "Les messages de l'utilisateur, mot pour mot :",
        "pend_none": "Aucune.",
        "cur_lead": "Juste avant la demande de résumé, j'ai",
        "then": ", puis",
        "last": ", et enfin",
        "end": ".",
        "next_quote": "Dernier message de l'utilisateur : « {q} »",
        "an_lead": "Je reprends la conversation dans l'ordre pour ne rien oublier :",
        "an_user": "L'utilisateur a écrit : {q}",
        "an_me": "J'ai {n}.",
        "recent": "(Ce résumé ne couvre que la partie récente de la conversation ; le contexte antérieur a été conservé tel quel.)",
        "states": {"pending": "pas commencée", "in_progress": "en cours", "completed": "faite"},
        "exit": "code {code}",
    },
    "pt": {
        "req_lead": "A sessão é longa; os pedidos do usuário, na ordem em que vieram:",
        "earlier": "Antes da tarefa atual, o usuário pediu: {q}",
        "main": "A tarefa atual: {q}",
        "follow": "Depois: {q}",
        "stack": "Stack e ferramentas do projeto em questão: {x}",
        "tools": "Ferramentas do Claude Code usadas na sessão: {x}",
        "f_read": "Lido antes de qualquer alteração (sem edições).",
        "f_edit": "Alterado nesta sessão. Antes:",
        "f_after": "Depois:",
        "f_new": "Criado nesta sessão:",
        "f_fail": "Houve uma tentativa de edição aqui que a ferramenta recusou; essa tentativa não mudou nada.",
        "f_base": "Parte do trabalho anterior desta sessão.",
        "e_base": "`{cmd}` saiu com {code}: {line}",
        "e_run": "`{cmd}` falhou: {result}",
        "e_edit": "A edição de `{file}` foi recusada: {err}",
        "e_none": "Nenhum erro precisou de correção.",
        "p_lead": "Como o trabalho andou, passo a passo:",
        "p_earlier": "Antes, na mesma sessão, rodaram estes comandos: {x}.",
        "n_run": "rodei `{cmd}` ({result})",
        "n_edit": "alterei `{file}`",
        "n_new": "criei `{file}`",
        "n_read": "li `{file}`",
        "n_fail": "tentei editar `{file}`, sem sucesso ({err})",
        "n_tasks": "atualizei a lista de tarefas ({items})",
        "m_lead": "As mensagens do usuário, literalmente:",
        "pend_none": "Nenhuma.",
        "cur_lead": "Logo antes do pedido de resumo, eu",
        "then": ", depois",
        "last": " e, por fim,",
        "end": ".",
        "next_quote": "A mensagem mais recente do usuário: “{q}”",
        "an_lead": "Revendo a conversa em ordem para não deixar nada de fora:",
        "an_user": "O usuário escreveu: {q}",
        "an_me": "Eu {n}.",
        "recent": "(Este resumo cobre só a parte recente da conversa; o contexto anterior foi mantido como estava.)",
        "states": {"pending": "não iniciada", "in_progress": "em andamento", "completed": "feita"},
        "exit": "código {code}",
    },
    "it": {
        "req_lead": "La sessione è lunga; ecco le richieste dell'utente, nell'ordine in cui sono arrivate.",
        "earlier": "Prima del compito attuale l'utente ha chiesto: {q}",
        "main": "Il compito attuale: {q}",
        "follow": "Poi: {q}",
        "stack": "Stack e strumenti del progetto in lavorazione: {x}",
        "tools": "Strumenti di Claude Code usati nella sessione: {x}",
        "f_read": "Letto prima di qualsiasi modifica (nessuna modifica).",
        "f_edit": "Modificato in questa sessione. Prima:",
        "f_after": "Dopo:",
        "f_new": "Creato in questa sessione:",
        "f_fail": "Qui è stata tentata una modifica che lo strumento ha rifiutato; quel tentativo non ha cambiato nulla.",
        "f_base": "Parte del lavoro precedente della sessione.",
        "e_base": "`{cmd}` è uscito con {code}: {line}",
        "e_run": "`{cmd}` è fallito: {result}",
        "e_edit": "La modifica di `{file}` è stata rifiutata: {err}",
        "e_none": "Nessun errore da correggere.",
        "p_lead": "Come è andato il lavoro, passo per passo:",
        "p_earlier": "In precedenza nella sessione sono stati eseguiti: {x}.",
        "n_run": "eseguito `{cmd}` ({result})",
        "n_edit": "modificato `{file}`",
        "n_new": "creato `{file}`",
        "n_read": "letto `{file}`",
        "n_fail": "provato a modificare `{file}`, senza successo ({err})",
        "n_tasks": "aggiornato la lista delle attività ({items})",
        "m_lead": "I messaggi dell'utente, testualmente:",
        "pend_none": "Nessuna.",
        "cur_lead": "Subito prima della richiesta di riassunto ho",
        "then": ", poi",
        "last": " e infine",
        "end": ".",
        "next_quote": "L'ultimo messaggio dell'utente: «{q}»",
        "an_lead": "Ripercorro la conversazione in ordine per non tralasciare nulla:",
        "an_user": "L'utente ha scritto: {q}",
        "an_me": "Ho {n}.",
        "recent": "(Questo riassunto copre solo la parte recente della conversazione; il contesto precedente è stato mantenuto così com'era.)",
        "states": {"pending": "da iniziare", "in_progress": "in corso", "completed": "fatta"},
        "exit": "codice {code}",
    },
    "de": {
        "req_lead": "Die Sitzung läuft schon lange; die Anliegen des Nutzers in der Reihenfolge, in der sie kamen:",
        "earlier": "Vor der aktuellen Aufgabe bat der Nutzer: {q}",
        "main": "Aktuelle Aufgabe: {q}",
        "follow": "Danach: {q}",
        "stack": "Technik und Werkzeuge des Projekts: {x}",
        "tools": "In der Sitzung genutzte Claude-Code-Werkzeuge: {x}",
        "f_read": "Vor den Änderungen gelesen (nicht bearbeitet).",
        "f_edit": "In dieser Sitzung geändert. Vorher:",
        "f_after": "Nachher:",
        "f_new": "In dieser Sitzung neu angelegt:",
        "f_fail": "Hier wurde eine Bearbeitung versucht, die das Werkzeug abgelehnt hat; dieser Versuch hat nichts geändert.",
        "f_base": "Gehört zur früheren Arbeit dieser Sitzung.",
        "e_base": "`{cmd}` endete mit {code}: {line}",
        "e_run": "`{cmd}` schlug fehl: {result}",
        "e_edit": "Die Bearbeitung von `{file}` wurde abgelehnt: {err}",
        "e_none": "Es gab keine Fehler, die behoben werden mussten.",
        "p_lead": "So lief die Arbeit, Schritt für Schritt:",
        "p_earlier": "Früher in der Sitzung liefen diese Befehle: {x}.",
        "n_run": "`{cmd}` ausgeführt ({result})",
        "n_edit": "`{file}` geändert",
        "n_new": "`{file}` angelegt",
        "n_read": "`{file}` gelesen",
        "n_fail": "versucht, `{file}` zu bearbeiten, ohne Erfolg ({err})",
        "n_tasks": "die Aufgabenliste aktualisiert ({items})",
        "m_lead": "Die Nachrichten des Nutzers im Wortlaut:",
        "pend_none": "Keine.",
        "cur_lead": "Direkt vor der Anforderung dieser Zusammenfassung habe ich",
        "then": ", danach",
        "last": " und zuletzt",
        "end": ".",
        "next_quote": "Die letzte Nachricht des Nutzers: „{q}“",
        "an_lead": "Ich gehe die Unterhaltung der Reihe nach durch, damit nichts fehlt:",
        "an_user": "Der Nutzer schrieb: {q}",
        "an_me": "Ich habe {n}.",
        "recent": "(Diese Zusammenfassung deckt nur den jüngeren Teil der Unterhaltung ab; der frühere Kontext wurde unverändert beibehalten.)",
        "states": {"pending": "nicht begonnen", "in_progress": "in Arbeit", "completed": "erledigt"},
        "exit": "Exit-Code {code}",
    },
    "es": {
        "req_lead": "La sesión es larga; estas son las peticiones del usuario, en orden.",
        "earlier": "Antes de la tarea actual el usuario pidió: {q}",
        "main": "La tarea actual: {q}",
        "follow": "Después: {q}",
        "stack": "Tecnologías y herramientas del proyecto: {x}",
        "tools": "Herramientas de Claude Code usadas en la sesión: {x}",
        "f_read": "Leído antes de cambiar nada (sin ediciones).",
        "f_edit": "Modificado en esta sesión. Antes:",
        "f_after": "Después:",
        "f_new": "Creado en esta sesión:",
        "f_fail": "Aquí se intentó una edición que la herramienta rechazó; ese intento no cambió nada.",
        "f_base": "Parte del trabajo anterior de la sesión.",
        "e_base": "`{cmd}` terminó con {code}: {line}",
        "e_run": "`{cmd}` falló: {result}",
        "e_edit": "Se rechazó la edición de `{file}`: {err}",
        "e_none": "No hubo errores que corregir.",
        "p_lead": "Cómo fue el trabajo, paso a paso:",
        "p_earlier": "Antes en la sesión se ejecutaron: {x}.",
        "n_run": "ejecuté `{cmd}` ({result})",
        "n_edit": "modifiqué `{file}`",
        "n_new": "creé `{file}`",
        "n_read": "leí `{file}`",
        "n_fail": "intenté editar `{file}`, sin éxito ({err})",
        "n_tasks": "actualicé la lista de tareas ({items})",
        "m_lead": "Los mensajes del usuario, literales:",
        "pend_none": "Ninguna.",
        "cur_lead": "Justo antes de pedirse este resumen,",
        "then": "; después",
        "last": " y por último",
        "end": ".",
        "next_quote": "El último mensaje del usuario dice: «{q}»",
        "an_lead": "Repaso la conversación en orden para no dejar nada fuera:",
        "an_user": "El usuario escribió: {q}",
        "an_me": "Yo {n}.",
        "recent": "(Este resumen cubre solo la parte reciente de la conversación; el contexto anterior se conservó tal cual.)",
        "states": {"pending": "sin empezar", "in_progress": "en curso", "completed": "hecha"},
        "exit": "código {code}",
    },
    "zh": {
        "req_lead": "这是一次较长的会话，以下按时间顺序列出用户的需求。",
        "earlier": "在当前任务之前，用户曾要求：{q}",
        "main": "当前任务：{q}",
        "follow": "随后：{q}",
        "stack": "所修改项目的技术栈与工具：{x}",
        "tools": "本次会话用到的 Claude Code 工具：{x}",
        "f_read": "修改前阅读过（未编辑）。",
        "f_edit": "本次会话中修改过。修改前：",
        "f_after": "修改后：",
        "f_new": "本次会话中新建：",
        "f_fail": "曾尝试编辑此文件，但被工具拒绝，这次尝试没有改动任何内容。",
        "f_base": "属于本次会话早先的工作。",
        "e_base": "`{cmd}` 退出码 {code}：{line}",
        "e_run": "`{cmd}` 失败：{result}",
        "e_edit": "编辑 `{file}` 被拒绝：{err}",
        "e_none": "没有需要修复的错误。",
        "p_lead": "工作过程（按步骤）：",
        "p_earlier": "会话早些时候运行过这些命令：{x}。",
        "n_run": "运行了 `{cmd}`（{result}）",
        "n_edit": "修改了 `{file}`",
        "n_new": "新建了 `{file}`",
        "n_read": "阅读了 `{file}`",
        "n_fail": "尝试编辑 `{file}` 但未成功（{err}）",
        "n_tasks": "更新了任务列表（{items}）",
        "m_lead": "用户消息原文：",
        "pend_none": "无。",
        "cur_lead": "在请求生成摘要之前，我",
        "then": "，然后",
        "last": "，最后",
        "end": "。",
        "next_quote": "用户最新的一条消息：“{q}”",
        "an_lead": "按顺序回顾整个对话，确保没有遗漏：",
        "an_user": "用户写道：{q}",
        "an_me": "我{n}。",
        "recent": "（本摘要只涵盖对话的近期部分；更早的上下文按原样保留。）",
        "states": {"pending": "未开始", "in_progress": "进行中", "completed": "已完成"},
        "exit": "退出码 {code}",
    },
    "ja": {
        "req_lead": "長いセッションなので、ユーザーの依頼を出てきた順に並べる。",
        "earlier": "現在のタスクの前に、ユーザーはこう依頼していた：{q}",
        "main": "現在のタスク：{q}",
        "follow": "その後：{q}",
        "stack": "対象プロジェクトの技術スタックとツール：{x}",
        "tools": "セッションで使った Claude Code のツール：{x}",
        "f_read": "変更前に読んだだけ（編集なし）。",
        "f_edit": "このセッションで変更。変更前：",
        "f_after": "変更後：",
        "f_new": "このセッションで新規作成：",
        "f_fail": "ここで編集を試みたがツールに拒否されたため、その試みでは何も変わっていない。",
        "f_base": "セッション前半の作業の一部。",
        "e_base": "`{cmd}` が終了コード {code} で終了：{line}",
        "e_run": "`{cmd}` が失敗：{result}",
        "e_edit": "`{file}` の編集が拒否された：{err}",
        "e_none": "修正が必要なエラーはなかった。",
        "p_lead": "作業の流れ（順番に）：",
        "p_earlier": "セッションの前半で実行したコマンド：{x}。",
        "n_run": "`{cmd}` を実行した（{result}）",
        "n_edit": "`{file}` を変更した",
        "n_new": "`{file}` を作成した",
        "n_read": "`{file}` を読んだ",
        "n_fail": "`{file}` の編集を試みたが失敗した（{err}）",
        "n_tasks": "タスクリストを更新した（{items}）",
        "m_lead": "ユーザーのメッセージ（原文のまま）：",
        "pend_none": "なし。",
        "cur_lead": "要約を求められる直前に、",
        "then": "、次に",
        "last": "、最後に",
        "end": "。",
        "next_quote": "ユーザーの最新のメッセージ：「{q}」",
        "an_lead": "漏れがないよう、会話を順に振り返る：",
        "an_user": "ユーザー：{q}",
        "an_me": "{n}。",
        "recent": "（この要約は会話の最近の部分のみを対象とし、それ以前の文脈はそのまま保持されている。）",
        "states": {"pending": "未着手", "in_progress": "対応中", "completed": "完了"},
        "exit": "終了コード {code}",
    },
    "ko": {
        "req_lead": "긴 세션이라 사용자의 요청을 들어온 순서대로 정리한다.",
        "earlier": "현재 작업 이전에 사용자가 요청한 것: {q}",
        "main": "현재 작업: {q}",
        "follow": "이어서: {q}",
        "stack": "작업 중인 프로젝트의 기술 스택과 도구: {x}",
        "tools": "세션에서 사용한 Claude Code 도구: {x}",
        "f_read": "변경 전에 읽기만 함(편집 없음).",
        "f_edit": "이번 세션에서 수정. 변경 전:",
        "f_after": "변경 후:",
        "f_new": "이번 세션에서 새로 만듦:",
        "f_fail": "여기서 편집을 시도했지만 도구가 거부해서 그 시도로 바뀐 것은 없다.",
        "f_base": "세션 앞부분 작업의 일부.",
        "e_base": "`{cmd}` 종료 코드 {code}: {line}",
        "e_run": "`{cmd}` 실패: {result}",
        "e_edit": "`{file}` 편집이 거부됨: {err}",
        "e_none": "고쳐야 할 오류는 없었다.",
        "p_lead": "작업 진행(순서대로):",
        "p_earlier": "세션 앞부분에서 실행한 명령: {x}.",
        "n_run": "`{cmd}` 실행({result})",
        "n_edit": "`{file}` 수정",
        "n_new": "`{file}` 생성",
        "n_read": "`{file}` 읽음",
        "n_fail": "`{file}` 편집을 시도했으나 실패({err})",
        "n_tasks": "작업 목록 갱신({items})",
        "m_lead": "사용자 메시지 원문:",
        "pend_none": "없음.",
        "cur_lead": "요약 요청 직전의 작업:",
        "then": ",",
        "last": ", 마지막으로",
        "end": ".",
        "next_quote": "사용자의 가장 최근 메시지: \"{q}\"",
        "an_lead": "빠뜨리는 것이 없도록 대화를 순서대로 되짚는다:",
        "an_user": "사용자: {q}",
        "an_me": "{n}.",
        "recent": "(이 요약은 대화의 최근 부분만 다루며, 이전 맥락은 그대로 유지되었다.)",
        "states": {"pending": "시작 전", "in_progress": "진행 중", "completed": "완료"},
        "exit": "종료 코드 {code}",
    },
}

# Codex handoff layouts: headings for (goal, done, state, open, gotchas, refs).
CODEX_LAYOUTS = {
    "handoff": {
        "en": ["Goal", "What's done", "Where things stand", "Open items", "Gotchas", "Key files & commands"],
        "fr": ["Objectif", "Ce qui est fait", "Où on en est", "Points ouverts", "Pièges", "Fichiers et commandes clés"],
        "pt": ["Objetivo", "O que já foi feito", "Onde as coisas estão", "Itens em aberto", "Cuidados", "Arquivos e comandos principais"],
        "it": ["Obiettivo", "Cosa è fatto", "A che punto siamo", "Punti aperti", "Attenzione a", "File e comandi chiave"],
        "de": ["Ziel", "Was erledigt ist", "Wo wir stehen", "Offene Punkte", "Stolperfallen", "Wichtige Dateien und Befehle"],
        "es": ["Objetivo", "Qué está hecho", "Dónde estamos", "Puntos abiertos", "Ojo con", "Archivos y comandos clave"],
        "zh": ["目标", "已完成", "当前状态", "未完成事项", "注意事项", "关键文件与命令"],
        "ja": ["ゴール", "完了したこと", "現状", "未解決の項目", "注意点", "主要なファイルとコマンド"],
        "ko": ["목표", "완료한 것", "현재 상황", "남은 항목", "주의할 점", "주요 파일과 명령"],
    },
    "brief": {
        "en": ["Objective", "Progress", "Current state", "Next steps", "Constraints & notes", "References"],
        "fr": ["Objectif", "Avancement", "État actuel", "Prochaines étapes", "Contraintes et remarques", "Références"],
        "pt": ["Objetivo", "Progresso", "Estado atual", "Próximos passos", "Restrições e observações", "Referências"],
        "it": ["Obiettivo", "Avanzamento", "Stato attuale", "Prossimi passi", "Vincoli e note", "Riferimenti"],
        "de": ["Auftrag", "Fortschritt", "Aktueller Stand", "Nächste Schritte", "Vorgaben und Hinweise", "Referenzen"],
        "es": ["Objetivo", "Avance", "Estado actual", "Siguientes pasos", "Restricciones y notas", "Referencias"],
        "zh": ["任务目标", "进展", "当前状态", "下一步", "约束与说明", "参考"],
        "ja": ["目的", "進捗", "現在の状態", "次のステップ", "制約とメモ", "参考情報"],
        "ko": ["목적", "진행 상황", "현재 상태", "다음 단계", "제약과 메모", "참고"],
    },
    # English headings whatever the prose's language.
    "plain": {"en": ["Task", "Done so far", "Status", "Remaining", "Watch out for", "Files"]},
}
CODEX_SLOT = {"request": 0, "messages": 0, "problem": 1, "analysis": 1, "files": 5, "current": 2, "errors": 2, "pending": 3, "next": 3, "concepts": 4}

CX = {
    "en": {"asked_before": "Earlier asks in this thread: {x}", "none_open": "Nothing else is queued.", "then_next": "Pick up from the last user message: “{q}”"},
    "fr": {"asked_before": "Demandes précédentes dans ce fil : {x}", "none_open": "Rien d'autre en file.", "then_next": "Reprendre à partir du dernier message : « {q} »"},
    "pt": {"asked_before": "Pedidos anteriores nesta conversa: {x}", "none_open": "Nada mais na fila.", "then_next": "Retomar a partir da última mensagem: “{q}”"},
    "it": {"asked_before": "Richieste precedenti in questo thread: {x}", "none_open": "Nient'altro in coda.", "then_next": "Riprendere dall'ultimo messaggio: «{q}»"},
    "de": {"asked_before": "Frühere Anliegen in diesem Verlauf: {x}", "none_open": "Sonst steht nichts an.", "then_next": "Weiter ab der letzten Nachricht: „{q}“"},
    "es": {"asked_before": "Peticiones anteriores en este hilo: {x}", "none_open": "No hay nada más en cola.", "then_next": "Retomar desde el último mensaje: «{q}»"},
    "zh": {"asked_before": "此前在本会话中的请求：{x}", "none_open": "没有其他排队的事项。", "then_next": "从用户最后一条消息继续：“{q}”"},
    "ja": {"asked_before": "このスレッドでの以前の依頼：{x}", "none_open": "ほかに待ちの項目はない。", "then_next": "ユーザーの最後のメッセージから再開：「{q}」"},
    "ko": {"asked_before": "이 스레드의 이전 요청: {x}", "none_open": "대기 중인 다른 항목은 없다.", "then_next": "사용자의 마지막 메시지부터 이어서: \"{q}\""},
}

READ_TAG = {"en": "read, not changed", "fr": "lu, pas modifié", "pt": "lido, sem alteração", "it": "letto, non modificato", "de": "gelesen, nicht geändert", "es": "leído, sin cambios", "zh": "只读，未修改", "ja": "参照のみ", "ko": "읽기만 함"}

RESULT_PATTERNS = [
    r"^\d+ failed, \d+ passed in [\d.]+s$",
    r"^\d+ passed in [\d.]+s$",
    r"Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+$",
    r"^\d+ tests completed, \d+ failed$",
    r"^BUILD (?:SUCCESSFUL|FAILED) in \S+$",
    r"^\d+ runs, \d+ assertions, \d+ failures, \d+ errors, \d+ skips$",
    r"^\d+ examples?, \d+ failures?$",
    r"\d+ tests run: .*$",
    r"^\d+% tests passed, \d+ tests failed out of \d+$",
    r"^\d+ tests?, \d+ failures?$",
    r"^OK \(\d+ tests?, \d+ assertions?\)$",
    r"^Tests: \d+, Assertions: \d+, Failures: \d+\.$",
    r"^(?:Passed|Failed)!  - Failed: .*?Total: +\d+",
    r"^Ran \d+ tests? across \d+ files?\.",
    r"^FAILED \(failures=\d+\)$",
    r"Tests  .*\(\d+\)$",
    r"^nothing to commit, working tree clean$",
    r"^\[[\w./-]+ [0-9a-f]{7}\] .*$",
    r"^ ! \[(?:remote )?rejected\].*$",
]


def result_of(output: str, code: int, w: dict) -> str:
    """The runner's own result line, as a summary quotes it."""
    lines = [l.strip() for l in (output or "").split("\n") if l.strip()]
    for pat in RESULT_PATTERNS:
        for l in reversed(lines):
            m = re.search(pat, l)
            if m:
                got = m.group(0).strip()
                if pat.startswith("^Ran") and code != 0:
                    return f"{got} {w['exit'].format(code=code)}"
                if "Total:" in pat:
                    return re.sub(r" {2,}", " ", got)
                if pat.startswith("^\\d+ failed") or pat.startswith("^FAILED"):
                    return got
                return got if code == 0 or re.search(r"fail|FAIL|rejected", got) else f"{got}; {w['exit'].format(code=code)}"
    if re.search(r"^(ok|FAIL)\s+\S+", output or "", re.M) and ("go test" in output or "\t" in (output or "")):
        fails = re.findall(r"^--- FAIL: (\S+)", output or "", re.M)
        return ("FAIL: " + ", ".join(fails)) if fails else "ok"
    first = lines[0] if lines else ""
    if code == 0:
        return _short(lines[-1], 90) if lines else w["exit"].format(code=0)
    return w["exit"].format(code=code) + (f": {_short(first, 90)}" if first else "")


def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16)


class Composer(compose.Composer):
    """The TUNE2 half's writer (see the module's doc)."""

    words = W
    headings = HEADINGS

    def __init__(self, case, base_events, full, base_extra):
        super().__init__(case, base_events, full, base_extra)
        self.w = W.get(self.lang, W["en"])
        self.seed = _h(case.get("id", ""))
        self.exact_cmds = [n for c in self.claims if c["kind"] in ("tests_pass",) and c.get("exact") for n in c["cmd"]]
        self.loose_cmds = [n for c in self.claims if c["kind"] in ("tests_pass",) and not c.get("exact") for n in c["cmd"]]

    # ---- what a claim speaks for
    def _run_suppressed(self, cmd: str) -> bool:
        c = cmd.strip()
        if any(c == n.strip() for n in self.exact_cmds) or any(n in cmd for n in self.loose_cmds):
            return True
        return any(("git " + g) in cmd for g in self.suppress_git)

    def _file_claimed(self, path: str) -> bool:
        return any(path.endswith(f) or f.endswith(path) for f in self.suppress_files)

    def narrate_step(self, st) -> str | None:
        w = self.w
        k = st[0]
        if k == "run":
            cmd, code, out = st[1], st[2], st[3] if isinstance(st[3], str) else ""
            if self._run_suppressed(cmd):
                return None
            return w["n_run"].format(cmd=_short(cmd, 110), result=result_of(out, code, w))
        if k == "edit":
            return w["n_edit"].format(file=st[1])
        if k == "write":
            return w["n_new"].format(file=st[1])
        if k == "edit_fail":
            if self._file_claimed(st[1]):
                return None
            return w["n_fail"].format(file=st[1], err=_short(st[4], 100))
        if k == "read":
            return w["n_read"].format(file=st[1])
        if k == "tasks":
            items = [(n, s) for n, s in st[1] if not (n in self.suppress_tasks)]
            if not items or self.all_done_claimed:
                return None
            return w["n_tasks"].format(items="; ".join(f"{n}: {w['states'].get(s, s)}" for n, s in items))
        return None

    def work_lines(self, reads: bool = True, tasks: bool = True) -> list[str]:
        out = []
        for st in self.steps:
            if (st[0] == "read" and not reads) or (st[0] == "tasks" and not tasks):
                continue
            n = self.narrate_step(st)
            if n:
                out.append(n)
        return out

    # ---- pieces
    def step_prompts(self) -> list[str]:
        ps = [s[1] for s in self.steps if s[0] == "prompt"]
        if ps and self.case.get("latest_as"):
            ps[-1] = self.case["latest_as"]
        return ps

    def base_prompts(self) -> list[str]:
        return [e["text"] for e in self.base if e["k"] == "prompt"]

    def pending_items(self) -> list[str]:
        w = self.w
        if self.shape.get("pending_list") is False:
            return []  # the case places its own rendering of the open tasks
        items = self.open_tasks_for_summary()
        form = self.shape.get("pending_form", self.seed % 4)
        out = []
        for i, (n, s) in enumerate(items, 1):
            st = w["states"].get(s, s)
            if form == 0:
                out.append(f"- {n} ({st})")
            elif form == 1:
                out.append(f"- {st[:1].upper() + st[1:]}: {n}")
            elif form == 2:
                out.append(f"{i}. {n} — {st}")
            else:
                out.append(f"- **{n}** — {st}")
        return out

    def _block(self, text: str, bullet: str = "- ") -> str:
        """A placed sentence: a table, a list or a multi-line quote goes as a block; a sentence
        as a bullet."""
        t = text.strip("\n")
        if t.startswith(("|", "```", ">", "1.", "- ", "* ", "☐", "☑", "**")) or "\n" in t:
            return t
        return bullet + t

    # ---- Claude Code sections
    def sec_request(self) -> str:
        w = self.w
        out = [w["req_lead"]]
        for p in self.base_prompts()[-4:]:
            out.append("- " + w["earlier"].format(q=_short(p, 200)))
        sp = self.step_prompts()
        if sp:
            out.append("- " + w["main"].format(q=_short(sp[0], 320)))
            for p in sp[1:]:
                out.append("- " + w["follow"].format(q=_short(p, 260)))
        for t in self.case.get("request", []):
            out.append("- " + t)
        for t in self.placed("request"):
            out.append(self._block(t))
        return "\n".join(out)

    def sec_concepts(self) -> str:
        w = self.w
        items = [f"- {c}" for c in self.case.get("concepts", [])]
        stack = self.case.get("stack")
        if stack:
            items.append("- " + w["stack"].format(x=stack))
        tools = sorted({e.get("name") for e in self.base if e["k"] == "tool" and e.get("name")} - {None})
        if tools:
            items.append("- " + w["tools"].format(x=", ".join(tools[:8])))
        items += [self._block(t) for t in self.placed("concepts")]
        return "\n".join(items) if items else "- " + w["pend_none"]

    def sec_files(self, budget: int) -> str:
        w = self.w
        lines_max = self.shape.get("code_lines", 40)
        out = []
        seen = set()
        for st in reversed(self.steps):
            kind, path = st[0], st[1] if len(st) > 1 else ""
            if kind not in ("edit", "write", "edit_fail", "read") or path in seen:
                continue
            seen.add(path)
            fence = lang_of(path)
            if kind == "edit":
                out.append(f"- `{path}`\n  - {w['f_edit']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```\n  - {w['f_after']}\n  ```{fence}\n{_code(st[3], lines_max)}\n  ```")
            elif kind == "write":
                out.append(f"- `{path}`\n  - {w['f_new']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```")
            elif kind == "edit_fail":
                if self._file_claimed(path):
                    continue
                out.append(f"- `{path}`\n  - {w['f_fail']}")
            else:
                out.append(f"- `{path}`\n  - {w['f_read']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```")
        out += [self._block(t) for t in self.placed("files")]
        used = sum(len(x) for x in out)
        for path, code, kind in self.base_files():
            if used > budget:
                break
            if path in seen:
                continue
            block = f"- `{path}`\n  - {w['f_read'] if kind == 'read' else w['f_base']}\n  ```{lang_of(path)}\n{_code(code, lines_max)}\n  ```"
            out.append(block)
            used += len(block)
        return "\n".join(out) if out else "- " + w["pend_none"]

    def sec_errors(self) -> str:
        w = self.w
        out = []
        for e in self.base:
            if e["k"] == "run" and e.get("exit") not in (0, None):
                first = next((l for l in (e.get("output") or "").split("\n") if l.strip() and not l.startswith("Exit code")), "")
                if first:
                    out.append("- " + w["e_base"].format(cmd=_short(e["cmd"], 80), code=e["exit"], line=_short(first, 120)))
            if len(out) >= 3:
                break
        for st in self.steps:
            if st[0] == "run" and st[2] != 0 and not self._run_suppressed(st[1]):
                out.append("- " + w["e_run"].format(cmd=_short(st[1], 110), result=result_of(st[3] if isinstance(st[3], str) else "", st[2], w)))
            elif st[0] == "edit_fail" and not self._file_claimed(st[1]):
                out.append("- " + w["e_edit"].format(file=st[1], err=_short(st[4], 120)))
        out += [self._block(t) for t in self.placed("errors")]
        return "\n".join(out) if out else w["e_none"]

    def sec_problem(self) -> str:
        w = self.w
        out = []
        runs = [e for e in self.base if e["k"] == "run"][-3:]
        if runs:
            out.append(w["p_earlier"].format(x=", ".join(f"`{_short(e['cmd'], 70)}`" for e in runs)))
        work = self.work_lines(reads=False)
        if work:
            out.append(w["p_lead"])
            out += [f"{i}. {l[:1].upper() + l[1:]}" if self.lang in ("en", "fr", "pt", "it", "de", "es") else f"{i}. {l}" for i, l in enumerate(work, 1)]
        placed = self.placed("problem")
        prose = [t for t in placed if "\n" not in t and not t.startswith(("|", "-", "*", "1."))]
        blocks = [t for t in placed if t not in prose]
        if prose:
            out.append(" ".join(prose))
        out += [self._block(t) for t in blocks]
        return "\n".join(out) if out else w["e_none"]

    def sec_messages(self) -> str:
        out = [self.w["m_lead"]]
        for p in self.base_prompts() + self.step_prompts():
            out.append(f'- "{self.quoted_prompt(p)}"')
        out += [self._block(t) for t in self.placed("messages")]
        return "\n".join(out)

    def sec_pending(self) -> str:
        items = self.pending_items()
        items += [self._block(t) for t in self.placed("pending")]
        return "\n".join(items) if items else self.w["pend_none"]

    def sec_current(self) -> str:
        w = self.w
        work = self.work_lines(reads=False, tasks=False)[-3:] or self.work_lines(reads=False)[-1:]
        out = []
        if work:
            if len(work) == 1:
                s = f"{w['cur_lead']} {work[0]}{w['end']}"
            elif len(work) == 2:
                s = f"{w['cur_lead']} {work[0]}{w['last']} {work[1]}{w['end']}"
            else:
                s = f"{w['cur_lead']} {work[0]}{w['then']} {work[1]}{w['last']} {work[2]}{w['end']}"
            if self.lang in ("zh", "ja"):
                s = s.replace(" ", "", 1) if s.startswith(w["cur_lead"] + " ") else s
            out.append(s)
        placed = self.placed("current")
        prose = [t for t in placed if "\n" not in t and not t.startswith(("|", "-", "*", "1.", "☐"))]
        blocks = [t for t in placed if t not in prose]
        if prose:
            if out:
                out[-1] += " " + " ".join(prose)
            else:
                out.append(" ".join(prose))
        out += [self._block(t) for t in blocks]
        return "\n".join(out) if out else w["pend_none"]

    def sec_next(self) -> str:
        out = [self._block(t, "") for t in self.placed("next")]
        ps = self.base_prompts() + self.step_prompts()
        if ps and self.shape.get("next_quote", True):
            out.append(self.w["next_quote"].format(q=self.quoted_prompt(ps[-1]).replace("\n     ", " ")))
        return "\n".join(out) if out else self.w["pend_none"]

    def analysis(self) -> str:
        w = self.w
        out = [w["an_lead"]]
        n = 1
        for p in self.base_prompts()[-3:] + self.step_prompts():
            out.append(f"{n}. " + w["an_user"].format(q=_short(p, 150)))
            n += 1
        for l in self.work_lines(reads=True):
            out.append(f"{n}. " + w["an_me"].format(n=l))
            n += 1
        for t in self.placed("analysis"):
            out.append(f"{n}. {t}")
            n += 1
        return "\n".join(out)

    def heading(self, i: int, name: str) -> str:
        style = self.shape.get("headings", "numbered")
        if style == "h3":
            return f"### {i}. {name}"
        return super().heading(i, name)

    def indent(self, body: str) -> str:
        if self.shape.get("headings", "numbered") in ("numbered", "plain"):
            return "\n".join(("   " + l) if l else l for l in body.split("\n"))
        return body

    def claude(self, files_budget: int = 6000) -> str:
        variant = self.shape.get("variant", "full")
        names = HEADINGS["up_to"] if variant == "up_to" else HEADINGS["en"]
        if self.shape.get("translated_headings") and self.lang in HEADINGS and self.lang != "en":
            names = HEADINGS[self.lang]
            if variant == "up_to":
                names = names[:7] + UP_TO[self.lang]
        bodies = [self.sec_request(), self.sec_concepts(), self.sec_files(files_budget), self.sec_errors(), self.sec_problem(), self.sec_messages(), self.sec_pending(), self.sec_current(), self.sec_next()]
        if variant == "recent":
            bodies[0] = self.w["recent"] + "\n" + bodies[0]
        summary = "\n\n".join(self.heading(i, n) + "\n" + self.indent(b) for i, (n, b) in enumerate(zip(names, bodies), 1))
        wrap = self.shape.get("wrap", "tags")
        if wrap == "tags":
            return f"<analysis>\n{self.analysis()}\n</analysis>\n\n<summary>\n{summary}\n</summary>"
        if wrap == "summary_only":
            return f"<summary>\n{summary}\n</summary>"
        if wrap == "prefix":
            return "Summary:\n" + summary
        return summary

    # ---- Codex handoff
    def codex(self) -> str:
        for code_lines in (24, 14, 8, 0):
            for prompt_len in (300, 180, 100):
                s = self._codex(code_lines, prompt_len)
                if len(s.encode()) <= 8800:
                    return s
        return s

    def _codex(self, code_lines: int, prompt_len: int) -> str:
        w = self.w
        cx = CX.get(self.lang, CX["en"])
        layout = self.shape.get("codex_layout", "handoff")
        heads_by_lang = CODEX_LAYOUTS[layout]
        heads = heads_by_lang.get(self.lang, heads_by_lang["en"])
        secs: list[list[str]] = [[] for _ in heads]
        sp = self.step_prompts()
        bp = self.base_prompts()
        if sp:
            secs[0].append(_short(sp[0], prompt_len))
            for p in sp[1:]:
                secs[0].append("- " + w["follow"].format(q=_short(p, prompt_len)))
        if bp:
            secs[0].append(cx["asked_before"].format(x="; ".join(f"“{_short(p, 90)}”" for p in bp[-3:])))
        for t in self.case.get("request", []):
            secs[0].append("- " + t)
        cap = (lambda l: l[:1].upper() + l[1:]) if self.lang in ("en", "fr", "pt", "it", "de", "es") else (lambda l: l)
        base_writes = []
        for e in self.base:
            if e["k"] == "write" and e.get("ok") and e["file"] not in base_writes:
                base_writes.append(e["file"])
        for f in base_writes[-4:]:
            secs[1].append("- " + cap(w["n_edit"].format(file=f)))
        for l in self.work_lines(reads=False):
            secs[1].append("- " + cap(l))
        for st in self.steps:
            if st[0] == "run" and st[2] != 0 and not self._run_suppressed(st[1]):
                secs[2].append("- " + w["e_run"].format(cmd=_short(st[1], 110), result=result_of(st[3] if isinstance(st[3], str) else "", st[2], w)))
        for c in self.case.get("concepts", [])[:4]:
            secs[4].append("- " + c)
        if self.case.get("stack"):
            secs[4].append("- " + w["stack"].format(x=self.case["stack"]))
        secs[3] += self.pending_items()
        paths = []
        for st in reversed(self.steps):
            if st[0] in ("edit", "write") and st[1] not in paths:
                paths.append(st[1])
        for p in paths[:3]:
            secs[5].append(f"- `{p}`")
            if code_lines:
                code = next(st[3] if st[0] == "edit" else st[2] for st in reversed(self.steps) if st[0] in ("edit", "write") and st[1] == p)
                secs[5].append(f"```{lang_of(p)}\n{_code(code, code_lines)}\n```")
        for st in self.steps:
            if st[0] == "read" and st[1] not in paths:
                paths.append(st[1])
                secs[5].append(f"- `{st[1]}` ({READ_TAG.get(self.lang, READ_TAG['en'])})")
                if code_lines and len(paths) <= 2:
                    secs[5].append(f"```{lang_of(st[1])}\n{_code(st[2], max(6, code_lines // 2))}\n```")
        cmds = []
        for st in self.steps:
            if st[0] == "run" and st[1] not in cmds and not self._run_suppressed(st[1]) and not st[1].startswith(("sed -n", "cat ")):
                cmds.append(st[1])
        for c in cmds[-4:]:
            secs[5].append(f"- `{c}`")
        for sec, idx in CODEX_SLOT.items():
            for t in self.placed(sec):
                secs[idx].append(self._block(t))
        if not secs[3]:
            secs[3].append(cx["none_open"])
        if len(sp) > 1 and self.shape.get("next_quote", True):
            secs[3].append(cx["then_next"].format(q=_short(sp[-1], prompt_len)))
        out = []
        style = self.shape.get("codex_style", "markdown")
        if self.shape.get("codex_title"):
            out.append(self.shape["codex_title"])
        for h, body in zip(heads, secs):
            if not body:
                continue
            if style == "markdown":
                out.append(f"## {h}\n" + "\n".join(body))
            elif style == "bold":
                out.append(f"**{h}**\n" + "\n".join(body))
            else:
                out.append(f"{h}:\n" + "\n".join(body))
        return "\n\n".join(out)
