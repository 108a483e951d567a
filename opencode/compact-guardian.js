// compact-guardian for OpenCode: after OpenCode compacts a session, the model knows what it was
// doing. This file is the whole plugin, for both of OpenCode's lines: OpenCode 1 (1.18 and later)
// runs `default.server` (a V1 plugin function), OpenCode 2 runs `default.setup` (a V2 definition,
// `{ id, setup(ctx) }`). The work is done by the compact-guardian binary, which it runs. Install:
// `compact-guardian install-opencode` (writes this file into ~/.config/opencode/plugins/, a folder
// both lines read), or copy this file there. README: "OpenCode".
//
// What it does, in OpenCode 1:
// - experimental.session.compacting (before the summary): hands the binary the newest part of the
//   session (read newest first through OpenCode's API, bounded: see exportV1) and appends the
//   binary's directive to the summarizer's prompt; the binary keeps a snapshot.
// - session.compacted, and every request after a compaction (experimental.chat.messages
//   .transform): the binary restores the snapshot once per compaction, with what the summary got
//   wrong at its top, and keeps it on disk bound to that compaction; the plugin puts it right
//   after the summary in every request until the next compaction (OpenCode stores nothing a
//   transform adds, so it is added each time; a new OpenCode process reads it back from disk).
//   The summarizer's own request is left alone.
// In OpenCode 2 (D095):
// - the `compaction` hook (before the summary): the same save, from the session's context
//   (`ctx.session.context`); the directive, and the context of the stretch being summarized (if
//   an earlier compaction left one), go into the summarizer's system parts. The hook's `result`
//   is never set: OpenCode writes the summary.
// - the compaction's end (an event naming it), and every request after it (the `context` hook):
//   the same restore, named by the checkpoint message OpenCode puts first in the request; the
//   context goes into the request's system parts, once per request, until the next compaction.
// Fail open: a missing binary, an answer it cannot read or any error leaves the session as
// OpenCode made it, and says why in one line (OpenCode's log, and in OpenCode 1's TUI a toast).

import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"

// OpenCode 1 takes the default export's `server`, OpenCode 2 its `setup`; each ignores the other
// key, and neither reads the named export (kept for the tests that call it). OpenCode 1 refuses a
// file whose exports are not plugins when it does not find a module object as the default export:
// the constants below stay unexported.
/** The compact-guardian version this plugin was written for (`status` reads it). */
const VERSION = "0.2.0-dev"
/** The binary that installed this file (`compact-guardian install-opencode` writes its path). */
const INSTALLED_BINARY = null
/** The plugin's id: OpenCode 2 requires one, and OpenCode 1 one for a plugin loaded from a path. */
const ID = "compact-guardian"

/** Messages read per request to OpenCode's API, newest first (OpenCode pages its own by 50). */
const PAGE = 50
/** Reading stops once this many prompts the user typed are in, and MIN_BYTES were written... */
const WANTED_PROMPTS = 6
const MIN_BYTES = 2 * 1024 * 1024
/** ...or at this many bytes, or this much time, whichever comes first. */
const MAX_BYTES = 32 * 1024 * 1024
const DEADLINE_MS = 1500
/** How much of one text (a prompt, a reply, the summary) is written. */
const TEXT_CHARS = 32 * 1024
/** A tool's output: its head and its tail (a test runner's verdict is at the end). */
const OUTPUT_HEAD = 6 * 1024
const OUTPUT_TAIL = 2 * 1024
/** The tool inputs the binary reads, and how much of each. */
const INPUT_KEYS = {
  command: 1024,
  filePath: 1024,
  patchText: 32 * 1024,
  pattern: 400,
  path: 1024,
  url: 400,
  query: 400,
  description: 400,
}
/** A binary run longer than this is ended (its own watchdog ends it well before). */
const RUN_TIMEOUT_MS = 15000
/** How OpenCode 2 opens the user message that carries a compaction's summary to the model. */
const CHECKPOINT = "<conversation-checkpoint>"
/** OpenCode 2's tools under the names OpenCode 1 gave the same tools, which the binary reads
 * (D051): its shell is `shell`, its file tools take `path` where OpenCode 1's took `filePath`. */
const V2_TOOLS = { shell: "bash" }
const V2_PATH_TOOLS = new Set(["edit", "write", "read"])

/** What both lines share: the binary, the user's lines, and the context of each compaction,
 * restored once and kept. `log(message, level)` and `toast(message, variant)` reach the user;
 * `exportSession(sessionID)` writes the session as an excerpt the binary reads. */
function guardian({ directory, options, log, toast, exportSession }) {
  const binary = findBinary(options)
  /** COMPACT_GUARDIAN_DEBUG=1: how each excerpt was read and what the binary said, in
   * OpenCode's log. */
  const debug = !["", "0", "false", "no", "off"].includes((process.env.COMPACT_GUARDIAN_DEBUG ?? "").trim().toLowerCase())
  /** `${session}\n${compaction}` -> the context the model gets in that stretch (or null). */
  const contexts = new Map()
  /** The user is told once per process that the binary cannot run; after that, the log. */
  let toldNoBinary = false

  const tell = async (message, variant) => {
    await log(message, variant === "error" ? "error" : "info")
    await toast(message, variant)
  }

  const noBinary = async (why) => {
    const message = `compact-guardian: ${why}: compactions are NOT protected`
    if (toldNoBinary) return log(message)
    toldNoBinary = true
    await tell(message, "error")
  }

  /** Runs `compact-guardian <sub>` with `input` as its JSON stdin: its stdout, or null. */
  const run = async (sub, input) => {
    if (!binary) {
      await noBinary("no binary found (cargo install compact-guardian, or set COMPACT_GUARDIAN_BIN)")
      return null
    }
    const r = await spawnJson(binary, sub, input)
    if (r.error) {
      await noBinary(`could not run ${binary}: ${r.error}`)
      return null
    }
    // The binary says at most one line, unless COMPACT_GUARDIAN_DEBUG asks it for more.
    for (const line of r.stderr.split("\n").filter((l) => l.trim()).slice(0, debug ? 20 : 1)) await log(line)
    return r.stdout
  }

  /** Hands the binary the session before its summary: the directive for the summarizer, or null. */
  const save = async (sessionID) => {
    let excerpt
    try {
      excerpt = await exportSession(sessionID)
      const read = Date.now()
      const steer = await run("save", {
        session_id: sessionID,
        transcript_path: excerpt.file,
        cwd: directory,
        hook_event_name: "PreCompact",
        trigger: excerpt.trigger,
      })
      if (debug) await log(`compact-guardian: before the summary: ${excerpt.said}; save ${Date.now() - read} ms`, "info")
      // Only the binary's own directive reaches the summarizer (never what another program at
      // that path printed).
      return steer?.startsWith("compact-guardian:") ? steer.trim() : null
    } catch (e) {
      await tell(`compact-guardian: this compaction was NOT protected: ${e?.message ?? e}`, "error")
      return null
    } finally {
      if (excerpt) rmSync(excerpt.dir, { recursive: true, force: true })
    }
  }

  /** The context the model gets after compaction `compactionID` of `sessionID`: restored once
   * by the binary (which keeps it on disk), then the same for every request of the stretch. */
  const contextFor = (sessionID, compactionID, summary) => {
    const key = `${sessionID}\n${compactionID}`
    if (!contexts.has(key)) contexts.set(key, restore(sessionID, compactionID, summary).catch(async (e) => {
      await tell(`compact-guardian: nothing was restored after this compaction: ${e?.message ?? e}`, "error")
      return null
    }))
    return contexts.get(key)
  }

  const restore = async (sessionID, compactionID, summary) => {
    const input = {
      session_id: sessionID,
      client: "opencode",
      hook_event_name: "SessionStart",
      source: "compact",
      compaction_id: compactionID,
      compact_summary: summary ?? "",
      cwd: directory,
    }
    let answer = parseAnswer(await run("restore", input))
    if (answer?.needTranscript) {
      // No snapshot and nothing given for this compaction yet: rebuilt from the session.
      const excerpt = await exportSession(sessionID)
      try {
        answer = parseAnswer(await run("restore", { ...input, transcript_path: excerpt.file }))
      } finally {
        rmSync(excerpt.dir, { recursive: true, force: true })
      }
    }
    if (typeof answer?.systemMessage === "string") await tell(answer.systemMessage, "info")
    const context = answer?.hookSpecificOutput?.additionalContext
    return typeof context === "string" && context ? context : null
  }

  return { log, save, contextFor }
}

/** OpenCode 1's plugin function (`default.server`). */
export const CompactGuardian = async ({ client, directory }, options = {}) => {
  const g = guardian({
    directory,
    options,
    log: async (message, level = "warn") => {
      try {
        await client.app.log({ body: { service: "compact-guardian", level, message } })
      } catch {}
    },
    toast: async (message, variant) => {
      try {
        await client.tui.showToast({ body: { message, variant } })
      } catch {}
    },
    exportSession: (sessionID) => exportV1(client, directory, sessionID),
  })
  /** Sessions whose summarizer runs now: its copy of the messages passes the transform once. */
  const summarizing = new Set()

  return {
    "experimental.session.compacting": async (input, output) => {
      const sessionID = input?.sessionID
      if (!sessionID) return
      summarizing.add(sessionID)
      const steer = await g.save(sessionID)
      if (steer && Array.isArray(output?.context)) output.context.push(steer)
    },

    "experimental.chat.messages.transform": async (_input, output) => {
      try {
        const messages = output?.messages
        if (!Array.isArray(messages) || messages.length === 0) return
        const sessionID = messages[0]?.info?.sessionID
        if (!sessionID) return
        if (summarizing.delete(sessionID)) return // the summarizer's own copy of the history
        // After a compaction OpenCode sends the compaction's user message first, then its summary.
        const first = messages[0]
        if (first.info.role !== "user" || !first.parts?.some((p) => p?.type === "compaction")) return
        const at = messages.findIndex(
          (m) => m?.info?.role === "assistant" && m.info.summary === true && m.info.parentID === first.info.id,
        )
        if (at < 0) return
        const context = await g.contextFor(sessionID, first.info.id, summaryText(messages[at]))
        if (context) messages.splice(at + 1, 0, injected(first, messages[at], context))
      } catch (e) {
        await g.log(`compact-guardian: the snapshot was not added to this request: ${e?.message ?? e}`)
      }
    },

    event: async ({ event }) => {
      const sessionID = event?.properties?.sessionID
      if (!sessionID) return
      if (event.type === "session.error") summarizing.delete(sessionID)
      if (event.type !== "session.compacted") return
      summarizing.delete(sessionID)
      try {
        // Restored now, in the process that compacted, so that the snapshot is bound to this
        // compaction however late the next request comes (a manual compaction waits for the user).
        const r = await client.session.messages({ path: { id: sessionID }, query: { limit: 10 } })
        const ms = Array.isArray(r?.data) ? r.data : []
        const summary = ms.findLast((m) => m?.info?.role === "assistant" && m.info.summary === true && m.info.finish && !m.info.error)
        if (!summary?.info?.parentID) return
        await g.contextFor(sessionID, summary.info.parentID, summaryText(summary))
      } catch (e) {
        await g.log(`compact-guardian: could not restore after the compaction: ${e?.message ?? e}`)
      }
    },
  }
}

/** OpenCode 2's plugin (`default.setup`): the same work through V2's hooks (D095). A hook that
 * throws fails OpenCode's request, so every hook catches everything. */
async function setup(ctx) {
  const directory = ctx?.location?.directory ?? process.cwd()
  /** Each session's newest todo list seen in its context: the context ends at the last
   * compaction, and the list may have been written before it. */
  const todos = new Map()
  const g = guardian({
    directory,
    options: ctx?.options ?? {},
    // OpenCode 2 gives a server plugin no log or toast of its own: its stderr goes to OpenCode's log.
    log: async (message) => console.warn(message),
    toast: async () => {},
    exportSession: (sessionID) => exportV2(ctx, directory, sessionID, todos),
  })
  // A hook this OpenCode does not have costs that hook, not the plugin.
  const hook = async (name, fn) => {
    try {
      await ctx.session.hook(name, fn)
    } catch (e) {
      await g.log(`compact-guardian: OpenCode gave no ${name} hook (${e?.message ?? e}): compactions are NOT fully protected`)
    }
  }

  await hook("compaction", async (event) => {
    try {
      const sessionID = event?.sessionID
      if (!sessionID) return
      const parts = []
      // OpenCode 2's summarizer rewrites the earlier summary it is shown: the context of that
      // stretch (the snapshot and what the summary got wrong) goes with it. Asked before the
      // save, which takes a new snapshot.
      const earlier = checkpointIn(event.messages)
      if (earlier) parts.push(await g.contextFor(sessionID, earlier.id, earlier.summary))
      parts.push(await g.save(sessionID))
      addSystem(event, parts)
    } catch (e) {
      await g.log(`compact-guardian: this compaction was NOT protected: ${e?.message ?? e}`)
    }
  })

  await hook("context", async (event) => {
    try {
      // The agent's own requests only (the summarizer, titles and one-off generations have their
      // own hooks; a `kind` other than primary is one of those).
      if (!event?.sessionID || (event.kind !== undefined && event.kind !== "primary")) return
      const checkpoint = checkpointIn(event.messages)
      if (!checkpoint) return
      addSystem(event, [await g.contextFor(event.sessionID, checkpoint.id, checkpoint.summary)])
    } catch (e) {
      await g.log(`compact-guardian: the snapshot was not added to this request: ${e?.message ?? e}`)
    }
  })

  // Restored as soon as a compaction ends, so that the snapshot is bound to it however late the
  // next request comes (a manual compaction waits for the user, past the snapshot's ten minutes).
  let stopped = false
  const watch = async () => {
    for await (const event of ctx.event.subscribe()) {
      if (stopped) return
      if (!/(^|\.)compaction\.ended$|^session\.compacted$/.test(event?.type ?? "")) continue
      const sessionID = event?.data?.sessionID ?? event?.properties?.sessionID
      if (sessionID) bindNewest(ctx, g, sessionID).catch(() => {})
    }
  }
  if (typeof ctx?.event?.subscribe === "function") {
    watch().catch((e) => g.log(`compact-guardian: no longer watching compactions: ${e?.message ?? e}`))
  }
  return () => {
    stopped = true
  }
}

export default { id: ID, server: CompactGuardian, setup }

/** Adds each text of `texts` to a V2 request's system parts, once. */
function addSystem(event, texts) {
  if (!Array.isArray(event?.system)) return
  for (const text of texts) {
    if (typeof text === "string" && text && !event.system.some((p) => p?.text === text)) event.system.push({ type: "text", text })
  }
}

/** The compaction whose summary a V2 request carries: the id and summary of the last user
 * message OpenCode opens with its checkpoint (`<conversation-checkpoint>`, then `<summary>`). */
function checkpointIn(messages) {
  if (!Array.isArray(messages)) return null
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role !== "user") continue
    const text = contentText(m.content)
    if (!text.startsWith(CHECKPOINT)) continue
    const from = text.indexOf("<summary>\n")
    let to = text.indexOf("\n</summary>\n\n<recent-context>")
    if (to < 0) to = text.lastIndexOf("\n</summary>")
    if (from < 0 || to < from) return null
    const summary = text.slice(from + "<summary>\n".length, to).trim()
    return { id: typeof m.id === "string" && m.id ? m.id : `checkpoint-${hash(summary)}`, summary }
  }
  return null
}

/** The text of a V2 message's content: a string, or its text parts joined. */
function contentText(content) {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.filter((p) => p?.type === "text" && typeof p.text === "string").map((p) => p.text).join("")
}

/** A short, stable name for a text (FNV-1a), for a checkpoint that came without its id. */
function hash(text) {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16)
}

/** Binds a V2 session's newest compaction to its context, once it is finished (asked while it
 * still runs, an earlier compaction's restore would take the snapshot just saved for it). */
async function bindNewest(ctx, g, sessionID) {
  const newest = (await v2Context(ctx, sessionID)).findLast((m) => m?.type === "compaction")
  if (newest?.status === "completed" && newest.id) await g.contextFor(sessionID, newest.id, newest.summary)
}

/** A V2 session's context: its messages since its last compaction (`ctx.session.context`). */
async function v2Context(ctx, sessionID) {
  if (typeof ctx?.session?.context !== "function") throw new Error("OpenCode gave no session context (ctx.session.context)")
  const r = await ctx.session.context({ sessionID })
  const messages = Array.isArray(r) ? r : r?.data
  if (!Array.isArray(messages)) throw new Error("OpenCode did not list the session's context")
  return messages
}

/** Writes an OpenCode 1 session's newest part as an excerpt the binary reads; the caller removes
 * the folder. */
async function exportV1(client, directory, sessionID) {
  const started = Date.now()
  const newestFirst = []
  let bytes = 0
  let prompts = 0
  let before
  let complete = false
  let trigger
  let messages = 0
  let pages = 0
  for (;;) {
    const query = before ? { limit: PAGE, before } : { limit: PAGE }
    const r = await client.session.messages({ path: { id: sessionID }, query })
    if (!Array.isArray(r?.data)) throw new Error("OpenCode did not list the session's messages")
    pages++
    messages += r.data.length
    for (let i = r.data.length - 1; i >= 0; i--) {
      const m = r.data[i]
      const lines = messageLines(m)
      for (let j = lines.length - 1; j >= 0; j--) {
        newestFirst.push(lines[j])
        bytes += lines[j].length + 1
      }
      if (m?.info?.role === "user" && lines.some((l) => l.startsWith('{"opencode":"user"') && !l.includes('"synthetic":true'))) prompts++
      const compaction = m?.parts?.find((p) => p?.type === "compaction")
      if (compaction && trigger === undefined) trigger = compaction.auto ? "auto" : "manual"
    }
    before = r.response?.headers?.get?.("x-next-cursor")
    if (!before || r.data.length === 0) {
      complete = true
      break
    }
    if ((prompts >= WANTED_PROMPTS && bytes >= MIN_BYTES) || bytes >= MAX_BYTES) break
    if (Date.now() - started > DEADLINE_MS) break
  }
  let todos = null
  try {
    const t = await client.session.todo({ path: { id: sessionID } })
    if (Array.isArray(t?.data)) todos = t.data
  } catch {}
  const lines = newestFirst.reverse()
  if (todos) lines.push(JSON.stringify({ opencode: "todos", todos: todos.map((t) => ({ content: cut(t?.content, 1024), status: t?.status, priority: t?.priority })) }))
  const said = `excerpt of ${messages} messages (${pages} pages, ${prompts} typed prompts, ${bytes} bytes) in ${Date.now() - started} ms; ${complete ? "the whole session" : "stopped before its start"}`
  return { ...writeExcerpt(sessionID, directory, complete, lines), trigger, said }
}

/** Writes an OpenCode 2 session's context (everything since its last compaction, which OpenCode
 * keeps as that compaction's summary) as an excerpt, its newest MAX_BYTES at most. `todos` keeps
 * each session's newest todo list: a list written before the last compaction is given as the
 * oldest line, which any newer list in the context supersedes. */
async function exportV2(ctx, directory, sessionID, todos) {
  const started = Date.now()
  const messages = await v2Context(ctx, sessionID)
  const newestFirst = []
  let bytes = 0
  let listed = false
  for (let i = messages.length - 1; i >= 0 && bytes < MAX_BYTES; i--) {
    const lines = v2MessageLines(messages[i])
    for (let j = lines.length - 1; j >= 0; j--) {
      newestFirst.push(lines[j])
      bytes += lines[j].length + 1
    }
    const list = listed ? null : newestTodos(messages[i])
    if (list) {
      todos.set(sessionID, list)
      listed = true
    }
  }
  if (!listed && todos.has(sessionID)) newestFirst.push(JSON.stringify({ opencode: "todos", todos: todos.get(sessionID) }))
  const complete = bytes < MAX_BYTES
  const running = messages.findLast((m) => m?.type === "compaction" && m.status === "running")
  const trigger = running ? (running.reason === "auto" ? "auto" : "manual") : undefined
  const said = `excerpt of ${messages.length} messages of the context (${bytes} bytes) in ${Date.now() - started} ms`
  return { ...writeExcerpt(sessionID, directory, complete, newestFirst.reverse()), trigger, said }
}

/** Writes an excerpt (its header, then `lines`, oldest first) into a private temporary folder. */
function writeExcerpt(sessionID, directory, complete, lines) {
  const header = JSON.stringify({ opencode: "session", version: 1, session: sessionID, directory, complete })
  const dir = mkdtempSync(join(tmpdir(), "compact-guardian-"))
  const file = join(dir, "excerpt.jsonl")
  writeFileSync(file, [header, ...lines].join("\n") + "\n", { mode: 0o600 })
  return { dir, file }
}

/** The binary: the plugin option `binary`, $COMPACT_GUARDIAN_BIN, the one that installed this
 * file, then `compact-guardian` on PATH or in ~/.cargo/bin. */
function findBinary(options) {
  const exe = process.platform === "win32" ? ".exe" : ""
  const given = [options?.binary, process.env.COMPACT_GUARDIAN_BIN].find((b) => typeof b === "string" && b.trim())
  if (given) return given
  if (INSTALLED_BINARY && existsSync(INSTALLED_BINARY)) return INSTALLED_BINARY
  const onPath = typeof Bun !== "undefined" ? Bun.which("compact-guardian") : null
  if (onPath) return onPath
  const cargo = join(process.env.CARGO_HOME || join(homedir(), ".cargo"), "bin", `compact-guardian${exe}`)
  return existsSync(cargo) ? cargo : null
}

/** Runs `binary sub` with `input` as JSON on stdin: its stdout and stderr, or why it could not. */
function spawnJson(binary, sub, input) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(binary, [sub], {
        stdio: ["pipe", "pipe", "pipe"],
        // OpenCode's own mark: the binary keeps OpenCode sessions in OpenCode's data folder.
        env: { ...process.env, OPENCODE: "1" },
        windowsHide: true,
      })
    } catch (e) {
      resolve({ error: e?.message ?? String(e) })
      return
    }
    const out = []
    const err = []
    let done = false
    const finish = (r) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(r)
    }
    const answer = () => ({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })
    // When the time is up the binary is killed and the plugin answers with what came: "close"
    // waits for the pipes, which a grandchild (a wrapper script's) may hold open for ever.
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      child.stdout.destroy()
      child.stderr.destroy()
      finish(answer())
    }, RUN_TIMEOUT_MS)
    child.stdout.on("data", (d) => out.push(d))
    child.stderr.on("data", (d) => err.push(d))
    child.on("error", (e) => finish({ error: e?.message ?? String(e) }))
    child.on("close", () => finish(answer()))
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}

function parseAnswer(stdout) {
  if (!stdout?.trim()) return null
  try {
    return JSON.parse(stdout)
  } catch {
    return null
  }
}

/** One message as excerpt lines, oldest part first (the format: src/record/opencode.rs). */
function messageLines(m) {
  const info = m?.info
  const parts = Array.isArray(m?.parts) ? m.parts : []
  if (!info) return []
  const out = []
  const texts = (keep) => parts.filter((p) => p?.type === "text" && !p.ignored && typeof p.text === "string" && keep(p)).map((p) => p.text)
  if (info.role === "assistant" && info.summary === true) {
    // A compaction's summary: one boundary, once it finished.
    if (info.finish && !info.error) out.push({ opencode: "summary", message: info.id, text: cut(texts(() => true).join("\n\n"), TEXT_CHARS) })
    return out.map((o) => JSON.stringify(o))
  }
  if (info.role === "user") {
    const typed = texts((p) => !p.synthetic).join("\n\n")
    for (const p of parts) {
      if (p?.type === "compaction") out.push({ opencode: "compaction", message: info.id, auto: !!p.auto })
      if (p?.type === "text" && p.synthetic && !p.ignored && typeof p.text === "string") out.push({ opencode: "user", message: info.id, text: cut(p.text, TEXT_CHARS), synthetic: true })
    }
    if (typed.trim()) out.push({ opencode: "user", message: info.id, text: cut(typed, TEXT_CHARS), synthetic: false })
    return out.map((o) => JSON.stringify(o))
  }
  for (const p of parts) {
    if (p?.type === "text" && !p.ignored && !p.synthetic && typeof p.text === "string" && p.text.trim()) {
      out.push({ opencode: "assistant", message: info.id, text: cut(p.text, TEXT_CHARS) })
    } else if (p?.type === "tool") {
      const state = p.state ?? {}
      const input = {}
      for (const [k, max] of Object.entries(INPUT_KEYS)) if (typeof state.input?.[k] === "string") input[k] = cut(state.input[k], max)
      if (Array.isArray(state.input?.todos)) input.todos = state.input.todos.slice(0, 1000).map((t) => ({ content: cut(t?.content, 1024), status: t?.status }))
      out.push({
        opencode: "tool",
        message: info.id,
        call: p.callID,
        tool: p.tool,
        status: state.status,
        input,
        output: headAndTail(state.output),
        error: cut(state.error, 1024),
        exit: state.metadata?.exit,
      })
    }
  }
  return out.map((o) => JSON.stringify(o))
}

/** One OpenCode 2 context message (`ctx.session.context`) as excerpt lines, in OpenCode 1's
 * vocabulary, which the binary reads (src/read/record/opencode.rs): its shell is `bash`, its file
 * tools' `path` is `filePath`, a compaction is a compaction line and, once finished, its summary. */
function v2MessageLines(m) {
  const out = []
  const id = m?.id
  if (m?.type === "user" || m?.type === "synthetic") {
    if (typeof m.text === "string" && m.text.trim()) out.push({ opencode: "user", message: id, text: cut(m.text, TEXT_CHARS), synthetic: m.type === "synthetic" })
  } else if (m?.type === "compaction") {
    out.push({ opencode: "compaction", message: id, auto: m.reason === "auto" })
    if (m.status === "completed" && typeof m.summary === "string") out.push({ opencode: "summary", message: id, text: cut(m.summary, TEXT_CHARS) })
  } else if (m?.type === "shell") {
    // A command the user ran from the prompt (`!`): a shell run like the agent's.
    out.push({ opencode: "tool", message: id, call: id, tool: "bash", status: "completed", input: { command: cut(m.command, INPUT_KEYS.command) }, output: headAndTail(m.output?.output), exit: m.exit })
  } else if (m?.type === "assistant" && Array.isArray(m.content)) {
    for (const p of m.content) {
      if (p?.type === "text" && typeof p.text === "string" && p.text.trim()) out.push({ opencode: "assistant", message: id, text: cut(p.text, TEXT_CHARS) })
      else if (p?.type === "tool") out.push(v2ToolLine(id, p))
    }
  }
  return out.map((o) => JSON.stringify(o))
}

/** The todo list the newest `todowrite` call of a V2 message wrote, as an excerpt line holds it. */
function newestTodos(m) {
  if (m?.type !== "assistant" || !Array.isArray(m.content)) return null
  const call = m.content.findLast((p) => p?.type === "tool" && p.name === "todowrite" && Array.isArray(p.state?.input?.todos))
  return call ? call.state.input.todos.slice(0, 1000).map((t) => ({ content: cut(t?.content, 1024), status: t?.status })) : null
}

/** One OpenCode 2 tool part as an excerpt line. */
function v2ToolLine(message, p) {
  const state = p.state ?? {}
  const given = state.input && typeof state.input === "object" ? state.input : {}
  const input = {}
  for (const [k, max] of Object.entries(INPUT_KEYS)) if (typeof given[k] === "string") input[k] = cut(given[k], max)
  if (V2_PATH_TOOLS.has(p.name) && input.path !== undefined && input.filePath === undefined) {
    input.filePath = input.path
    delete input.path
  }
  if (Array.isArray(given.todos)) input.todos = given.todos.slice(0, 1000).map((t) => ({ content: cut(t?.content, 1024), status: t?.status }))
  const text = Array.isArray(state.content)
    ? state.content.map((c) => (c?.type === "text" && typeof c.text === "string" ? c.text : "")).filter(Boolean).join("\n")
    : undefined
  return {
    opencode: "tool",
    message,
    call: p.id,
    tool: V2_TOOLS[p.name] ?? p.name,
    status: state.status === "streaming" ? "pending" : state.status,
    input,
    output: headAndTail(text),
    error: cut(state.error?.message, 1024),
    // The shell's exit code: `structured` in earlier V2 contracts, `metadata` in later ones.
    exit: state.metadata?.exit ?? state.structured?.exit,
  }
}

/** The text of a summary message. */
function summaryText(m) {
  return (m?.parts ?? []).filter((p) => p?.type === "text" && typeof p.text === "string").map((p) => p.text.trim()).filter(Boolean).join("\n\n")
}

/** The message that carries the context, placed right after the summary. */
function injected(first, summary, text) {
  const id = `${summary.info.id}-compact-guardian`
  return {
    info: { ...first.info, id, time: { created: summary.info.time?.created ?? Date.now() } },
    parts: [{ id: `prt_${id.slice(4)}`, sessionID: first.info.sessionID, messageID: id, type: "text", text, synthetic: true }],
  }
}

/** At most `max` UTF-16 units of `s`, never splitting a surrogate pair; non-strings are dropped. */
function cut(s, max) {
  if (typeof s !== "string") return undefined
  if (s.length <= max) return s
  let end = max
  const c = s.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end--
  return s.slice(0, end)
}

/** A long output as its head, a line saying how much was left out, and its tail. */
function headAndTail(s) {
  if (typeof s !== "string") return undefined
  if (s.length <= OUTPUT_HEAD + OUTPUT_TAIL) return s
  let from = s.length - OUTPUT_TAIL
  const c = s.charCodeAt(from)
  if (c >= 0xdc00 && c <= 0xdfff) from++
  const head = cut(s, OUTPUT_HEAD)
  return `${head}\n[... ${s.length - head.length - (s.length - from)} characters left out ...]\n${s.slice(from)}`
}
