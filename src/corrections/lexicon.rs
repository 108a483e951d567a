//! The words the judge reads claims by, in one place, by meaning and then by language: English,
//! German, Spanish, French and Portuguese as lowercased words; Chinese, Japanese and Korean as
//! substrings (their words are not spaced). A sentence in a language not here claims nothing we
//! can read: the judge says less, never more.
//!
//! Kept compact on purpose (one line a language): a reviewer adds a word where its language is.

use crate::extract::facts::ActKind;

/// Words that, anywhere in a sentence, make it no assertion of a present or past state: the
/// future, a wish, a purpose, a condition, a request, an instruction reported.
#[rustfmt::skip]
pub(crate) const NOT_ASSERTED: &[&str] = &[
    // English
    "will", "would", "should", "shall", "must", "might", "may", "could", "can", "cannot", "going",
    "gonna", "need", "needs", "needed", "want", "wants", "wanted", "expect", "expects", "expected",
    "hope", "hopes", "hoping", "hopefully", "try", "tries", "trying", "tried", "attempt",
    "attempts", "attempted", "attempting", "plan", "plans", "planned", "planning", "intend",
    "intends", "goal", "goals", "aim", "aims", "objective", "target", "ensure", "ensures",
    "ensuring", "verify", "verifying", "if", "unless", "until", "whether", "whenever", "suppose",
    "supposed", "ought", "require", "requires", "required", "requirement", "ask", "asks", "asked",
    "requested", "instructed", "instruction", "told", "said", "says",
    "stop", "next", "todo", "pending", "remaining", "remain", "remains", "outstanding",
    "unfinished", "incomplete", "wip", "blocked", "eventually", "later", "soon", "meant",
    "intended", "criteria", "criterion", "definition", "acceptance", "let", "lets", "make", "sure",
    // About another moment than now: what held earlier may not hold at the compaction.
    "previous", "previously", "ago", "earlier", "originally", "initially", "formerly", "regressed",
    // German
    "soll", "sollen", "sollte", "sollten", "muss", "müssen", "wird", "werden", "falls",
    "wenn", "sobald", "bis", "ziel", "geplant",
    // Spanish
    "debe", "deben", "debería", "será", "serán", "para", "si", "cuando", "hasta", "objetivo",
    "pendiente", "pendientes",
    // French
    "doit", "doivent", "devrait", "devraient", "va", "vont", "sera", "seront", "pour", "afin",
    "quand", "lorsque", "jusqu", "objectif", "faut", "attente",
    // Portuguese
    "deve", "devem", "deveria", "vai", "vão", "para", "quando", "até", "pendentes",
    // Italian
    "dovrebbe", "dovrebbero", "sarà", "saranno", "per", "finché", "obiettivo", "bisogna",
];

/// The same for unspaced scripts, found as substrings.
#[rustfmt::skip]
pub(crate) const NOT_ASSERTED_UNSPACED: &[&str] = &[
    "需要", "应该", "应当", "将会", "以便", "为了", "确保", "如果", "一旦", "直到", "目标", "希望", "计划",
    "要求", "指示", "指令", "待办", "待处理", "下一步", "只有", "仅",
    "必要", "べき", "予定", "ように", "ために", "場合", "たら", "目標", "次に", "依頼", "だけ", "のみ", "みなす",
    "해야", "예정", "필요", "하려면", "위해", "다음", "경우", "목표", "요청",
    // About another moment than now.
    "此前", "之前", "以前", "先前", "当时", "前回", "이전",
    // A request to the agent (a user's message repeated): "please check it again".
    "请你", "请帮", "帮我", "麻烦你", "ください", "下さい", "してほしい", "お願い", "줘",
    "주세요", "바랍니다", "부탁",
];

/// Past forms that make a "when" clause tell what happened ("when I ran it, all tests passed").
#[rustfmt::skip]
pub(crate) const PAST: &[&str] = &[
    "passed", "succeeded", "completed", "finished", "fixed", "ran", "was", "were", "did", "had",
];

/// Words that open a clause of time ("after the suite passes, ..."): a condition when the
/// clause says a check passes in the present.
#[rustfmt::skip]
pub(crate) const TEMPORAL: &[&str] = &[
    "after", "before", "nachdem", "bevor", "après", "avant", "después", "antes", "dopo", "prima",
    "depois",
];

/// Words that make a condition of a present sentence ("the test passes when add returns a+b").
#[rustfmt::skip]
pub(crate) const CONDITION: &[&str] = &[
    "when", "once", "whenever", "wenn", "sobald", "cuando", "quand", "lorsque", "dès", "quando",
];

/// Words that, in the same clause, say a thing is not so, or not yet, or failed.
#[rustfmt::skip]
pub(crate) const NEGATION: &[&str] = &[
    // English
    "not", "no", "never", "none", "nothing", "neither", "nor", "without", "cannot", "breaks",
    "yet", "partial", "partially", "skipped", "disabled", "ignored", "rejected", "refused",
    "declined", "interrupted", "aborted", "denied", "cancelled", "canceled",
    // German
    "nicht", "nichts", "kein", "keine", "keinen", "nie", "noch", "abgelehnt", "blockiert",
    "abgebrochen", "unterbrochen",
    // Spanish
    "nunca", "nada", "ningún", "ninguna", "sin", "aún", "todavía", "rechazado", "rechazada",
    "bloqueado", "interrumpido",
    // French
    "ne", "pas", "rien", "jamais", "aucun", "aucune", "sans", "encore", "refusé", "rejeté",
    "bloqué", "interrompu",
    // Portuguese
    "não", "nenhum", "nenhuma", "sem", "ainda", "rejeitado", "recusado", "interrompido",
    // Italian
    "non", "nessun", "nessuna", "senza", "ancora",
];

/// Words that say something failed (a negation too: [`NEGATION`] and these say a thing is not
/// so); after a [`NONE`] word ("no failures"), they say something good.
#[rustfmt::skip]
pub(crate) const FAILURE: &[&str] = &[
    "fail", "fails", "failing", "failed", "failure", "failures", "broken", "red", "flaky",
    "error", "errors", "warnings", "regressions", "issues", "problems",
    "fehlgeschlagen", "fehler", "schlägt", "scheitert",
    "falla", "fallan", "fallo", "fallaron", "falló", "fallos", "errores",
    "échoue", "échouent", "échec", "échoué", "erreur", "erreurs",
    "falha", "falham", "falhou", "falharam", "falhas", "erro", "erros",
    "fallisce", "falliscono", "fallito", "falliti", "errore", "errori", "fallimento",
];

/// The same for unspaced scripts.
#[rustfmt::skip]
pub(crate) const NEGATION_UNSPACED: &[&str] = &[
    "不", "没", "未", "无", "尚", "还没", "失败", "错误",
    "ない", "ません", "失敗", "エラー",
    "않", "못", "아직", "실패", "오류", "없",
];

/// Words that say none of something: before a [`FAILURE`] word ("no failures", "sin errores"),
/// a negation that says something good.
#[rustfmt::skip]
pub(crate) const NONE: &[&str] = &[
    "no", "without", "zero", "0", "nothing", "keine", "kein", "ohne", "sin", "ningún", "aucun",
    "aucune", "sans", "sem", "nenhum", "nenhuma", "nessun", "senza",
];

/// Words that limit a claim to a part ("only the parser tests pass", "most tasks are done").
#[rustfmt::skip]
pub(crate) const PARTIAL: &[&str] = &[
    "only", "except", "excluding", "some", "most", "several", "few", "half", "majority",
    "mostly", "almost", "nearly", "partly", "but", "besides", "other", "remaining", "first",
    "part", "nur", "außer", "solo", "excepto", "seulement", "sauf", "apenas", "exceto",
];

/// Words that say a check passed.
#[rustfmt::skip]
pub(crate) const PASS: &[&str] = &[
    "pass", "passes", "passed", "passing", "green", "succeed", "succeeds", "succeeded",
    "successful", "successfully", "clean", "cleanly",
    "bestehen", "besteht", "bestanden", "grün", "erfolgreich",
    "pasan", "pasa", "pasaron", "pasando", "exitosa", "exitosas", "exitosamente", "verde",
    "passent", "passe", "passé", "passés", "réussi", "réussis", "réussissent", "vert", "ok",
    "passam", "passaram", "passou", "passando", "sucesso",
    "passano", "passati", "superati", "superato", "riusciti",
];

/// The same for unspaced scripts.
#[rustfmt::skip]
pub(crate) const PASS_UNSPACED: &[&str] = &[
    "通过", "成功", "通過", "パス", "通った", "通りました", "통과", "성공",
];

/// Phrases that say a check passed without a pass word ("exits 0"); "no failures" is a good
/// negation ([`NONE`], [`BAD`]).
#[rustfmt::skip]
pub(crate) const PASS_PHRASES: &[[&str; 2]] = &[
    ["exits", "0"], ["exited", "0"], ["returns", "0"], ["laufen", "durch"], ["läuft", "durch"],
];

/// Words that say work is finished.
#[rustfmt::skip]
pub(crate) const DONE: &[&str] = &[
    "done", "completed", "complete", "finished", "implemented", "fixed", "resolved", "shipped",
    "merged", "addressed", "wrapped", "delivered",
    "erledigt", "fertig", "abgeschlossen", "implementiert", "behoben",
    "completado", "completada", "completados", "completadas", "terminado", "terminada", "hecho",
    "hecha", "implementado", "implementada", "corregido", "arreglado", "listo", "lista",
    "terminados", "terminadas", "hechos", "hechas", "implementados", "implementadas",
    "terminé", "terminée", "terminés", "terminées", "fait", "faite", "faits", "faites", "fini",
    "finie", "finis", "finies", "complété", "complétée", "complétés", "complétées", "implémenté",
    "implémentée", "implémentés", "implémentées", "corrigé", "corrigée", "résolu", "résolue",
    "concluído", "concluída", "concluídos", "concluídas", "feito", "feita", "feitos", "feitas",
    "finalizado", "finalizada", "finalizados", "finalizadas", "implementado", "corrigido",
    "corrigida", "resolvido", "resolvida", "pronto", "pronta", "prontos", "prontas",
    "cochée", "coché", "cochés", "cochées", "riscada", "riscado", "riscadas", "riscados",
    "fatto", "fatta", "fatti", "completato", "completata", "completati", "finito", "finita",
    "risolto", "risolta", "corretto", "terminato", "terminata", "concluso", "conclusa",
];

/// The same for unspaced scripts.
#[rustfmt::skip]
pub(crate) const DONE_UNSPACED: &[&str] = &[
    "完成", "搞定", "做完", "已实现", "实现了", "已修复", "修复了", "已添加", "添加了",
    "完了", "済み", "実装しました", "修正しました", "追加しました", "終わり", "終わった", "終えた", "終了",
    "완료", "끝났", "끝냈", "마쳤", "마무리",
];

/// Nouns of work in general, for "all tasks are done".
#[rustfmt::skip]
pub(crate) const WORK: &[&str] = &[
    "task", "tasks", "todo", "todos", "item", "items", "work", "request", "requests", "step",
    "steps", "change", "changes", "requirement", "requirements", "feature", "features",
    "everything", "checklist", "job", "list",
    "aufgaben", "aufgabe", "arbeit", "tareas", "tarea", "trabajo", "pasos",
    "tâches", "tâche", "travail", "étapes", "tarefas", "tarefa", "trabalho", "etapas",
    "attività", "compiti", "compito", "lavoro", "passi",
];

/// The same for unspaced scripts.
#[rustfmt::skip]
pub(crate) const WORK_UNSPACED: &[&str] = &[
    "任务", "工作", "事项", "タスク", "作業", "項目", "작업", "항목",
];

/// Words that say all of something.
#[rustfmt::skip]
pub(crate) const ALL: &[&str] = &[
    "all", "both", "every", "everything", "each", "fully", "entirely",
    "alle", "sämtliche", "todas", "todos", "todo", "tous", "toutes", "tout", "tudo", "tutti",
    "tutte", "tutto",
];

/// The same for unspaced scripts.
#[rustfmt::skip]
pub(crate) const ALL_UNSPACED: &[&str] = &["全部", "所有", "都", "すべて", "全て", "모두", "모든", "전부"];

/// Nouns that name a kind of check: tests.
#[rustfmt::skip]
pub(crate) const TEST_NOUNS: &[&str] = &[
    "test", "tests", "suite", "testsuite", "specs", "spec", "pytest", "unittests", "unittest",
    "pruebas", "prueba", "testes", "teste",
];

/// Test nouns in unspaced scripts.
pub(crate) const TEST_NOUNS_UNSPACED: &[&str] = &["测试", "テスト", "테스트"];

/// Nouns that name a build.
#[rustfmt::skip]
pub(crate) const BUILD_NOUNS: &[&str] = &[
    "build", "builds", "compiles", "compile", "compilation", "kompiliert", "compila",
    "compilação", "compilación",
];

/// Build nouns in unspaced scripts.
pub(crate) const BUILD_NOUNS_UNSPACED: &[&str] = &["构建", "编译", "ビルド", "コンパイル", "빌드"];

/// Words before a check noun that do not narrow which check is meant.
#[rustfmt::skip]
pub(crate) const GENERIC: &[&str] = &[
    "all", "the", "our", "my", "its", "their", "existing", "both", "full", "whole", "entire",
    "every", "each", "of", "and", "now", "test", "tests", "project", "repo", "code", "this",
    "these", "those", "complete", "suite", "a", "an", "again", "also", "still", "alle", "die",
    "der", "las", "los", "todas", "todos", "les", "tous", "os", "as", "de", "des",
    // Runners and build tools name how the tests ran, not which.
    "cargo", "npm", "yarn", "pnpm", "go", "pytest", "jest", "vitest", "mocha", "rspec", "make",
    "gradle", "maven", "mvn", "dotnet", "mix", "bun", "deno", "tox", "nextest", "unittest",
];

/// The kinds of action a summary may say were done, each with the stems of its verb or noun in
/// the spaced languages (a word that starts with one names it: "committed", "commité",
/// "Commit"; a stem with a space is a phrase, one starting with `=` a whole word) and its words
/// in the unspaced scripts.
#[rustfmt::skip]
pub(crate) const ACTS: &[(ActKind, &[&str], &[&str])] = &[
    (ActKind::Commit, &["commit", "gecommit"], &["提交", "コミット", "커밋"]),
    (ActKind::Push, &["push", "gepusht", "pouss"], &["推送", "プッシュ", "푸시"]),
    (ActKind::Tag, &["tagged", "getaggt", "taggé", "etiquetad"], &["打标签", "タグ付け"]),
    (ActKind::PullRequest, &["=pr", "=mr", "pull request", "merge request"], &["拉取请求", "プルリクエスト"]),
    (ActKind::Deploy, &["deploy", "despleg", "déploy", "implantad"], &["部署", "デプロイ", "배포"]),
    (ActKind::Install, &["instal"], &["安装", "インストール", "설치"]),
    (ActKind::Restart, &["restart", "reload", "reboot", "reinici", "redémarr", "neugestart"], &["重启", "再起動", "재시작"]),
    (ActKind::Migration, &["migr"], &["迁移", "マイグレーション"]),
    (ActKind::Publish, &["publish", "publicad", "publié", "veröffentlich"], &["发布"]),
    (ActKind::Activate, &["activ", "aktiv"], &["激活"]),
];

/// The endings of past forms and participles ("pushed", "committet", "installiert",
/// "déployé", "instalado", "pubblicato"): an action's verb in one of them says it was done.
#[rustfmt::skip]
pub(crate) const PARTICIPLE_ENDS: &[&str] = &[
    "ed", "tet", "sht", "iert", "oyt", "icht", "é", "ée", "és", "ées", "ado", "ada", "ados",
    "adas", "ido", "ida", "ato", "ata",
];

/// Words besides [`DONE`] that say an action went through ("Commit created", "the push went
/// through", "PR opened").
#[rustfmt::skip]
pub(crate) const ACT_DONE: &[&str] = &[
    "created", "made", "through", "succeeded", "handled", "opened", "submitted", "landed",
    "published",
];

/// What makes a migration a database's, and an activation an environment's: nouns near them.
#[rustfmt::skip]
pub(crate) const ENV_NOUNS: &[&str] = &[
    "database", "db", "schema", "alembic", "prisma", "sql", "datenbank", "datos", "données",
    "venv", "virtualenv", "environment", "env", "conda", "umgebung", "entorno", "environnement",
];

/// The user as a clause's subject ("the user pushed it themselves"): not the agent's claim.
#[rustfmt::skip]
pub(crate) const USER_NOUNS: &[&str] = &[
    "user", "you", "usuario", "utilisateur", "nutzer", "benutzer", "utente", "usuário", "用户",
];

/// "The user" in the unspaced scripts, found inside a sentence (no spaces to split at).
pub(crate) const USER_NOUNS_UNSPACED: &[&str] = &[
    "ユーザー",
    "ユーザ",
    "利用者",
    "用户",
    "用戶",
    "使用者",
    "사용자",
    "유저",
];

/// Words that open an embedded question: a participle after one says how or whether, not that
/// it was done ("to see how it is deployed", "whether it was pushed").
#[rustfmt::skip]
pub(crate) const QUESTION: &[&str] = &[
    "how", "whether", "why", "where", "when", "if", "wie", "ob", "warum", "wo",
    "cómo", "si", "dónde", "comment", "pourquoi", "où", "como", "onde", "come", "perché", "dove",
];

/// Words that say a file was only read or looked at, not changed.
#[rustfmt::skip]
pub(crate) const READ: &[&str] = &[
    "read", "reviewed", "inspected", "examined", "viewed", "consulted", "referenced", "studied",
    "analyzed", "analysed", "explored", "skimmed", "unchanged", "untouched", "gelesen", "leído",
    "lu", "lido", "letto", "阅读", "查看", "読んだ",
];

/// Verbs that say a file was fixed: a claim the problem in it is gone.
#[rustfmt::skip]
pub(crate) const FIXED: &[&str] = &[
    "fixed", "resolved", "corrected", "repaired", "patched", "behoben", "korrigiert", "corregido",
    "corregida", "arreglado", "arreglada", "corrigé", "corrigée", "corrigido", "corrigida",
    "修复", "修正", "直した", "고쳤", "수정했", "解决",
];

/// Verbs that say a file was changed.
#[rustfmt::skip]
pub(crate) const CHANGED: &[&str] = &[
    "created", "added", "modified", "updated", "edited", "wrote", "written", "changed", "applied",
    "rewrote", "rewritten", "refactored", "implemented", "replaced", "documented",
    "aktualisiert", "geändert", "hinzugefügt", "erstellt", "angepasst", "bearbeitet",
    "actualizó", "actualizado", "actualizada", "modificado", "modificada", "añadido", "creado",
    "cambiado", "modifié", "modifiée", "ajouté", "ajoutée", "créé", "créée", "mis", "atualizado",
    "atualizada", "modificado", "adicionado", "criado", "alterado", "aggiornato", "aggiornata",
    "modificato", "modificata", "aggiunto", "aggiunta", "scritto", "documentato",
    "更新", "修改", "添加", "改了", "変更", "追加した", "업데이트", "변경했", "추가했", "적어",
    "작성했", "기록했", "문서화했", "書いた", "記載",
];
