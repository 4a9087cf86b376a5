// Real Claude Code (`claude -p` stream-json, as the Agent SDK runs it) against the
// scripted model. The driver is the host: it writes the SDK's `initialize`, the user's
// `user` messages and its `control_request` / `control_response` lines on stdin, and
// every line in both directions is recorded (`host` / `cli`).
//
// Each scenario's expectation is written from the "Provider-Native Subagents" seed and
// from the ids the traffic showed (the root `session_id`, the `Agent` tool_use ids, the
// permission request ids), never from lineage's output. Turn ids are `<session>#<n>`; a
// child session id is its launching `Agent` tool_use id.

import fs from "node:fs";
import path from "node:path";
import { startModel } from "../../lib/model.mjs";
import { spawnPeer } from "../../lib/peer.mjs";

export const program = { name: "claude-code", package: "@anthropic-ai/claude-code", format: "claude-sdk" };

/** The flags the Agent SDK passes. */
const SDK_FLAGS = [
  "-p",
  "--output-format",
  "stream-json",
  "--verbose",
  "--input-format",
  "stream-json",
  "--permission-prompt-tool",
  "stdio",
  "--permission-mode",
  "default",
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** A gate a scripted model call awaits to keep its agent running (bounded). */
function gate(limitMs = 60_000) {
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  return { open: () => open(), wait: () => Promise.race([opened, sleep(limitMs)]) };
}

/** Every text of a message content (strings, text blocks, tool results). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (typeof b === "string" ? b : b?.type === "text" ? b.text : b?.type === "tool_result" ? textOf(b.content) : ""))
    .join("\n");
}

/** What one model request is: whose (`prompt`: its first user message), how far along. */
function about(req) {
  const messages = req.body.messages ?? [];
  const users = messages.filter((m) => m.role === "user");
  return {
    prompt: textOf(users[0]?.content),
    last: textOf(users.at(-1)?.content),
    replies: messages.filter((m) => m.role === "assistant").length,
    notified: textOf(users.at(-1)?.content).includes("<task-notification>"),
  };
}

function agent(description, prompt, background = false) {
  return { name: "Agent", input: { description, prompt, subagent_type: "general-purpose", run_in_background: background } };
}

/**
 * The run's native files (traces/real-native/claude-code/<scenario>/): the transcripts
 * under `~/.claude/projects/` (kept as `projects/`), and the raw lines of the pipes:
 * `stdout.jsonl` is the CLI's stdout byte for byte, `both.jsonl` every stdin and stdout
 * line in the order the host wrote and read them (the enveloped trace's order), no
 * envelope. Returns the peer's tap.
 */
function keepNative(ctx) {
  ctx.keep(".claude/projects", "projects");
  const stdout = path.join(ctx.native, "stdout.jsonl");
  const both = path.join(ctx.native, "both.jsonl");
  fs.writeFileSync(stdout, "");
  fs.writeFileSync(both, "");
  return {
    stdout: (chunk) => fs.appendFileSync(stdout, chunk),
    tap: (_direction, line) => fs.appendFileSync(both, line + "\n"),
  };
}

/** Notes what the native files lack: stdin lines, the root session's transcript, an agent task's subagent file. */
function noteTranscripts(ctx, seen) {
  if (!ctx.trace.records.some((r) => r.from === "host")) {
    ctx.note("The host wrote nothing on stdin (the prompt was on the command line): `both.jsonl` is `stdout.jsonl`.");
  }
  const projects = path.join(ctx.home, ".claude", "projects");
  const files = fs.existsSync(projects) ? fs.readdirSync(projects, { recursive: true }).map((f) => path.basename(f)) : [];
  for (const session of new Set(seen.filter((m) => m.type === "system" && m.subtype === "init").map((m) => m.session_id))) {
    if (!files.includes(`${session}.jsonl`)) ctx.note(`No transcript \`${session}.jsonl\` for the root session \`${session}\`.`);
  }
  const agents = new Set(seen.filter((m) => m.type === "system" && m.subtype === "task_started" && m.task_type === "local_agent").map((m) => m.task_id));
  if (!agents.size) ctx.note("The run started no agent task (no `task_started` with `task_type: local_agent`): there is no `subagents/` folder.");
  for (const id of agents) {
    if (!files.includes(`agent-${id}.jsonl`)) ctx.note(`Agent task \`${id}\` has no \`subagents/agent-${id}.jsonl\`.`);
    if (!files.includes(`agent-${id}.meta.json`)) ctx.note(`Agent task \`${id}\` has no \`subagents/agent-${id}.meta.json\`.`);
  }
}

/** Starts the model and the CLI; returns the host's handle. */
async function start(ctx, script, { args = SDK_FLAGS, answer = true, hooks = null } = {}) {
  const work = path.join(ctx.home, "work");
  fs.mkdirSync(work, { recursive: true });
  const native = keepNative(ctx);
  const model = await startModel(async (req) => (req.body.stream === false ? { text: "ok" } : script(req, about(req))));
  const peer = spawnPeer({
    cmd: ctx.bin("claude"),
    args,
    cwd: work,
    env: {
      HOME: ctx.home,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-lab-dummy",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
    },
    trace: ctx.trace,
    sent: "host",
    received: "cli",
    stderr: ctx.log("stderr.txt"),
    jsonrpc: false,
    tap: native.tap,
  });
  peer.child.stdout.on("data", native.stdout);
  const asks = [];
  let controls = 0;
  const host = {
    peer,
    model,
    asks,
    /** The host's answer to a permission request: allow, with the input unchanged. */
    allow(ask) {
      peer.send({
        type: "control_response",
        response: { subtype: "success", request_id: ask.request_id, response: { behavior: "allow", updatedInput: ask.request.input } },
      });
    },
    /** A host control request; resolves with its control_response. */
    control(request, ms = 30_000) {
      controls += 1;
      const request_id = `host_req_${controls}`;
      peer.send({ type: "control_request", request_id, request });
      return peer.waitFor((m) => m.type === "control_response" && m.response?.request_id === request_id, ms);
    },
    user(text) {
      peer.send({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" });
    },
    async session(ms = 30_000) {
      const init = await peer.waitFor((m) => m.type === "system" && m.subtype === "init", ms);
      return init.session_id;
    },
    /** The id of the `Agent` tool use with this description (from the root's stream). */
    async agent(description, ms = 60_000) {
      const hit = await peer.waitFor(
        (m) => m.type === "assistant" && (m.message?.content ?? []).some((b) => b.type === "tool_use" && b.input?.description === description),
        ms,
      );
      return hit.message.content.find((b) => b.type === "tool_use" && b.input?.description === description).id;
    },
    /** The `task_started` of a task, by its description. */
    task(description, ms = 60_000) {
      return peer.waitFor((m) => m.type === "system" && m.subtype === "task_started" && m.description === description, ms);
    },
    notification(taskId, ms = 60_000) {
      return peer.waitFor((m) => m.type === "system" && m.subtype === "task_notification" && m.task_id === taskId, ms);
    },
    async end() {
      await peer.stop();
      await model.close();
      noteTranscripts(ctx, peer.seen);
    },
  };
  peer.on((m) => {
    if (m.type === "control_request" && m.request?.subtype === "can_use_tool") {
      asks.push(m);
      if (answer) host.allow(m);
    }
    if (m.type === "control_request" && m.request?.subtype === "hook_callback") {
      peer.send({ type: "control_response", response: { subtype: "success", request_id: m.request_id, response: { continue: true } } });
    }
  });
  if (args === SDK_FLAGS) await host.control({ subtype: "initialize", hooks });
  return host;
}

/** Counts the results seen so far (the predicate above counts afresh). */
function resultCount(host) {
  return host.peer.seen.filter((m) => m.type === "result").length;
}

/** Waits until the CLI has written `n` results, polling what was seen. */
async function untilResults(host, n, ms = 90_000) {
  const until = Date.now() + ms;
  while (resultCount(host) < n) {
    if (Date.now() > until) throw new Error(`only ${resultCount(host)} of ${n} results in ${ms} ms`);
    if (host.peer.exited) throw new Error(`claude exited after ${resultCount(host)} results`);
    await sleep(50);
  }
}

/** A scenario: `body(ctx)` drives it and returns the expectation. */
function scenario(name, title, seed, body, timeoutMs = 150_000) {
  return {
    name,
    title,
    seed,
    timeoutMs,
    async run(ctx) {
      const expect = await body(ctx);
      return { header: { expect } };
    },
  };
}

/** The trace line (header = 1) of the first root `assistant` after the CLI's `n`th `result`, or null. */
function assistantAfterResult(records, n) {
  let results = 0;
  for (const [i, r] of records.entries()) {
    if (r.from !== "cli") continue;
    if (r.message.type === "result") results += 1;
    else if (results === n && r.message.type === "assistant" && r.message.parent_tool_use_id === null) return i + 2;
  }
  return null;
}

/**
 * A child (background or foreground) whose foreground grandchild asks permission (never
 * answered); the user interrupts while it is pending. The root-query interrupt covers
 * every Task execution of the query, nested ones included, and the CLI confirms each
 * (`task_notification` `stopped`): every turn ends canceled and the request superseded,
 * whatever order the confirmations come in.
 */
function nestedInterrupt(name, title, background) {
  return scenario(
    name,
    title,
    "003 Cancellation: User cancellation cancels the root turn and every child agent owned by that turn; pending interaction supersession … commit together",
    async (ctx) => {
      const host = await start(
        ctx,
        (req, a) => {
          if (req.child && a.prompt.includes("[B]")) return a.replies === 0 ? { calls: [{ name: "Bash", input: { command: "touch x", description: "create x" } }] } : { text: "Created x." };
          if (req.child) return a.replies === 0 ? { calls: [agent("create x", "[B] Create the file x with touch.")] } : { text: "Child: the grandchild created x." };
          if (a.notified) return { text: "The survey changed state." };
          return a.replies === 0 ? { calls: [agent("survey", "[A] Have a subagent create the file x.", background)] } : { text: "Done." };
        },
        { answer: false },
      );
      host.user("Have a subagent delegate creating the file x.");
      const root = await host.session();
      const a = await host.agent("survey");
      const nested = await host.task("create x");
      const ask = await host.peer.waitFor((m) => m.type === "control_request" && m.request?.subtype === "can_use_tool");
      if (background) await untilResults(host, 1);
      else if (resultCount(host) > 0) throw new Error("the root's result came before the interrupt");
      await host.control({ subtype: "interrupt" });
      await untilResults(host, 1);
      await sleep(3_000);
      await host.end();
      const b = nested.tool_use_id;
      return {
        turns: { [`${root}#1`]: "settled:canceled", [`${a}#1`]: "settled:canceled", [`${b}#1`]: "settled:canceled", [`${root}#2`]: "absent" },
        parents: { [a]: `${root}#1`, [b]: `${a}#1` },
        interactions: { [`${b}#1/${ask.request_id}`]: "superseded" },
        findings: [],
      };
    },
  );
}

const S = "003 Claude Code SDK Mapping";

export const scenarios = [
  scenario(
    "01-foreground-child",
    "one foreground child (Agent run_in_background false) answers; the root completes",
    `${S}: A foreground Task may settle its child turn from the terminal parent tool result`,
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child) return { text: "There are three files." };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files in the working directory.")] } : { text: "The subagent counted three files." };
      });
      host.user("Ask a subagent to count the files here.");
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 1);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "02-two-children",
    "two foreground children one after the other under the same root turn",
    `${S}: A parent Task tool use creates a subordinate WorkspaceAgentSession and a submitted child turn`,
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child) return { text: a.prompt.includes("[A]") ? "A: three files." : "B: no directories." };
        if (a.replies === 0) return { calls: [agent("count files", "[A] Count the files.")] };
        if (a.replies === 1) return { calls: [agent("count directories", "[B] Count the directories.")] };
        return { text: "Three files, no directories." };
      });
      host.user("Count files, then directories, each with a subagent.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      await untilResults(host, 1);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "03-parallel-children",
    "two foreground children launched in one assistant message run at the same time",
    "003 Validation: concurrent children; Claude Code SDK Mapping: taskId and agentId are aliases … never cross-bind concurrent children",
    async (ctx) => {
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await sleep(800);
          return { text: a.prompt.includes("[A]") ? "A: three files." : "B: no directories." };
        }
        if (a.replies === 0) return { calls: [agent("count files", "[A] Count the files."), agent("count directories", "[B] Count the directories.")] };
        return { text: "Both subagents answered." };
      });
      host.user("Count files and directories in parallel with two subagents.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      await untilResults(host, 1);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "04-nested-child",
    "a foreground child launches its own foreground child (a grandchild of the root)",
    `${S}: A nested Task tool call belongs to its parent child session/turn`,
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child && a.prompt.includes("[B]")) return { text: "Grandchild: three files." };
        if (req.child) return a.replies === 0 ? { calls: [agent("list files", "[B] List the files.")] } : { text: "Child: the grandchild listed three files." };
        return a.replies === 0 ? { calls: [agent("survey", "[A] Survey the directory, delegating the listing.")] } : { text: "Survey done." };
      });
      host.user("Survey this directory with a subagent that delegates the listing.");
      const root = await host.session();
      const a = await host.agent("survey");
      // A nested child streams only its task records: its launch id is task_started's.
      const nested = await host.task("list files");
      await untilResults(host, 1);
      await host.end();
      const b = nested.tool_use_id;
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
        parents: { [a]: `${root}#1`, [b]: `${a}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "05-child-permission",
    "a child's write (touch x) asks permission with its agent_id; the host allows it",
    "003 Session And Turn Semantics: Claude SDK permission callbacks running inside a child must preserve the callback agentID",
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child) return a.replies === 0 ? { calls: [{ name: "Bash", input: { command: "touch x", description: "create x" } }] } : { text: "Created x." };
        return a.replies === 0 ? { calls: [agent("create x", "Create the file x with touch.")] } : { text: "The subagent created x." };
      });
      host.user("Have a subagent create the file x.");
      const root = await host.session();
      const child = await host.agent("create x");
      await untilResults(host, 1);
      await host.end();
      const ask = host.asks[0];
      if (!ask?.request?.agent_id) throw new Error("the child's permission request carried no agent_id");
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed" },
        parents: { [child]: `${root}#1` },
        interactions: { [`${child}#1/${ask.request_id}`]: "answered" },
        findings: [],
      };
    },
  ),
  scenario(
    "06-child-fails",
    "a child's model call is refused (HTTP 400): the child fails, the root still completes",
    "003 Root Turn Lifecycle: A failed child turn does not automatically fail the root turn",
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child) return { status: 400, fail: "prompt is too long" };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.")] } : { text: "The subagent failed; I will count myself later." };
      });
      host.user("Ask a subagent to count the files.");
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 1);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:failed" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "07-background-continuation",
    "a background child outlives the root's result; its notification starts the CLI's follow-up model turn, which joins the same root turn",
    `${S}: A continuation caused by a child task notification is another root provider turn attached to the same canonical root WorkspaceAgentTurn`,
    async (ctx) => {
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await sleep(1_500);
          return { text: "Background: three files." };
        }
        if (a.notified) return { text: "The background subagent reports three files." };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Count the files with a background subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 2);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed", [`${root}#2`]: "absent" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "08-background-bash",
    "a run_in_background Bash is no child; when it exits the CLI's follow-up model turn is root output",
    `${S}: SDK task-system work that has no subagent identity — most importantly a run_in_background Bash shell — is tracked separately`,
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (a.notified) return { text: "The background command finished." };
        return a.replies === 0
          ? { calls: [{ name: "Bash", input: { command: "sleep 2; echo done", description: "wait two seconds", run_in_background: true } }] }
          : { text: "Started the command in the background." };
      });
      host.user("Run a two-second command in the background.");
      const root = await host.session();
      const launch = await host.peer.waitFor((m) => m.type === "assistant" && m.message?.content?.some((b) => b.name === "Bash"));
      const bash = launch.message.content.find((b) => b.name === "Bash").id;
      await untilResults(host, 2);
      await host.end();
      const interactions = Object.fromEntries(host.asks.map((ask) => [`${root}#1/${ask.request_id}`, "answered"]));
      return { turns: { [`${root}#1`]: "settled:completed", [`${root}#2`]: "absent" }, absent: [bash], interactions, findings: [] };
    },
  ),
  scenario(
    "09-interrupt-with-children",
    "the user interrupts the root while two foreground children run",
    "003 Cancellation: User cancellation cancels the root turn and every child agent owned by that turn",
    async (ctx) => {
      const hold = gate();
      let running = 0;
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          running += 1;
          await hold.wait();
          return { text: "late child answer" };
        }
        if (a.replies === 0) return { calls: [agent("count files", "[A] Count the files."), agent("count directories", "[B] Count the directories.")] };
        return { text: "Interrupted." };
      });
      host.user("Count files and directories in parallel with two subagents.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      while (running < 2) await sleep(50);
      await host.control({ subtype: "interrupt" });
      await untilResults(host, 1);
      hold.open();
      await sleep(500);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:canceled", [`${a}#1`]: "settled:canceled", [`${b}#1`]: "settled:canceled" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "10-stop-task",
    "stop_task stops one of two background children; the other completes and the CLI follows up",
    "003 Cancellation: A Claude child-only target set does not interrupt the root query … issues the SDK's targeted stopTask",
    async (ctx) => {
      const holdA = gate();
      const holdB = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await (a.prompt.includes("[A]") ? holdA : holdB).wait();
          return { text: a.prompt.includes("[A]") ? "A: late" : "B: no directories." };
        }
        if (a.notified) return { text: "A background subagent changed state." };
        return a.replies === 0
          ? { calls: [agent("count files", "[A] Count the files.", true), agent("count directories", "[B] Count the directories.", true)] }
          : { text: "Two background subagents started." };
      });
      host.user("Count files and directories with two background subagents.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      const taskA = (await host.task("count files")).task_id;
      await host.task("count directories");
      await untilResults(host, 1);
      await host.control({ subtype: "stop_task", task_id: taskA });
      await host.notification(taskA);
      const before = resultCount(host);
      await untilResults(host, before + 1, 30_000); // the CLI follows up on the stop
      holdB.open();
      await untilResults(host, before + 2); // and on B's completion
      holdA.open();
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:canceled", [`${b}#1`]: "settled:completed", [`${root}#2`]: "absent" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "11-stop-last-background-child",
    "stop_task stops the only background child after the root's result; the CLI's follow-up joins the same root turn",
    "003 Cancellation: An exact child-only cancel uses the same durable target contract without adding the root as a cancel target",
    async (ctx) => {
      const hold = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await hold.wait();
          return { text: "late" };
        }
        if (a.notified) return { text: "The background subagent was stopped." };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Count the files with a background subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      const task = (await host.task("count files")).task_id;
      await untilResults(host, 1);
      await host.control({ subtype: "stop_task", task_id: task });
      await host.notification(task);
      await untilResults(host, 2, 30_000);
      hold.open();
      await sleep(300);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:canceled", [`${root}#2`]: "absent" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "12-interrupt-during-permission",
    "the user interrupts the root while a child's permission request is pending",
    "003 Cancellation: pending interaction supersession … commit together; Root Turn Lifecycle: If a child approval … is pending",
    async (ctx) => {
      const host = await start(
        ctx,
        (req, a) => {
          if (req.child) return a.replies === 0 ? { calls: [{ name: "Bash", input: { command: "touch x", description: "create x" } }] } : { text: "Created x." };
          return a.replies === 0 ? { calls: [agent("create x", "Create the file x with touch.")] } : { text: "Done." };
        },
        { answer: false },
      );
      host.user("Have a subagent create the file x.");
      const root = await host.session();
      const child = await host.agent("create x");
      const ask = await host.peer.waitFor((m) => m.type === "control_request" && m.request?.subtype === "can_use_tool");
      await host.control({ subtype: "interrupt" });
      await untilResults(host, 1);
      await sleep(300);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:canceled", [`${child}#1`]: "settled:canceled" },
        parents: { [child]: `${root}#1` },
        interactions: { [`${child}#1/${ask.request_id}`]: "superseded" },
        findings: [],
      };
    },
  ),
  scenario(
    "13-guidance-while-children-run",
    "a second user message while a background child runs joins the same root turn",
    "003 Sending While Children Run: A new user message submitted while the root turn is active is appended to the same in-flight work",
    async (ctx) => {
      const hold = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await hold.wait();
          return { text: "Background: three files." };
        }
        if (a.notified) return { text: "The background subagent reports three files." };
        if (a.last.includes("Also")) return { text: "Noted: I will report the directories too." };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Count the files with a background subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 1);
      host.user("Also tell me about directories when it is done.");
      await untilResults(host, 2);
      hold.open();
      await untilResults(host, 3);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed", [`${root}#2`]: "absent" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "14-prompt-on-command-line",
    "the prompt is given on the command line (not echoed): the root turn opens from system/init and the first assistant",
    "003 Session And Turn Semantics: A root turn is initiated by a user submission and remains the user-visible turn",
    async (ctx) => {
      const host = await start(
        ctx,
        (req, a) => {
          if (req.child) return { text: "There are three files." };
          return a.replies === 0 ? { calls: [agent("count files", "Count the files in the working directory.")] } : { text: "The subagent counted three files." };
        },
        { args: ["-p", "--output-format", "stream-json", "--verbose", "Ask a subagent to count the files here."] },
      );
      host.peer.child.stdin.end();
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 1);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "15-hook-callback",
    "the host registers a PreToolUse hook; the CLI's hook_callback requests and the host's answers are control traffic, not interactions",
    "003 Session And Turn Semantics: Claude SDK permission callbacks … the Claude adapter resolves that alias (hook callbacks are no permission)",
    async (ctx) => {
      const host = await start(
        ctx,
        (req, a) => {
          if (req.child) return a.replies === 0 ? { calls: [{ name: "Bash", input: { command: "ls", description: "list files" } }] } : { text: "Listed." };
          return a.replies === 0 ? { calls: [agent("list files", "List the files.")] } : { text: "Listed." };
        },
        { hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"] }] } },
      );
      host.user("Have a subagent list the files.");
      const root = await host.session();
      const child = await host.agent("list files");
      await untilResults(host, 1);
      await host.end();
      const interactions = Object.fromEntries(host.asks.map((ask) => [`${child}#1/${ask.request_id}`, "answered"]));
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed" }, parents: { [child]: `${root}#1` }, interactions, findings: [] };
    },
  ),
  scenario(
    "16-follow-up-to-the-same-child",
    "after a foreground child answered, the root continues it with SendMessage: the same child session gets its next turn",
    "003 Session And Turn Semantics: A child turn is initiated by delegation from its parent turn or by later guidance sent to that same child session",
    async (ctx) => {
      let agentId = null;
      const host = await start(ctx, (req, a) => {
        if (req.child) return { text: a.last.includes("[again]") ? "Directories: none." : "Files: three." };
        if (a.replies === 0) return { calls: [agent("count files", "Count the files.")] };
        if (a.replies === 1) return { calls: [{ name: "ToolSearch", input: { query: "select:SendMessage", max_results: 1 } }] };
        if (a.replies === 2) return { calls: [{ name: "SendMessage", input: { to: agentId, message: "[again] Now count the directories." } }] };
        return { text: "Three files, no directories." };
      });
      host.user("Count the files with a subagent, then ask the same subagent about directories.");
      const root = await host.session();
      const child = await host.agent("count files");
      agentId = (await host.task("count files")).task_id;
      await untilResults(host, 1);
      // A continued agent may report back later (in the background): give it the time.
      await host.peer.waitFor((m) => m.type === "system" && m.subtype === "task_notification" && m.task_id === agentId && host.peer.seen.filter((x) => x.subtype === "task_notification" && x.task_id === agentId).length >= 2, 20_000).catch(() => {});
      if (host.peer.seen.filter((m) => m.type === "result").length < 2) await sleep(3_000);
      await host.end();
      // The continued agent's notification came while the root's provider turn was live,
      // so nothing was reserved for it: the root turn settles at its `result`. A follow-up
      // the CLI still runs for that notification speaks after the settlement and is
      // reported (`late-continuation`), not attached.
      const late = assistantAfterResult(ctx.trace.records, 1);
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed", [`${child}#2`]: "settled:completed" },
        parents: { [child]: `${root}#1` },
        findings: late === null ? [] : [`${late}:late-continuation`],
      };
    },
  ),
  scenario(
    "17-guidance-while-a-foreground-child-runs",
    "a second user message while a foreground child runs (the root's provider turn is live) joins the same root turn",
    "003 Sending While Children Run: Append/guide the root provider turn when one is active",
    async (ctx) => {
      const hold = gate();
      let running = false;
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          running = true;
          await hold.wait();
          return { text: "Files: three." };
        }
        if (a.replies === 0) return { calls: [agent("count files", "Count the files.")] };
        return { text: a.prompt.includes("directories") || req.text.includes("directories") ? "Three files; I noted the directories request." : "Three files." };
      });
      host.user("Count the files with a subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      while (!running) await sleep(50);
      host.user("Also mention the directories.");
      await sleep(500);
      hold.open();
      await untilResults(host, 1);
      await sleep(1_500); // a queued message may get a model turn of its own
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed", [`${root}#2`]: "absent" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "18-interrupt-with-background-children",
    "the user interrupts after the root's result while two background children still run",
    "003 Cancellation: Cancel stops the SDK root provider turn and every known child task/agent that the SDK can address",
    async (ctx) => {
      const hold = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await hold.wait();
          return { text: "late" };
        }
        if (a.notified) return { text: "A background subagent changed state." };
        return a.replies === 0
          ? { calls: [agent("count files", "[A] Count the files.", true), agent("count directories", "[B] Count the directories.", true)] }
          : { text: "Two background subagents started." };
      });
      host.user("Count files and directories with two background subagents.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      await host.task("count files");
      await host.task("count directories");
      await untilResults(host, 1);
      await host.control({ subtype: "interrupt" });
      await sleep(3_000);
      hold.open();
      await sleep(1_000);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:canceled", [`${a}#1`]: "settled:canceled", [`${b}#1`]: "settled:canceled" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "19-background-child-fails",
    "a background child's model call is refused after the root's result: the child fails, the CLI's follow-up joins the root turn, which completes",
    "003 Root Turn Lifecycle: A root turn may complete successfully while one or more child lanes visibly report failure",
    async (ctx) => {
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await sleep(1_000);
          return { status: 400, fail: "prompt is too long" };
        }
        if (a.notified) return { text: "The background subagent failed." };
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Count the files with a background subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      await untilResults(host, 2);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:failed", [`${root}#2`]: "absent" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),
  scenario(
    "20-stop-foreground-child",
    "stop_task stops a foreground child while the root's provider turn waits on it; the root goes on and completes",
    "003 Cancellation: A Claude child-only target set does not interrupt the root query … the root provider turn and every other task keep running",
    async (ctx) => {
      const hold = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await hold.wait();
          return { text: "late" };
        }
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.")] } : { text: "The subagent was stopped; I will count myself." };
      });
      host.user("Count the files with a subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      const task = (await host.task("count files")).task_id;
      await sleep(500);
      await host.control({ subtype: "stop_task", task_id: task });
      await untilResults(host, 1);
      hold.open();
      await sleep(300);
      await host.end();
      return { turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:canceled" }, parents: { [child]: `${root}#1` }, findings: [] };
    },
  ),

  scenario(
    "21-two-prompts",
    "a second user prompt after the first root turn's result opens the next root turn; each prompt launches a foreground child",
    "003 Session And Turn Semantics: A root turn is initiated by a user submission; Notification wait: a later user submission starts a new canonical root turn",
    async (ctx) => {
      const host = await start(ctx, (req, a) => {
        if (req.child) return { text: a.prompt.includes("[A]") ? "A: three files." : "B: no directories." };
        if (a.replies === 0) return { calls: [agent("count files", "[A] Count the files.")] };
        if (a.replies === 1) return { text: "Three files." };
        if (a.replies === 2) return { calls: [agent("count directories", "[B] Count the directories.")] };
        return { text: "No directories." };
      });
      host.user("Count the files with a subagent.");
      const root = await host.session();
      const a = await host.agent("count files");
      await untilResults(host, 1);
      host.user("Now count the directories with a subagent.");
      const b = await host.agent("count directories");
      await untilResults(host, 2);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${root}#2`]: "settled:completed", [`${b}#1`]: "settled:completed", [`${root}#3`]: "absent" },
        parents: { [a]: `${root}#1`, [b]: `${root}#2` },
        findings: [],
      };
    },
  ),
  nestedInterrupt(
    "22-interrupt-nested-after-result",
    "a background child's foreground grandchild holds a permission request after the root's result; the user interrupts",
    true,
  ),
  nestedInterrupt(
    "23-interrupt-nested-during-root-turn",
    "a foreground child's foreground grandchild holds a permission request while the root's provider turn is live; the user interrupts",
    false,
  ),
  scenario(
    "24-two-notifications-two-continuations",
    "two background children end one after the other; each notification gets its own follow-up model turn, both in the same root turn",
    `${S}: A continuation caused by a child task notification is another root provider turn attached to the same canonical root WorkspaceAgentTurn`,
    async (ctx) => {
      const holdB = gate();
      const holdFirst = gate();
      let continuations = 0;
      const host = await start(ctx, async (req, a) => {
        if (req.child && a.prompt.includes("[A]")) {
          await sleep(500);
          return { text: "A: three files." };
        }
        if (req.child) {
          await holdB.wait();
          return { text: "B: no directories." };
        }
        if (a.notified) {
          continuations += 1;
          if (continuations === 1) {
            holdB.open(); // B ends while the first follow-up is still live
            await holdFirst.wait();
            return { text: "A reported three files." };
          }
          return { text: "B reported no directories." };
        }
        return a.replies === 0
          ? { calls: [agent("count files", "[A] Count the files.", true), agent("count directories", "[B] Count the directories.", true)] }
          : { text: "Two background subagents started." };
      });
      host.user("Count files and directories with two background subagents.");
      const root = await host.session();
      const a = await host.agent("count files");
      const b = await host.agent("count directories");
      const taskB = (await host.task("count directories")).task_id;
      await untilResults(host, 1);
      await host.notification(taskB);
      holdFirst.open();
      await untilResults(host, 3, 60_000);
      await sleep(500);
      await host.end();
      if (continuations !== 2) throw new Error(`expected two follow-up model calls, saw ${continuations}`);
      // The seed's root gate: B ended while the first follow-up (a root provider turn) was
      // live, so no synthetic provider turn was reserved for it; when that follow-up's
      // `result` came every child was terminal, so the root turn settled completed there.
      // The second follow-up then speaks after the settlement: it opens no root turn and
      // reopens nothing, and what it said is reported, never dropped (lineage's
      // `late-continuation` note, at its first root `assistant` line).
      const second = assistantAfterResult(ctx.trace.records, 2);
      if (second === null) throw new Error("no root assistant after the second result");
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed", [`${root}#2`]: "absent" },
        parents: { [a]: `${root}#1`, [b]: `${root}#1` },
        findings: [`${second}:late-continuation`],
      };
    },
  ),
  scenario(
    "25-interrupt-during-the-notification-wait",
    "the only background child ended and its notification started the follow-up model call, which has not answered yet; the user interrupts",
    "003 Notification wait: Cancellation during the notification wait uses the existing root-query interrupt. It cancels the reserved synthetic provider turn … No timeout completion or late continuation may overwrite the canceled canonical outcome",
    async (ctx) => {
      const hold = gate();
      let waiting = false;
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await sleep(500);
          return { text: "Background: three files." };
        }
        if (a.notified) {
          waiting = true;
          await hold.wait();
          return { text: "late: the background subagent reports three files." };
        }
        return a.replies === 0 ? { calls: [agent("count files", "Count the files.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Count the files with a background subagent.");
      const root = await host.session();
      const child = await host.agent("count files");
      const task = (await host.task("count files")).task_id;
      await untilResults(host, 1);
      await host.notification(task);
      while (!waiting) await sleep(20);
      await host.control({ subtype: "interrupt" });
      await untilResults(host, 2, 30_000);
      hold.open();
      await sleep(1_000);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:canceled", [`${child}#1`]: "settled:completed", [`${root}#2`]: "absent" },
        parents: { [child]: `${root}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "26-background-child-permission-after-the-launch-result",
    "a background child asks permission (its agent_id the launch result returned) after the root's result; the host allows it",
    "003 Session And Turn Semantics: Claude SDK permission callbacks running inside a child must preserve the callback agentID as the provider agentId alias. The Claude adapter resolves that alias to the already-recorded child session and turn",
    async (ctx) => {
      const hold = gate();
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          if (a.replies === 0) {
            await hold.wait();
            return { calls: [{ name: "Bash", input: { command: "touch x", description: "create x" } }] };
          }
          return { text: "Created x." };
        }
        if (a.notified) return { text: "The background subagent created x." };
        return a.replies === 0 ? { calls: [agent("create x", "Create the file x with touch.", true)] } : { text: "Started a background subagent." };
      });
      host.user("Have a background subagent create the file x.");
      const root = await host.session();
      const child = await host.agent("create x");
      const launch = await host.peer.waitFor((m) => m.type === "user" && (m.message?.content ?? []).some?.((b) => b.type === "tool_result" && b.tool_use_id === child));
      await untilResults(host, 1);
      hold.open();
      await untilResults(host, 2, 60_000);
      await host.end();
      const ask = host.asks[0];
      if (!ask?.request?.agent_id) throw new Error("the child's permission request carried no agent_id");
      if (!JSON.stringify(launch).includes(ask.request.agent_id)) throw new Error(`the launch result does not name agent ${ask.request.agent_id}`);
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:completed", [`${root}#2`]: "absent" },
        parents: { [child]: `${root}#1` },
        interactions: { [`${child}#1/${ask.request_id}`]: "answered" },
        findings: [],
      };
    },
  ),
  scenario(
    "27-nested-background-grandchild",
    "a background child launches its own background grandchild; the grandchild's notification reaches the child, then the child's reaches the root",
    "003 Claude Code SDK Mapping: A nested Task tool call belongs to its parent child session/turn; Completion comes from child result, task notification, or SDK completion hooks",
    async (ctx) => {
      const host = await start(ctx, async (req, a) => {
        if (req.child && a.prompt.includes("[B]")) {
          await sleep(800);
          return { text: "Grandchild: three files." };
        }
        if (req.child) {
          if (a.notified) return { text: "Child: the grandchild counted three files." };
          return a.replies === 0 ? { calls: [agent("list files", "[B] List the files.", true)] } : { text: "Child: started a background grandchild." };
        }
        if (a.notified) return { text: "The survey is done." };
        return a.replies === 0 ? { calls: [agent("survey", "[A] Survey the directory, delegating the listing.", true)] } : { text: "Started a background survey." };
      });
      host.user("Survey this directory with a background subagent that delegates the listing.");
      const root = await host.session();
      const a = await host.agent("survey");
      const taskA = (await host.task("survey")).task_id;
      const nested = await host.task("list files");
      await host.notification(taskA, 90_000);
      await untilResults(host, 2, 60_000);
      await sleep(1_000);
      await host.end();
      const b = nested.tool_use_id;
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed", [`${root}#2`]: "absent" },
        parents: { [a]: `${root}#1`, [b]: `${a}#1` },
        findings: [],
      };
    },
  ),
  scenario(
    "28-model-stops-its-background-child",
    "the root's model stops its own background child with the TaskStop tool",
    "003 Claude Code SDK Mapping: Completion comes from child result, task notification, or SDK completion hooks",
    async (ctx) => {
      const hold = gate();
      let taskId = null;
      const host = await start(ctx, async (req, a) => {
        if (req.child) {
          await hold.wait();
          return { text: "late" };
        }
        if (a.notified) return { text: "The background subagent was stopped." };
        if (a.replies === 0) return { calls: [agent("count files", "Count the files.", true)] };
        if (a.replies === 1) return { calls: [{ name: "ToolSearch", input: { query: "select:TaskStop", max_results: 1 } }] };
        if (a.replies === 2) return { calls: [{ name: "TaskStop", input: { task_id: taskId } }] };
        return { text: "Stopped the background subagent." };
      });
      host.user("Start a background subagent to count the files, then stop it.");
      const root = await host.session();
      const child = await host.agent("count files");
      taskId = (await host.task("count files")).task_id;
      await untilResults(host, 1, 60_000);
      await sleep(3_000); // a notification of the stop may start a follow-up
      hold.open();
      await sleep(500);
      await host.end();
      return {
        turns: { [`${root}#1`]: "settled:completed", [`${child}#1`]: "settled:canceled", [`${root}#2`]: "absent" },
        parents: { [child]: `${root}#1` },
        findings: [],
      };
    },
  ),
];
