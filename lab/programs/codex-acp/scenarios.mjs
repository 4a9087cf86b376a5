// codex-acp (the ACP agent over its bundled Codex app-server) driven by
// lab/lib/acp-client.mjs, an ACP Client that advertises `subagents`, against the scripted
// Responses API model. Multi-agent v1 tools (namespace `multi_agent_v1`): the root calls
// `spawn_agent {message}`, then `wait_agent {targets}`. A child's model call carries the
// `x-openai-subagent` header; its task text carries a `[task:X]` marker the script reads.

import fs from "node:fs";
import path from "node:path";
import { AcpClient, gate, sleep } from "../../lib/acp-client.mjs";
import { startModel } from "../../lib/model.mjs";
import { codexConfig as config, outputs, spawnedIds, taskMarker as taskOf } from "../../lib/codex.mjs";

export const program = { name: "codex-acp", package: "@agentclientprotocol/codex-acp", format: "acp" };

const V1 = "multi_agent_v1";
const spawn = (task, text) => ({ name: "spawn_agent", namespace: V1, input: { message: `[task:${task}] ${text}` } });
const wait = (targets, timeout_ms = 120_000) => ({ name: "wait_agent", namespace: V1, input: { targets, timeout_ms } });
const escalated = {
  name: "exec_command",
  input: { cmd: "echo approved", sandbox_permissions: "require_escalated", justification: "needs to run outside the sandbox" },
};

/** A root that spawns each task in turn and waits for it (at most `waitMs`), then answers.
 *  Codex's wait_agent does not return when a child's turn is interrupted (it waits for the
 *  child's final status): the cancel scenarios wait 10 s and carry on after the timeout. */
function sequentialRoot(tasks, waitMs = 120_000) {
  return (req) => {
    const done = outputs(req).length;
    const step = Math.floor(done / 2);
    if (step >= tasks.length) return { text: "all delegated work is done" };
    if (done % 2 === 0) return { calls: [spawn(tasks[step], `part ${step + 1} of the job`)] };
    const ids = spawnedIds(req);
    return { calls: [wait([ids[ids.length - 1]], waitMs)] };
  };
}

/**
 * Runs `body.run(client, root, lab)` against codex-acp with a fresh CODEX_HOME and a new
 * session. `script(req, task)` is the model. `options`: config fields, `mode`
 * (INITIAL_AGENT_MODE), `holdPermission`.
 */
async function withAdapter(ctx, script, body, options = {}) {
  const lab = { gates: [] };
  const model = await startModel(async (req) => script(req, req.child ? taskOf(req) : null, lab));
  const codexHome = path.join(ctx.home, ".codex");
  const work = path.join(ctx.home, "work");
  fs.mkdirSync(codexHome, { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(codexHome, "config.toml"), config({ url: model.url, ...options }));
  const env = { HOME: ctx.home, CODEX_HOME: codexHome, MOCK_API_KEY: "lab", RUST_LOG: "warn" };
  if (options.mode) env.INITIAL_AGENT_MODE = options.mode;
  // `options.record`: the adapter runs behind `lineage record`, which writes this file;
  // `options.conductor`: behind the ACP conductor, whose `--trace` writes this file.
  const agent = ctx.bin("codex-acp");
  const [cmd, args] = options.record
    ? [ctx.lineage, ["record", "--format", "acp", "-o", options.record, "--", agent]]
    : options.conductor
      ? [conductorBin(), ["--trace", options.conductor, "agent", agent]]
      : [agent, []];
  const client = new AcpClient({
    trace: ctx.trace,
    cmd,
    args,
    env,
    cwd: work,
    stderr: ctx.log("stderr"),
    holdPermission: body.holdPermission,
  });
  try {
    const init = await client.connect();
    const { sessionId } = await client.request("session/new", { cwd: work, mcpServers: [] });
    const out = await body.run(client, sessionId, { work, model, lab, init });
    const early = client.workBeforeState();
    if (early.length) {
      // Not a finding of lineage's checker (a child may have background activity); what
      // the traffic showed, for the reader: see ARCHITECTURE.md, "Real ACP adapters".
      out.header.observed = {
        workBeforeState: early,
        rfd: "When the v1 Agent observes child foreground work starting, resuming, or stopping, it MUST report the corresponding running or idle state.",
      };
    }
    return out;
  } finally {
    for (const g of [...lab.gates, ...(body.gates ?? [])]) g.open();
    await client.disconnect({ record: false }).catch(() => {});
    ctx.trace.write(ctx.log("partial.jsonl"), { format: "acp" }); // for a failed run: lab/out only
    await model.close();
  }
}

/** Every announced child with its parent (the ids the traffic showed), the last `cwd` its
 *  association reported (a patch of the final revision, shown as sent), and `wanted`. */
function children(client, wanted = () => ({})) {
  const sessions = {};
  for (const [child, parent] of client.parents) {
    const cwd = client.peer.seen
      .filter((m) => m.params?.update?.sessionUpdate === "subagent_update" && m.params.update.sessionId === child)
      .filter((m) => m.params.update.cwd !== undefined)
      .map((m) => m.params.update.cwd)
      .pop();
    sessions[child] = { parent, ...(cwd === undefined ? {} : { cwd }), ...wanted(child) };
  }
  return sessions;
}

const idle = (stopReason) => ({ state: { state: "idle", stopReason }, activity: "idle" });
/** The header: the adapters send the final RFD revision's shapes (`spec`). An Agent-side
 *  subagent capability in the initialize response (line 3: header, request, response) is
 *  what the traffic showed, and the note `agent-subagent-capability` is expected there. */
const header = (init, expect, extra = {}) => {
  const advertised = init.agentCapabilities?.subagents ?? init.agentCapabilities?.sessionCapabilities?.subagents;
  const findings = advertised === undefined ? expect.findings : ["3:agent-subagent-capability", ...(expect.findings ?? [])];
  return { header: { protocolVersion: init.protocolVersion, spec: "final", expect: { ...expect, findings }, ...extra } };
};

/** The child announced with `[task:X]` in its description (codex-acp: the spawn prompt). */
async function childOf(client, task, ms = 60_000) {
  const m = await client.waitForChild((u) => typeof u.description === "string" && u.description.includes(`[task:${task}]`), ms);
  return m.params.update.sessionId;
}

/** A held child: its model call waits on `hold` (at most `ms`). */
const held = (hold, text, ms = 60_000) => async () => {
  await Promise.race([hold.promise, sleep(ms)]);
  return { text };
};

/** Resolves when `child`'s current `cancel` grant is an object. */
const granted = (client, child) =>
  client.waitFor((m) => m.params?.update?.sessionUpdate === "subagent_update" && m.params.update.sessionId === child && m.params.update.capabilities?.cancel);

/** One delegated job, child "A", that finishes; `adapterOptions` say how the adapter runs
 * (recorded through `lineage record`, or behind the conductor). */
const oneFinishedChild = (ctx, adapterOptions) => {
  const root = sequentialRoot(["A"]);
  const script = (req) => (req.child ? { text: "A finished: 1 2 3" } : root(req));
  return withAdapter(ctx, script, {
    run: async (client, r, { init }) => {
      await client.prompt(r, "Delegate one job to a helper.");
      await sleep(500);
      return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
    },
  }, adapterOptions);
};

export const scenarios = [
  {
    name: "01-one-child",
    title: "One child: the root spawns a child (spawn_agent), waits for it (wait_agent), then answers",
    seed: "Announcing and updating an association; Current work state (running, then idle end_turn)",
    run: (ctx) => {
      const root = sequentialRoot(["A"]);
      return withAdapter(ctx, (req) => (req.child ? { text: "A finished: 1 2 3" } : root(req)), {
        run: async (client, r, { init }) => {
          await client.prompt(r, "Delegate one job to a helper.");
          await sleep(500);
          return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
        },
      });
    },
  },
  {
    name: "02-two-children",
    title: "Two children at once: the root spawns A and B in one model response (each held until both started), waits for both, then answers",
    seed: "Announcing and updating an association; Automatic child event delivery (interleaved children)",
    run: (ctx) => {
      const both = gate();
      const started = new Set();
      const script = async (req, task) => {
        if (req.child) {
          started.add(task);
          if (started.size >= 2) both.open();
          await Promise.race([both.promise, sleep(20_000)]);
          return { text: `${task} finished its half` };
        }
        const outs = outputs(req).length;
        if (outs === 0) return { calls: [spawn("A", "left half"), spawn("B", "right half")] };
        if (outs === 2) return { calls: [wait(spawnedIds(req))] };
        return { text: "both halves are done" };
      };
      return withAdapter(ctx, script, {
        gates: [both],
        run: async (client, r, { init }) => {
          await client.prompt(r, "Split the job in two and run both halves at once.");
          await sleep(500);
          return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
        },
      });
    },
  },
  {
    name: "03-nested-child",
    title: "Nested child ([agents] max_depth = 2): the root spawns A, A spawns its own child B and waits for it; B answers, then A, then the root",
    seed: "Announcing and updating an association (nesting: the child's id as the outer sessionId, parent before child)",
    run: (ctx) => {
      const root = sequentialRoot(["A"]);
      const childA = sequentialRoot(["B"]);
      const script = (req, task) => (!req.child ? root(req) : task === "A" ? childA(req) : { text: "B finished" });
      return withAdapter(
        ctx,
        script,
        {
          run: async (client, r, { init }) => {
            await client.prompt(r, "Delegate a job that itself needs a helper.");
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
          },
        },
        { maxDepth: 2 },
      );
    },
  },
  {
    name: "04-child-permission",
    title: "Permission from a child (INITIAL_AGENT_MODE=workspace-write): child A runs exec_command with require_escalated; the Client is asked on A's session and allows; A answers, the root answers",
    seed: "Automatic child event delivery (children may use permission requests); Announcing (announcement before any request bearing the child's id)",
    run: (ctx) => {
      const root = sequentialRoot(["A"]);
      const script = (req) => (!req.child ? root(req) : outputs(req).length ? { text: "A ran the command" } : { calls: [escalated] });
      return withAdapter(
        ctx,
        script,
        {
          run: async (client, r, { init }) => {
            await client.prompt(r, "Have a helper run a command outside the sandbox.");
            await sleep(500);
            const asked = client.permissions.map((p) => p.params.sessionId);
            return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) }, { permissionSessions: asked });
          },
        },
        { mode: "workspace-write" },
      );
    },
  },
  {
    name: "05-child-cancel",
    title: "Per-child session/cancel: child A is held running until codex-acp grants it capabilities.cancel; the Client cancels A; A reports idle cancelled; the root's wait_agent times out (Codex waits for a final status, not for an interrupted turn) and the root answers",
    seed: "Cancellation and resource ownership (cancel of a child with capabilities.cancel; confirmation by idle cancelled; the parent is not cancelled)",
    run: (ctx) => {
      const hold = gate();
      const root = sequentialRoot(["A"], 10_000);
      return withAdapter(ctx, (req) => (req.child ? held(hold, "A finished (too late)")() : root(req)), {
        gates: [hold],
        run: async (client, r, { init }) => {
          const done = client.prompt(r, "Start a long job in a helper.");
          const a = await childOf(client, "A");
          await granted(client, a);
          await sleep(1_000);
          client.cancel(a);
          await client.waitForIdle(a, 30_000, { fresh: false });
          const result = await done;
          hold.open();
          await sleep(500);
          return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
        },
      });
    },
  },
  {
    name: "06-root-cancel",
    title: "Root cancel: child A is held running; the Client cancels the root session; the prompt ends cancelled and A reports idle cancelled",
    seed: "Cancellation and resource ownership (cancelling a parent cascades to its active descendants)",
    run: (ctx) => {
      const hold = gate();
      const root = sequentialRoot(["A"]);
      return withAdapter(ctx, (req) => (req.child ? held(hold, "A finished (too late)")() : root(req)), {
        gates: [hold],
        run: async (client, r, { init }) => {
          const done = client.prompt(r, "Start a long job in a helper.");
          const a = await childOf(client, "A");
          await granted(client, a);
          await sleep(1_000);
          client.cancel(r);
          const result = await done;
          await client.waitForIdle(a, 30_000, { fresh: false });
          hold.open();
          await sleep(500);
          return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
        },
      });
    },
  },
  {
    name: "07-load-after-restart",
    title: "session/load after a restart: one child runs to idle; the Client disconnects, starts a new adapter process, initializes and loads the root; the replay carries the child's association before the response",
    seed: "Reconnection and replay (replayed associations precede child traffic; snapshots before the response are historical; controls start disabled)",
    run: (ctx) => {
      const root = sequentialRoot(["A"]);
      return withAdapter(ctx, (req) => (req.child ? { text: "A finished: 1 2 3" } : root(req)), {
        run: async (client, r, { work }) => {
          await client.prompt(r, "Delegate one job to a helper.");
          await sleep(500);
          const live = new Map(client.parents);
          const again = await client.restart();
          await client.load(r, work);
          await sleep(1_000);
          const sessions = client.reloaded(live);
          return header(again, { findings: [], connection: "connected", sessions });
        },
      });
    },
  },
  {
    name: "08-cancel-during-permission",
    title: "Cancel a child while its permission request is pending (workspace-write): child A asks to run an escalated command; the Client keeps the request open, cancels A and answers the request cancelled; A reports idle cancelled; the root answers",
    seed: "Pending permission and elicitation requests (the Client answers the cancelled work's pending requests cancelled); Cancellation (idle cancelled confirms)",
    run: (ctx) => {
      const root = sequentialRoot(["A"], 10_000);
      const script = (req) => (!req.child ? root(req) : outputs(req).length ? { text: "A is done" } : { calls: [escalated] });
      return withAdapter(
        ctx,
        script,
        {
          holdPermission: () => true,
          run: async (client, r, { init }) => {
            const done = client.prompt(r, "Have a helper run a command outside the sandbox.");
            const ask = await client.waitFor((m) => m.method === "session/request_permission", 60_000);
            const a = ask.params.sessionId;
            await sleep(500);
            client.cancel(a);
            await client.waitForIdle(a, 30_000, { fresh: false });
            const result = await done;
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
          },
        },
        { mode: "workspace-write" },
      );
    },
  },
  {
    name: "09-child-fails",
    title: "A child fails: child A's model call fails (response.failed); A reports idle with stopReason error and an error object (defined from the 2026-10-01 revision); the root's wait returns and the root answers",
    seed: "Current work state (a failure that ends a child's foreground work: idle, the association stays); Cancellation (completing or failing one operation does not close the session or fail its parent)",
    run: (ctx) => {
      const root = sequentialRoot(["A"], 10_000);
      return withAdapter(ctx, (req) => (req.child ? { fail: "overloaded (scripted)" } : root(req)), {
        run: async (client, r, { init }) => {
          const result = await client.prompt(r, "Delegate a job that will fail.");
          await sleep(500);
          const stop = (child) => {
            const m = client.peer.seen.filter((x) => x.params?.update?.sessionId === child && x.params.update.state).pop();
            return { parent: client.parents.get(child), activity: "idle", state: m?.params.update.state };
          };
          const sessions = {};
          for (const child of client.parents.keys()) sessions[child] = stop(child);
          return header(init, { findings: [], sessions }, { rootStopReason: result.stopReason });
        },
      });
    },
  },
  {
    name: "10-follow-up-same-child",
    title: "Two assignments to the same child: the root spawns A and waits, then sends A a follow-up (send_input) and waits again, then answers",
    seed: "Validation scenarios #1 (send two assignments to the same child conversation: keep its ACP session ID and allow running → idle → running); Current work state",
    run: (ctx) => {
      let answers = 0;
      const script = (req) => {
        if (req.child) {
          answers += 1;
          return { text: `A answer ${answers}` };
        }
        const outs = outputs(req).length;
        const [a] = spawnedIds(req);
        if (outs === 0) return { calls: [spawn("A", "first part")] };
        if (outs === 1 || outs === 3) return { calls: [wait([a])] };
        if (outs === 2) return { calls: [{ name: "send_input", namespace: V1, input: { target: a, message: "[task:A] the second part" } }] };
        return { text: "both parts are done" };
      };
      return withAdapter(ctx, script, {
        run: async (client, r, { init }) => {
          await client.prompt(r, "Give a helper two parts of a job, one after the other.");
          await sleep(500);
          return header(init, {
            findings: [],
            sessions: children(client, () => ({ ...idle("end_turn"), idleTransitions: 2 })),
          });
        },
      });
    },
  },
  {
    name: "11-nested-cancel",
    title: "Cancel a child with a nested child ([agents] max_depth = 2): the root spawns A, A spawns B and waits; B is held running; the Client cancels A (granted); A and the descendant work it waits on (B) report idle cancelled; the root's wait times out and the root answers",
    seed: "Cancellation and resource ownership (cancel of a child cancels current work in that child and its active descendants, not its parent); Validation scenarios #8",
    run: (ctx) => {
      const hold = gate();
      const root = sequentialRoot(["A"], 10_000);
      const childA = sequentialRoot(["B"], 10_000);
      const script = (req, task) => (!req.child ? root(req) : task === "A" ? childA(req) : held(hold, "B finished (too late)")());
      return withAdapter(
        ctx,
        script,
        {
          gates: [hold],
          run: async (client, r, { init }) => {
            const done = client.prompt(r, "Delegate a job that itself needs a helper.");
            const a = await childOf(client, "A");
            const b = await childOf(client, "B");
            await granted(client, a);
            await client.waitFor((m) => m.params?.update?.sessionId === b && m.params.update.state?.state === "running");
            await sleep(1_000);
            client.cancel(a);
            await client.waitForIdle(a, 30_000, { fresh: false });
            await client.waitForIdle(b, 30_000, { fresh: false });
            const result = await done;
            hold.open();
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
          },
        },
        { maxDepth: 2 },
      );
    },
  },
  {
    name: "12-one-child-through-lineage-record",
    title: "One child, with the adapter run behind `lineage record` (the editor's agent command): the Client's and the adapter's bytes pass unchanged and lineage's own trace holds the same messages",
    seed: "lineage record: a transparent stdio proxy; Announcing and updating an association",
    run: async (ctx) => {
      const recorded = path.join(ctx.out, "lineage-record", "codex-acp-one-child.jsonl");
      fs.mkdirSync(path.dirname(recorded), { recursive: true });
      const out = await oneFinishedChild(ctx, { record: recorded });
      sameMessages(ctx.trace.records, fs.readFileSync(recorded, "utf8"));
      out.header.lineageRecord = "traces/real/lineage-record/codex-acp-one-child.jsonl: the same messages, the Client's lines byte for byte";
      return out;
    },
  },
  {
    name: "13-one-child-through-the-acp-conductor",
    title: "One child, with the adapter run behind the ACP conductor (agent-client-protocol-conductor 5.0.0 --trace, no proxy): the conductor's trace of the same run is kept as a native file",
    seed: "Native inputs: the ACP conductor's --trace events; Announcing and updating an association",
    run: async (ctx) => {
      const traced = path.join(ctx.native, "conductor-trace.jsons");
      const out = await oneFinishedChild(ctx, { conductor: traced });
      if (!fs.existsSync(traced) || !fs.readFileSync(traced, "utf8").trim()) throw new Error("the conductor wrote no trace");
      ctx.note("`conductor-trace.jsons`: what `agent-client-protocol-conductor --trace` wrote for this run (the Client's peer wrote `traces/real/codex-acp/13-…`).");
      out.header.conductor = { package: "agent-client-protocol-conductor", version: "5.0.0", trace: "traces/real-native/codex-acp/13-one-child-through-the-acp-conductor/conductor-trace.jsons" };
      return out;
    },
  },
];

/** The ACP conductor (`cargo install agent-client-protocol-conductor --version 5.0.0
 *  --root lab/.tools`, as lab/record does): ACP_CONDUCTOR, else lab/.tools. */
function conductorBin() {
  const here = path.dirname(new URL(import.meta.url).pathname);
  return process.env.ACP_CONDUCTOR ?? path.join(here, "..", "..", ".tools", "bin", "agent-client-protocol-conductor");
}

/** Throws unless lineage's trace holds the messages the Client sent and received, in
 *  order per direction: the Client's lines byte for byte as it wrote them, the agent's
 *  as the same JSON values. */
function sameMessages(clientRecords, lineageText) {
  const lines = lineageText.split("\n").filter((l) => l.trim()).slice(1);
  const theirs = lines.map((l) => {
    const start = l.indexOf('"message":') + '"message":'.length;
    const end = l.lastIndexOf(',"at":');
    return { from: JSON.parse(l).from, text: l.slice(start, end) };
  });
  for (const from of ["client", "agent"]) {
    const ours = clientRecords.filter((r) => r.from === from && r.message !== undefined);
    const seen = theirs.filter((r) => r.from === from);
    if (ours.length !== seen.length) throw new Error(`${from}: ${ours.length} messages, lineage recorded ${seen.length}`);
    ours.forEach((r, i) => {
      const same = from === "client"
        ? JSON.stringify(r.message) === seen[i].text
        : JSON.stringify(r.message) === JSON.stringify(JSON.parse(seen[i].text));
      if (!same) throw new Error(`${from} message ${i} differs: ${JSON.stringify(r.message)} vs ${seen[i].text}`);
    });
  }
}
