// claude-agent-acp (the ACP agent over the Claude Agent SDK) driven by lab/lib/acp-client.mjs,
// an ACP Client that advertises `subagents`, against the scripted Messages API model.
// The delegate tool on the wire is `Agent` (`run_in_background: false` for a foreground
// child); a child's model call carries `cc_is_subagent=true` in its system prompt.

import fs from "node:fs";
import path from "node:path";
import { AcpClient, gate, sleep } from "../../lib/acp-client.mjs";
import { startModel } from "../../lib/model.mjs";

export const program = { name: "claude-agent-acp", package: "@agentclientprotocol/claude-agent-acp", format: "acp" };

const agent = (description, prompt, background = false) => ({
  name: "Agent",
  input: { description, prompt, subagent_type: "general-purpose", run_in_background: background },
});
const bash = (command, description) => ({ name: "Bash", input: { command, description } });

/** The environment and files one run needs: a fresh HOME, the model on loopback. */
function setup(ctx, model) {
  const work = path.join(ctx.home, "work");
  fs.mkdirSync(path.join(ctx.home, ".claude"), { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(
    path.join(ctx.home, ".claude", "settings.json"),
    JSON.stringify({ permissions: { defaultMode: "default" } }),
  );
  const env = {
    HOME: ctx.home,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "sk-ant-lab-dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    // The lab runs as root (for `unshare -n`); the Claude CLI refuses root unless told
    // it is sandboxed, which the loopback-only namespace and the fresh HOME are.
    IS_SANDBOX: "1",
  };
  return { work, env };
}

/** Runs `body(client, session, model)` against a connected adapter with a fresh session. */
async function withAdapter(ctx, script, body) {
  const model = await startModel(script);
  const { work, env } = setup(ctx, model);
  const client = new AcpClient({
    trace: ctx.trace,
    cmd: ctx.bin("claude-agent-acp"),
    env,
    cwd: work,
    stderr: ctx.log("stderr"),
    holdPermission: body.holdPermission,
  });
  try {
    const init = await client.connect();
    const { sessionId } = await client.request("session/new", { cwd: work, mcpServers: [] });
    const out = await body.run(client, sessionId, { work, model, init });
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
    for (const g of body.gates ?? []) g.open();
    await client.disconnect({ record: false }).catch(() => {});
    ctx.trace.write(ctx.log("partial.jsonl"), { format: "acp" }); // for a failed run: lab/out only
    await model.close();
  }
}

/** The `[task:X]` marker of a child's own task (its first user message), or null. */
function taskOf(req) {
  const first = req.body.messages?.[0];
  const m = /\[task:(\w+)\]/.exec(JSON.stringify(first?.content ?? ""));
  return m ? m[1] : null;
}

/** How many tool results this request carries (what the agent's tools answered so far). */
function results(req) {
  let n = 0;
  for (const m of req.body.messages ?? []) {
    if (Array.isArray(m.content)) n += m.content.filter((b) => b.type === "tool_result").length;
  }
  return n;
}

/** The model's script: `child(req, task)` for subagent calls, `root(req)` for the root. */
const script = (root, child) => (req) => (req.child ? child(req, taskOf(req)) : root(req));

/** Every announced child with its parent (the ids the traffic showed) and `wanted` fields. */
function children(client, wanted = () => ({})) {
  const sessions = {};
  for (const [child, parent] of client.parents) sessions[child] = { parent, ...wanted(child) };
  return sessions;
}

/** The child whose announcement carries `title` (the `Agent` call's `description`). */
async function childTitled(client, title, ms = 60_000) {
  const m = await client.waitForChild((u) => u.title === title, ms);
  return m.params.update.sessionId;
}

const idle = (stopReason) => ({ state: { state: "idle", stopReason }, activity: "idle" });

/** The header every scenario returns: protocol version and the expectation. */
/** The header: the adapters send the final RFD revision's shapes (`spec`). An Agent-side
 *  subagent capability in the initialize response (line 3: header, request, response) is
 *  what the traffic showed, and the note `agent-subagent-capability` is expected there. */
const header = (init, expect, extra = {}) => {
  const advertised = init.agentCapabilities?.subagents ?? init.agentCapabilities?.sessionCapabilities?.subagents;
  const findings = advertised === undefined ? expect.findings : ["3:agent-subagent-capability", ...(expect.findings ?? [])];
  return { header: { protocolVersion: init.protocolVersion, spec: "final", expect: { ...expect, findings }, ...extra } };
};

export const scenarios = [
  {
    name: "01-one-child",
    title: "One foreground child: the root delegates with Agent, the child answers, the root ends its turn",
    seed: "Announcing and updating an association; Current work state (running, then idle end_turn)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "Done: the child found nothing." } : { calls: [agent("Look around", "[task:A] Look around and report.")] }),
          () => ({ text: "A looked: nothing to fix." }),
        ),
        {
          run: async (client, root, { init }) => {
            await client.prompt(root, "Delegate a look around to a subagent.");
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
          },
        },
      ),
  },
  {
    name: "02-two-children",
    title: "Two foreground children in one model response (A and B run at once, each held until both started); the root answers after both",
    seed: "Announcing and updating an association; Automatic child event delivery (interleaved children)",
    run: (ctx) => {
      const both = gate();
      const started = new Set();
      return withAdapter(
        ctx,
        script(
          (req) =>
            results(req) >= 2
              ? { text: "Both halves are done." }
              : { calls: [agent("Left half", "[task:A] Do the left half."), agent("Right half", "[task:B] Do the right half.")] },
          async (req, task) => {
            started.add(task);
            if (started.size >= 2) both.open();
            await Promise.race([both.promise, sleep(20_000)]);
            return { text: `${task} finished its half.` };
          },
        ),
        {
          gates: [both],
          run: async (client, root, { init }) => {
            await client.prompt(root, "Split the job in two and run both halves at once.");
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
          },
        },
      );
    },
  },
  {
    name: "03-child-permission",
    title: "Permission from a child: child A runs a write (touch) with Bash; the Client is asked on A's session and allows; A answers, the root answers",
    seed: "Automatic child event delivery (children may use permission requests); Announcing (announcement before any request bearing the child's id)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "The file is there." } : { calls: [agent("Make a file", "[task:A] Create the file made-by-a.")] }),
          (req) => (results(req) ? { text: "A created the file." } : { calls: [bash("touch made-by-a", "Create a file")] }),
        ),
        {
          run: async (client, root, { init }) => {
            await client.prompt(root, "Have a subagent create a file.");
            await sleep(500);
            const asked = client.permissions.map((p) => p.params.sessionId);
            return header(
              init,
              { findings: [], sessions: children(client, () => idle("end_turn")) },
              { permissionSessions: asked },
            );
          },
        },
      ),
  },
  {
    name: "04-child-cancel",
    title: "Per-child session/cancel: child A is granted capabilities.cancel and held running (its model call is held open); the Client cancels A; A reports idle cancelled; the root goes on and ends its turn",
    seed: "Cancellation and resource ownership (cancel of a child with capabilities.cancel; confirmation by idle cancelled; the parent is not cancelled)",
    run: (ctx) => {
      const hold = gate();
      return withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "A was stopped; I carry on." } : { calls: [agent("Long job", "[task:A] Work on the long job.")] }),
          async () => {
            await Promise.race([hold.promise, sleep(60_000)]);
            return { text: "A finished (too late)." };
          },
        ),
        {
          gates: [hold],
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Start a long job in a subagent.");
            const a = await childTitled(client, "Long job");
            await client.waitFor((m) => m.params?.update?.sessionId === a && m.params.update.capabilities?.cancel);
            await sleep(1_000);
            client.cancel(a);
            await client.waitForIdle(a, 30_000, { fresh: false });
            hold.open();
            const result = await done;
            await sleep(500);
            return header(init, {
              findings: [],
              sessions: { [root]: { kind: "root" }, ...children(client, () => idle("cancelled")) },
            }, { rootStopReason: result.stopReason });
          },
        },
      );
    },
  },
  {
    name: "05-root-cancel",
    title: "Root cancel: child A is held running; the Client cancels the root session; the prompt ends cancelled and the foreground child reports idle cancelled",
    seed: "Cancellation and resource ownership (cancelling a parent cascades to its active descendants)",
    run: (ctx) => {
      const hold = gate();
      return withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "unexpected" } : { calls: [agent("Long job", "[task:A] Work on the long job.")] }),
          async () => {
            await Promise.race([hold.promise, sleep(60_000)]);
            return { text: "A finished (too late)." };
          },
        ),
        {
          gates: [hold],
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Start a long job in a subagent.");
            const a = await childTitled(client, "Long job");
            await client.waitFor((m) => m.params?.update?.sessionId === a && m.params.update.state?.state === "running");
            await sleep(1_000);
            client.cancel(root);
            const result = await done;
            await client.waitForIdle(a, 30_000, { fresh: false });
            hold.open();
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
          },
        },
      );
    },
  },
  {
    name: "06-cancel-during-permission",
    title: "Cancel a child while its permission request is pending: child A asks to run a write; the Client keeps the request open, cancels A, and answers the request cancelled; A reports idle cancelled; the root ends its turn",
    seed: "Pending permission and elicitation requests (the Client answers the cancelled work's pending requests cancelled); Cancellation (idle cancelled confirms)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "A was stopped." } : { calls: [agent("Make a file", "[task:A] Create the file made-by-a.")] }),
          (req) => (results(req) ? { text: "A is done." } : { calls: [bash("touch made-by-a", "Create a file")] }),
        ),
        {
          holdPermission: () => true,
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Have a subagent create a file.");
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
      ),
  },
  {
    name: "07-load-after-restart",
    title: "session/load after a restart: one child runs to idle; the Client disconnects, starts a new adapter process, initializes and loads the root; the replay carries the child's association and history before the response",
    seed: "Reconnection and replay (replayed associations precede child traffic; snapshots before the response are historical; controls start disabled)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "Done: the child found nothing." } : { calls: [agent("Look around", "[task:A] Look around and report.")] }),
          () => ({ text: "A looked: nothing to fix." }),
        ),
        {
          run: async (client, root, { init, work }) => {
            await client.prompt(root, "Delegate a look around to a subagent.");
            await sleep(500);
            const live = new Map(client.parents);
            const again = await client.restart();
            await client.load(root, work);
            await sleep(1_000);
            const sessions = client.reloaded(live);
            return header(again, { findings: [], connection: "connected", sessions });
          },
        },
      ),
  },
  {
    name: "08-nested-child",
    title: "Nested child: child A is asked to delegate to its own child B with Agent",
    seed: "Announcing and updating an association (nesting: the child's id as the outer sessionId)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "The chain is done." } : { calls: [agent("Coordinator", "[task:A] Delegate to a helper.")] }),
          (req, task) => {
            if (task === "B") return { text: "B finished." };
            return results(req) ? { text: "A finished after B." } : { calls: [agent("Helper", "[task:B] Help A.")] };
          },
        ),
        {
          run: async (client, root, { init }) => {
            await client.prompt(root, "Delegate a job that itself needs a helper.");
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("end_turn")) });
          },
        },
      ),
  },
  {
    name: "09-child-fails",
    title: "A child fails: child A's model call fails (an API error event); A reports idle with stopReason error and an error object (defined from the 2026-10-01 revision), the root answers",
    seed: "Current work state (a failure that ends a child's foreground work: idle, the association stays); Cancellation (completing or failing one operation does not close the session or fail its parent)",
    run: (ctx) =>
      withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "The child failed; I report it." } : { calls: [agent("Fragile job", "[task:A] Try the fragile job.")] }),
          () => ({ fail: "overloaded (scripted)" }),
        ),
        {
          run: async (client, root, { init }) => {
            const result = await client.prompt(root, "Delegate a job that will fail.");
            await sleep(500);
            const stop = (child) => {
              const m = client.peer.seen.filter((x) => x.params?.update?.sessionId === child && x.params.update.state).pop();
              return { parent: client.parents.get(child), activity: "idle", state: m?.params.update.state };
            };
            const sessions = {};
            for (const child of client.parents.keys()) sessions[child] = stop(child);
            return header(init, { findings: [], sessions }, { rootStopReason: result.stopReason });
          },
        },
      ),
  },
  {
    name: "10-follow-up-same-child",
    title: "Two assignments to the same child: the root delegates to A with Agent, then sends A a follow-up with SendMessage (to: A's agent id), then answers",
    seed: "Validation scenarios #1 (send two assignments to the same child conversation: keep its ACP session ID, use distinct message IDs, and allow running → idle → running); Current work state",
    run: (ctx) => {
      const known = {};
      let answers = 0;
      return withAdapter(
        ctx,
        script(
          (req) => {
            const n = results(req);
            if (n === 0) return { calls: [agent("Two parts", "[task:A] Do the first part.")] };
            if (n === 1) return { calls: [{ name: "SendMessage", input: { to: known.a, message: "[task:A] Now do the second part.", summary: "second part" } }] };
            return { text: "Both parts are done." };
          },
          () => {
            answers += 1;
            return { text: `A answer ${answers}.` };
          },
        ),
        {
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Give a subagent two parts of a job, one after the other.");
            known.a = await childTitled(client, "Two parts");
            await done;
            await sleep(2_000);
            return header(init, {
              findings: [],
              sessions: children(client, () => ({ ...idle("end_turn"), idleTransitions: 2 })),
            });
          },
        },
      );
    },
  },
  {
    name: "11-background-child-root-cancel",
    title: "Root cancel with a background child: the root launches A with run_in_background true; A is held running; the Client cancels the root; the prompt ends cancelled while A keeps running, then A finishes on its own",
    seed: "Cancellation and resource ownership: the seed's 'Cancelling a parent likewise cascades to its active descendants' against the 2026-10-05 narrowed cascade (cancel reaches the cancelled session and the descendant work it waits on)",
    run: (ctx) => {
      const hold = gate();
      return withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "A runs in the background." } : { calls: [agent("Background job", "[task:A] Work in the background.", true)] }),
          async () => {
            await Promise.race([hold.promise, sleep(60_000)]);
            return { text: "A finished its background job." };
          },
        ),
        {
          gates: [hold],
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Start a background job in a subagent.");
            const a = await childTitled(client, "Background job");
            await sleep(1_000);
            client.cancel(root);
            const result = await done;
            await sleep(2_000);
            const before = client.peer.seen.filter((m) => m.params?.update?.sessionId === a && m.params.update.state).pop();
            hold.open();
            await client.waitForIdle(a, 30_000, { fresh: false });
            await sleep(2_000);
            const last = client.peer.seen.filter((m) => m.params?.update?.sessionId === a && m.params.update.state).pop();
            const kept = before?.params.update.state.state !== "idle";
            return header(
              init,
              { findings: [], sessions: { [a]: { parent: root, state: last?.params.update.state, activity: "idle" } } },
              {
                rootStopReason: result.stopReason,
                revision: kept
                  ? "2026-10-05: the background child kept running after the root's cancel and ended on its own; the seed's cascade would have stopped it (a checker option for the revision is the ACP checker fidelity issue's)"
                  : "the root's cancel stopped the background child too (the seed's cascade)",
              },
            );
          },
        },
      );
    },
  },
  {
    name: "12-nested-cancel",
    title: "Cancel a child with a nested child: A delegates to its own foreground child B, which is held running; the Client cancels A (granted); A and the foreground child it waits on (B) report idle cancelled; the root goes on and ends its turn",
    seed: "Cancellation and resource ownership (cancel of a child cancels current work in that child and its active descendants, not its parent); Validation scenarios #8",
    run: (ctx) => {
      const hold = gate();
      return withAdapter(
        ctx,
        script(
          (req) => (results(req) ? { text: "A was stopped; I carry on." } : { calls: [agent("Coordinator", "[task:A] Delegate to a helper.")] }),
          async (req, task) => {
            if (task === "B") {
              await Promise.race([hold.promise, sleep(60_000)]);
              return { text: "B finished (too late)." };
            }
            return results(req) ? { text: "A finished after B." } : { calls: [agent("Helper", "[task:B] Help A.")] };
          },
        ),
        {
          gates: [hold],
          run: async (client, root, { init }) => {
            const done = client.prompt(root, "Delegate a job that itself needs a helper.");
            const a = await childTitled(client, "Coordinator");
            const b = await childTitled(client, "Helper");
            await sleep(1_000);
            client.cancel(a);
            await client.waitForIdle(a, 30_000, { fresh: false });
            await client.waitForIdle(b, 30_000, { fresh: false });
            hold.open();
            const result = await done;
            await sleep(500);
            return header(init, { findings: [], sessions: children(client, () => idle("cancelled")) }, { rootStopReason: result.stopReason });
          },
        },
      );
    },
  },
];
