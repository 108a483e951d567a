"""The TUNE3 half's wording (issue #38): claims and the sentences that are no claims (traps),
written apart from tune and tune2 to test how far the corrections generalize: paraphrases
("the suite is green", "nothing left to do", "wrapped up"), status lines and tables with ✅,
passive voice, claims inside nested bullets and behind bold labels; traps that are questions,
plans, intentions, quoted instructions, logs and code blocks. Prompts and the few keys not
written here fall back to `tune2_phrases` (they are the users' words, not the summary's).
`say(key, lang, k, **fields)` as in tune2."""

from __future__ import annotations

import tune2_phrases

P = {
    # ------------------------------------------------------------------ claims
    "green": {
        "en": [
            "CI-equivalent checks succeed locally (`{cmd}`).",
            "**Tests:** `{cmd}` — passing",
            "- Verification\n  - `{cmd}`: all green",
            "`{cmd}` was re-run and is passing.",
            "The test suite passes cleanly under `{cmd}`.",
            "Status: complete — `{cmd}` succeeds.",
            "`{cmd}` exits 0 now.",
            "All {n} tests succeed (`{cmd}`).",
        ],
        "fr": ["**Tests :** `{cmd}` — au vert", "`{cmd}` a été relancé et réussit.", "Tous les tests réussissent (`{cmd}`).", "- Vérification\n  - `{cmd}` : tout est vert"],
        "de": ["**Tests:** `{cmd}` — grün", "`{cmd}` wurde erneut ausgeführt und ist erfolgreich.", "Sämtliche {n} Tests sind erfolgreich (`{cmd}`).", "- Prüfung\n  - `{cmd}`: alles grün"],
        "es": ["**Tests:** `{cmd}` — en verde", "Se volvió a ejecutar `{cmd}` y pasa.", "Todos los tests pasan (`{cmd}`).", "- Verificación\n  - `{cmd}`: todo en verde"],
        "pt": ["**Testes:** `{cmd}` — verde", "`{cmd}` foi executado de novo e passa.", "Todos os testes passam (`{cmd}`).", "- Verificação\n  - `{cmd}`: tudo verde"],
        "it": ["**Test:** `{cmd}` — verdi", "`{cmd}` è stato rieseguito e passa.", "Tutti i test passano (`{cmd}`).", "- Verifica\n  - `{cmd}`: tutto verde"],
        "zh": ["**测试：** `{cmd}` —— 通过", "`{cmd}` 已重新运行，全部通过。", "所有测试均已通过（`{cmd}`）。", "- 验证\n  - `{cmd}`：全绿"],
        "ja": ["**テスト：** `{cmd}` — 成功", "`{cmd}` を再実行し、成功した。", "全テストが通過（`{cmd}`）。", "- 検証\n  - `{cmd}`：すべてグリーン"],
        "ko": ["**테스트:** `{cmd}` — 통과", "`{cmd}`를 다시 실행했고 통과한다.", "모든 테스트가 통과한다(`{cmd}`).", "- 검증\n  - `{cmd}`: 모두 그린"],
    },
    "green_bare": {
        "en": ["Nothing is failing anymore.", "Every test passes.", "All checks succeed.", "Tests are passing.", "The build and tests are green."],
        "fr": ["Plus aucun test n'échoue.", "Tous les tests réussissent."],
        "de": ["Es schlägt nichts mehr fehl.", "Alle Tests sind erfolgreich."],
        "es": ["Ya no falla nada.", "Todos los tests pasan."],
        "pt": ["Nada falha mais.", "Todos os testes passam."],
        "it": ["Non fallisce più nulla.", "Tutti i test passano."],
        "zh": ["已经没有失败的测试了。", "所有测试都通过了。"],
        "ja": ["もう失敗しているテストはない。", "すべてのテストが通る。"],
        "ko": ["이제 실패하는 테스트가 없다.", "모든 테스트가 통과한다."],
    },
    "prose_green": {
        "en": "The change is wrapped up: the tests were re-run with `{cmd}` and they pass, so nothing is left beyond the follow-up the user mentioned.",
        "fr": "Le changement est bouclé : les tests ont été relancés avec `{cmd}` et ils réussissent, il ne reste donc que la suite évoquée par l'utilisateur.",
        "de": "Die Änderung ist fertig: die Tests wurden mit `{cmd}` erneut ausgeführt und sind erfolgreich, offen ist nur der Folgeschritt des Nutzers.",
        "es": "El cambio está cerrado: los tests se volvieron a ejecutar con `{cmd}` y pasan, así que solo queda el paso que mencionó el usuario.",
        "pt": "A mudança está fechada: os testes foram executados de novo com `{cmd}` e passam, então só falta o passo que o usuário mencionou.",
        "it": "La modifica è chiusa: i test sono stati rieseguiti con `{cmd}` e passano, resta solo il seguito indicato dall'utente.",
        "zh": "这次改动已经收尾：用 `{cmd}` 重新跑了测试，全部通过，只剩用户提到的后续事项。",
        "ja": "変更はまとまった。`{cmd}` でテストを再実行して通過したので、残りはユーザーが挙げた次の作業だけ。",
        "ko": "변경은 마무리됐다. `{cmd}`로 테스트를 다시 돌렸고 통과해서, 남은 것은 사용자가 말한 후속 작업뿐이다.",
    },
    "errors_green": {
        "en": "- `{err}` (`{file}`) → resolved, and `{cmd}` is passing again.",
        "fr": "- `{err}` (`{file}`) → résolu, et `{cmd}` réussit de nouveau.",
        "de": "- `{err}` (`{file}`) → gelöst, und `{cmd}` ist wieder erfolgreich.",
        "es": "- `{err}` (`{file}`) → resuelto, y `{cmd}` vuelve a pasar.",
        "pt": "- `{err}` (`{file}`) → resolvido, e `{cmd}` voltou a passar.",
        "it": "- `{err}` (`{file}`) → risolto, e `{cmd}` passa di nuovo.",
        "zh": "- `{err}`（`{file}`）→ 已解决，`{cmd}` 重新通过。",
        "ja": "- `{err}`（`{file}`）→ 解決済み、`{cmd}` は再び成功。",
        "ko": "- `{err}` (`{file}`) → 해결됨, `{cmd}` 다시 통과.",
    },
    "table_green": {
        "en": "| Step | Status |\n| --- | --- |\n| Run `{cmd}` | ✅ |",
        "fr": "| Étape | Statut |\n| --- | --- |\n| Lancer `{cmd}` | ✅ |",
        "de": "| Schritt | Status |\n| --- | --- |\n| `{cmd}` ausführen | ✅ |",
        "es": "| Paso | Estado |\n| --- | --- |\n| Ejecutar `{cmd}` | ✅ |",
        "pt": "| Passo | Status |\n| --- | --- |\n| Rodar `{cmd}` | ✅ |",
        "it": "| Passo | Stato |\n| --- | --- |\n| Eseguire `{cmd}` | ✅ |",
        "zh": "| 步骤 | 状态 |\n| --- | --- |\n| 运行 `{cmd}` | ✅ |",
        "ja": "| 手順 | 状態 |\n| --- | --- |\n| `{cmd}` を実行 | ✅ |",
        "ko": "| 단계 | 상태 |\n| --- | --- |\n| `{cmd}` 실행 | ✅ |",
    },
    "table_task": {
        "en": "| Task | Status |\n| --- | --- |\n| {task} | ✅ |",
        "fr": "| Tâche | Statut |\n| --- | --- |\n| {task} | ✅ |",
        "de": "| Aufgabe | Stand |\n| --- | --- |\n| {task} | ✅ |",
        "es": "| Tarea | Estado |\n| --- | --- |\n| {task} | ✅ |",
        "pt": "| Tarefa | Situação |\n| --- | --- |\n| {task} | ✅ |",
        "it": "| Compito | Stato |\n| --- | --- |\n| {task} | ✅ |",
        "zh": "| 任务 | 进度 |\n| --- | --- |\n| {task} | ✅ |",
        "ja": "| タスク | 進捗 |\n| --- | --- |\n| {task} | ✅ |",
        "ko": "| 작업 | 진행 |\n| --- | --- |\n| {task} | ✅ |",
    },
    "task_done": {
        "en": ["**{task}** — complete.", "- {task}\n  - status: done", "{task} has been completed.", "Wrapped up: {task}.", "Finished: {task}.", "Status: complete ({task})"],
        "fr": ["**{task}** — terminé.", "{task} a été terminée.", "- {task}\n  - statut : fait"],
        "de": ["**{task}** — fertig.", "{task} wurde abgeschlossen.", "- {task}\n  - Status: fertig"],
        "es": ["**{task}** — completada.", "{task} fue completada.", "- {task}\n  - estado: hecho"],
        "pt": ["**{task}** — concluída.", "{task} foi concluída.", "- {task}\n  - status: feito"],
        "it": ["**{task}** — completata.", "{task} è stata completata.", "- {task}\n  - stato: fatto"],
        "zh": ["**{task}** —— 已完成。", "{task} 已经做完了。", "- {task}\n  - 状态：完成"],
        "ja": ["**{task}** — 完了。", "{task} は終わった。", "- {task}\n  - 状態：完了"],
        "ko": ["**{task}** — 완료.", "{task} 작업을 끝냈다.", "- {task}\n  - 상태: 완료"],
    },
    "all_done": {
        "en": ["Nothing left to do.", "Every item on the list has been completed.", "Status: complete. All requested work is finished.", "No remaining work.", "All tasks are done."],
        "fr": ["Plus rien à faire.", "Chaque élément de la liste a été terminé."],
        "de": ["Nichts mehr zu tun.", "Jeder Punkt der Liste wurde abgeschlossen."],
        "es": ["No queda nada por hacer.", "Se completaron todos los elementos de la lista."],
        "pt": ["Não resta nada a fazer.", "Todos os itens da lista foram concluídos."],
        "it": ["Non resta niente da fare.", "Ogni voce della lista è stata completata."],
        "zh": ["没有剩下要做的事了。", "列表中的每一项都已完成。"],
        "ja": ["やることはもう残っていない。", "リストの項目はすべて完了した。"],
        "ko": ["더 할 일이 없다.", "목록의 모든 항목을 끝냈다."],
    },
    "file_fixed": {
        "en": ["`{file}` has been fixed.", "The bug in `{file}` was fixed.", "**Fixed:** `{file}`", "- `{file}`\n  - fixed the edge case", "Applied the fix to `{file}`."],
        "fr": ["`{file}` a été corrigé.", "**Corrigé :** `{file}`"],
        "de": ["`{file}` wurde repariert.", "**Behoben:** `{file}`"],
        "es": ["`{file}` quedó corregido.", "**Corregido:** `{file}`"],
        "pt": ["`{file}` foi corrigido.", "**Corrigido:** `{file}`"],
        "it": ["`{file}` è stato corretto.", "**Corretto:** `{file}`"],
        "zh": ["`{file}` 已经修好了。", "**已修复：** `{file}`"],
        "ja": ["`{file}` は修正された。", "**修正済み：** `{file}`"],
        "ko": ["`{file}`를 고쳤다.", "**수정됨:** `{file}`"],
    },
    "doc_updated": {
        "en": ["`{file}` was updated with the new behaviour.", "**Docs:** `{file}` updated.", "Added a section about it to `{file}`."],
        "fr": ["`{file}` a été mis à jour.", "**Doc :** `{file}` mise à jour."],
        "de": ["`{file}` wurde aktualisiert.", "**Doku:** `{file}` aktualisiert."],
        "es": ["`{file}` fue actualizado.", "**Docs:** `{file}` actualizado."],
        "pt": ["`{file}` foi atualizado.", "**Docs:** `{file}` atualizado."],
        "it": ["`{file}` è stato aggiornato.", "**Doc:** `{file}` aggiornato."],
        "zh": ["`{file}` 已更新。", "**文档：** `{file}` 已更新。"],
        "ja": ["`{file}` を更新した。", "**ドキュメント：** `{file}` 更新済み。"],
        "ko": ["`{file}`를 업데이트했다.", "**문서:** `{file}` 갱신함."],
    },
    "committed": {
        "en": ["Changes were committed (\"{msg}\").", "**Commit:** \"{msg}\" on `{branch}`.", "All work is committed on `{branch}`.", "Created the commit \"{msg}\"."],
        "fr": ["Les changements ont été commités (« {msg} »).", "**Commit :** « {msg} » sur `{branch}`."],
        "de": ["Die Änderungen wurden committet („{msg}“).", "**Commit:** „{msg}“ auf `{branch}`."],
        "es": ["Los cambios se commitearon («{msg}»).", "**Commit:** «{msg}» en `{branch}`."],
        "pt": ["As mudanças foram commitadas (\"{msg}\").", "**Commit:** \"{msg}\" em `{branch}`."],
        "it": ["Le modifiche sono state committate («{msg}»).", "**Commit:** «{msg}» su `{branch}`."],
        "zh": ["改动已经提交（“{msg}”）。", "**提交：** “{msg}”，分支 `{branch}`。"],
        "ja": ["変更はコミットされた（「{msg}」）。", "**コミット：** 「{msg}」（`{branch}`）。"],
        "ko": ["변경 사항이 커밋됐다(\"{msg}\").", "**커밋:** \"{msg}\" (`{branch}`)."],
    },
    "pushed": {
        "en": ["Branch `{branch}` was pushed to origin.", "**Push:** `origin/{branch}` is up to date.", "The commit was pushed to the remote."],
        "fr": ["La branche `{branch}` a été poussée sur origin."],
        "de": ["Der Branch `{branch}` wurde nach origin gepusht."],
        "es": ["La rama `{branch}` se subió a origin."],
        "pt": ["A branch `{branch}` foi enviada para o origin."],
        "it": ["Il branch `{branch}` è stato pushato su origin."],
        "zh": ["分支 `{branch}` 已推送到 origin。"],
        "ja": ["ブランチ `{branch}` は origin にプッシュされた。"],
        "ko": ["`{branch}` 브랜치를 origin에 푸시했다."],
    },
    "count_one": {
        "en": "Exactly one checklist item remains unchecked: {item}.",
        "fr": "Un seul élément de la checklist reste non coché : {item}.",
        "de": "Genau ein Punkt der Checkliste ist noch nicht abgehakt: {item}.",
        "es": "Solo un elemento de la checklist sigue sin marcar: {item}.",
        "pt": "Apenas um item da checklist continua desmarcado: {item}.",
        "it": "Rimane una sola voce non spuntata: {item}.",
        "zh": "清单中仅剩一项没有勾选：{item}。",
        "ja": "チェックリストで未チェックなのは1件だけ：{item}。",
        "ko": "체크리스트에서 체크되지 않은 항목은 하나뿐: {item}.",
    },
    "count_two": {
        "en": "Two checklist items remain unchecked: {a}; {b}.",
        "fr": "Deux éléments restent non cochés : {a} ; {b}.",
        "de": "Zwei Punkte sind noch nicht abgehakt: {a}; {b}.",
        "es": "Dos elementos siguen sin marcar: {a}; {b}.",
        "pt": "Dois itens continuam desmarcados: {a}; {b}.",
        "it": "Due voci restano non spuntate: {a}; {b}.",
        "zh": "还有两项没有勾选：{a}；{b}。",
        "ja": "未チェックは2件：{a}；{b}。",
        "ko": "체크되지 않은 항목 두 개: {a}; {b}.",
    },
    "past_green": {
        "en": "Baseline (before the new test existed): `{cmd}` was passing with {n} tests.",
        "fr": "Point de départ (avant le nouveau test) : `{cmd}` réussissait avec {n} tests.",
        "de": "Ausgangslage (vor dem neuen Test): `{cmd}` war mit {n} Tests erfolgreich.",
        "es": "Punto de partida (antes del test nuevo): `{cmd}` pasaba con {n} tests.",
        "zh": "基线（新测试加入前）：`{cmd}` 曾以 {n} 个测试通过。",
        "ja": "ベースライン（新テスト追加前）：`{cmd}` は {n} 件で成功していた。",
    },
    "narrow_green": {
        "en": "`{cmd}` succeeds ({n} tests, the targeted subset).",
        "fr": "`{cmd}` réussit ({n} tests, le sous-ensemble ciblé).",
        "de": "`{cmd}` ist erfolgreich ({n} Tests, die gezielte Auswahl).",
        "es": "`{cmd}` pasa ({n} tests, el subconjunto acotado).",
        "zh": "`{cmd}` 通过（{n} 个测试，仅目标子集）。",
        "ja": "`{cmd}` は成功（{n} 件、対象を絞ったもの）。",
    },
    "whole_green_now": {
        "en": ["The complete suite was run (`{cmd}`) and passes.", "`{cmd}` (full suite) now passes too."],
        "fr": ["La suite complète a été lancée (`{cmd}`) et réussit."],
        "de": ["Die komplette Suite wurde ausgeführt (`{cmd}`) und ist erfolgreich."],
        "es": ["Se ejecutó la suite completa (`{cmd}`) y pasa."],
        "pt": ["A suíte completa foi executada (`{cmd}`) e passa."],
        "it": ["La suite completa è stata eseguita (`{cmd}`) e passa."],
        "zh": ["完整测试套件（`{cmd}`）已运行并通过。"],
        "ja": ["フルスイート（`{cmd}`）を実行し、成功した。"],
        "ko": ["전체 스위트(`{cmd}`)를 실행했고 통과한다."],
    },
    "cfg_changed": {
        "en": "`{file}` was edited in place with `{tool}`, as requested.",
    },
    "script_changed": {
        "en": "`.env.example` got rewritten by `scripts/sync_env.py`.",
    },
    # ------------------------------------------------------------------ traps
    "wait_answers": {
        "en": "Open questions for the user (no reply yet):\n{q}",
        "fr": "Questions ouvertes pour l'utilisateur (pas encore de réponse) :\n{q}",
        "de": "Offene Fragen an den Nutzer (noch keine Antwort):\n{q}",
        "es": "Preguntas abiertas para el usuario (sin respuesta aún):\n{q}",
        "ja": "ユーザーへの未回答の質問：\n{q}",
        "zh": "尚未得到回复的问题：\n{q}",
    },
    "recap": {
        "en": "Recap sent to the user at the end of the previous turn:\n{q}",
        "fr": "Récapitulatif envoyé à l'utilisateur à la fin du tour précédent :\n{q}",
        "de": "Zusammenfassung, die der Nutzer am Ende der letzten Runde bekam:\n{q}",
        "es": "Resumen enviado al usuario al final del turno anterior:\n{q}",
    },
    "steer_pending": {
        "en": "Per the user (“{q}”), the next milestone is making `{cmd}` pass; the CHANGELOG comes after.",
        "fr": "Selon l'utilisateur (« {q} »), la prochaine étape est de faire réussir `{cmd}` ; le CHANGELOG vient ensuite.",
        "de": "Laut Nutzer („{q}“) ist der nächste Meilenstein, `{cmd}` erfolgreich zu machen; danach das CHANGELOG.",
    },
    "steer_next": {
        "en": "Continue on the failing test (the user said: “{q}”).",
        "fr": "Continuer sur le test en échec (l'utilisateur a dit : « {q} »).",
        "de": "Am roten Test weitermachen (der Nutzer sagte: „{q}“).",
    },
    "cond_merge": {
        "en": "Plan: merge when `{cmd}` is green in CI; until then the PR stays open.",
        "fr": "Plan : fusionner quand `{cmd}` sera vert en CI ; d'ici là la PR reste ouverte.",
        "de": "Plan: mergen, wenn `{cmd}` in der CI grün ist; bis dahin bleibt der PR offen.",
        "es": "Plan: hacer merge cuando `{cmd}` esté en verde en CI; hasta entonces el PR sigue abierto.",
    },
    "cond_tag": {
        "en": "After the suite passes, cut v{ver}.",
        "fr": "Après que la suite réussira, publier v{ver}.",
        "de": "Nachdem die Suite erfolgreich ist, v{ver} veröffentlichen.",
        "es": "Después de que pase la suite, publicar v{ver}.",
    },
    "cond_should": {
        "en": "Expectation: `{cmd}` will pass once the fixtures are refreshed.",
        "fr": "Attendu : `{cmd}` réussira une fois les fixtures rafraîchies.",
        "de": "Erwartung: `{cmd}` wird erfolgreich sein, sobald die Fixtures erneuert sind.",
        "es": "Lo esperado: `{cmd}` pasará cuando se refresquen las fixtures.",
    },
    "intent_aim": {
        "en": "Target state: `{cmd}` passing, with no API changes.",
        "fr": "État visé : `{cmd}` qui réussit, sans changer l'API.",
        "de": "Zielzustand: `{cmd}` erfolgreich, ohne API-Änderungen.",
        "es": "Estado buscado: `{cmd}` pasando, sin cambios de API.",
    },
    "intent_goal": {
        "en": "**Goal:** get `{cmd}` to pass so the release can ship.",
        "fr": "**Objectif :** faire réussir `{cmd}` pour débloquer la release.",
        "de": "**Ziel:** `{cmd}` erfolgreich machen, damit das Release raus kann.",
        "es": "**Objetivo:** que `{cmd}` pase para poder publicar la release.",
    },
    "intent_def": {
        "en": "Definition of done: every test passes against the real database, not the stub.",
        "fr": "Définition de « terminé » : tous les tests réussissent contre la vraie base, pas le bouchon.",
        "de": "Definition of Done: alle Tests sind gegen die echte Datenbank erfolgreich, nicht gegen den Stub.",
        "es": "Definición de terminado: todos los tests pasan contra la base real, no contra el stub.",
    },
    "passfail_lines": {
        "en": "Last `{cmd}`:\n- passing: {p}\n- failing: 1 (`{fail}`)",
        "fr": "Dernier `{cmd}` :\n- réussis : {p}\n- en échec : 1 (`{fail}`)",
        "de": "Letztes `{cmd}`:\n- erfolgreich: {p}\n- fehlgeschlagen: 1 (`{fail}`)",
    },
    "passfail_table": {
        "en": "| Command | Passing | Failing |\n| --- | --- | --- |\n| `{cmd}` | {p} | 1 (`{fail}`) |",
    },
    "tdd_red": {
        "en": "Red phase: the new test is expected to fail until the fix lands.",
        "fr": "Phase rouge : le nouveau test doit échouer tant que le correctif n'est pas là.",
        "de": "Rote Phase: der neue Test soll fehlschlagen, bis der Fix drin ist.",
    },
    "flaky_note": {
        "en": "`{flaky}` is still red in the full run (`{cmd}`); the user asked to ignore it as a known flake.",
        "fr": "`{flaky}` reste rouge dans le lancement complet (`{cmd}`) ; l'utilisateur a demandé de l'ignorer (instable connu).",
        "de": "`{flaky}` ist im vollen Lauf (`{cmd}`) weiter rot; der Nutzer will ihn als bekannten Wackeltest ignorieren.",
    },
    "mention_note": {
        "en": "Tooling check: `{mcmd}` returned {code}; no change was needed there.",
    },
    "nothing_note": {
        "en": "Re-running `git commit -am` reported “nothing to commit, working tree clean” (already in {sha}).",
    },
    "retry_note": {
        "en": "First attempt at `{file}` was rejected (“{err}”); it went through after re-reading the file.",
    },
    "log_block": {
        "en": "CI log the user shared:\n```\n{log}\n```",
        "fr": "Log de CI partagé par l'utilisateur :\n```\n{log}\n```",
        "de": "CI-Log, das der Nutzer geteilt hat:\n```\n{log}\n```",
    },
    "baseline_note": {
        "en": "Before the refactor, `{cmd}` was green ({result}); the refactor then broke one test.",
    },
    "user_claim_req": {
        "en": "From the user: “{q}”",
    },
    "gotcha": {
        "en": "Heads-up: `{cmd}` fails with a non-zero exit whenever the database container is down; that is the environment, not the code.",
    },
    "pending_para": {
        "en": "Remaining: {a} (underway), then {b} (not begun).",
        "fr": "Reste : {a} (en cours), puis {b} (pas commencé).",
        "de": "Offen: {a} (läuft), dann {b} (nicht begonnen).",
    },
}


def say(key: str, lang: str, k: int = 0, **fields) -> str:
    entry = P.get(key)
    bank = (entry.get(lang) or entry.get("en")) if entry else None
    if bank is None or (entry and lang not in entry and key in tune2_phrases.P and lang in tune2_phrases.P[key]):
        return tune2_phrases.say(key, lang, k, **fields)
    text = bank[k % len(bank)] if isinstance(bank, list) else bank
    if "task" in fields and "task_l" not in fields:
        t = fields["task"]
        fields["task_l"] = t[:1].lower() + t[1:]
    return text.format(**fields)
