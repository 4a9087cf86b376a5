// Real Codex (`codex app-server`, JSON-RPC over stdio) against the scripted model.
//
// The driver is the app-server's client: it initializes, starts a thread and a turn,
// answers approvals, steers and interrupts, and records both directions. The scripted
// model plays the root agent and every child: it tells them apart by the request's
// `x-openai-subagent` header (`req.child`) and by a `[task:X]` marker in the child's task
// text, and may hold a call open (an awaited gate) so a child keeps running while the
// driver acts. Multi-agent v1 is on by default; scenario 14 turns on v2.
//
// Expectations are written from the "Provider-Native Subagents" seed and from the ids
// the traffic showed (thread ids from responses and spawn items, turn ids `<thread>#<n>`),
// never from lineage's output.

import fs from "node:fs";
import path from "node:path";
import { startModel } from "../../lib/model.mjs";
import { Trace } from "../../lib/trace.mjs";
import { spawnPeer } from "../../lib/peer.mjs";
import { codexConfig as config, outputs, spawnedIds, taskMarker } from "../../lib/codex.mjs";

export const program = { name: "codex", package: "@openai/codex", format: "codex-app-server" };

const V1 = "multi_agent_v1";
const V2 = "collaboration";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise the driver resolves later (holds a model call open). */
function gate() {
  let open;
  const done = new Promise((resolve) => {
    open = resolve;
  });
  return { done, open: () => open() };
}

/**
 * Which child a request is for: v2 names it in the turn metadata (`agent_name`
 * `/root/<task>`); v1 children inherit `/root` there, so their task text carries a
 * `[task:X]` marker (their first user message).
 */
function taskOf(req) {
  const agent = req.meta.agent_name ?? "";
  if (agent.startsWith("/root/")) return agent.split("/").pop();
  return taskMarker(req);
}

/**
 * Starts the scripted model and `codex app-server`, initializes, starts the root thread.
 * `script(req, lab)` is the model. Returns the lab: { peer, model, root, threads (task →
 * child thread id, learnt from the model requests), turns (thread → provider turn ids),
 * line(pred) (the trace line of the first record matching), … }.
 */
async function open(ctx, { script, onRequest, resume, ...cfg }) {
  const codexHome = path.join(ctx.home, ".codex");
  const work = path.join(ctx.home, "work");
  fs.mkdirSync(codexHome, { recursive: true });
  // the run's rollout files, as traces/real-native/codex/<scenario>/sessions/YYYY/MM/DD/
  ctx.keep(".codex/sessions", "sessions");
  fs.mkdirSync(work, { recursive: true });
  const lab = { threads: {}, turns: {}, requests: [], gates: [] };
  const modelLog = fs.createWriteStream(ctx.log("model.jsonl"));
  const model = await startModel(async (req) => {
    const task = req.child ? taskOf(req) : null;
    if (task && req.meta.thread_id) lab.threads[task] = req.meta.thread_id;
    lab.requests.push(req);
    const reply = await script(req, { ...lab, task });
    const tools = (req.body.tools ?? []).flatMap((t) => (t.tools ? t.tools.map((x) => `${t.name}.${x.name}`) : [t.name ?? t.type]));
    modelLog.write(JSON.stringify({ n: req.n, child: req.child, task, meta: req.meta, tools, input: req.body.input?.slice(-3), reply }) + "\n");
    return reply;
  });
  fs.writeFileSync(path.join(codexHome, "config.toml"), config({ url: model.url, ...cfg }));
  const peer = spawnPeer({
    cmd: ctx.bin("codex"),
    args: ["app-server"],
    cwd: work,
    env: { HOME: ctx.home, CODEX_HOME: codexHome, MOCK_API_KEY: "lab", RUST_LOG: "warn" },
    trace: ctx.trace,
    sent: "client",
    received: "server",
    stderr: ctx.log("stderr.log"),
  });
  peer.on((m) => {
    if (m.method === "turn/started") (lab.turns[m.params.threadId] ??= []).push(m.params.turn.id);
    if (m.id !== undefined && m.method !== undefined) onRequest?.(m, peer, lab);
  });
  lab.peer = peer;
  lab.model = model;
  lab.work = work;
  /** The trace line (header = 1) of the first record matching `pred`, or null. */
  lab.line = (pred) => {
    const i = ctx.trace.records.findIndex((r) => pred(r.message, r.from));
    return i < 0 ? null : i + 2;
  };
  /** The provider turn id of `thread`'s `n`-th turn (1-based), waiting for it. */
  lab.turn = async (thread, n = 1, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!(lab.turns[thread]?.length >= n)) {
      if (Date.now() > deadline) throw new Error(`no turn ${n} on ${thread}`);
      await sleep(20);
    }
    return lab.turns[thread][n - 1];
  };
  /** Waits until the model has been called for child `task`; resolves its thread id. */
  lab.child = async (task, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!lab.threads[task]) {
      if (Date.now() > deadline) throw new Error(`child ${task} never called the model`);
      await sleep(20);
    }
    return lab.threads[task];
  };
  lab.completed = (thread, ms = 60_000) =>
    peer.waitFor((m) => m.method === "turn/completed" && m.params.threadId === thread, ms);
  lab.completedNth = (thread, n, ms = 60_000) => {
    let seen = 0;
    return peer.waitFor((m) => m.method === "turn/completed" && m.params.threadId === thread && ++seen === n, ms);
  };
  lab.close = async () => {
    for (const g of lab.gates) g.open();
    await peer.stop();
    await model.close();
    modelLog.end();
    // every thread that ran a turn should have its rollout file (`rollout-<time>-<thread>.jsonl`)
    const sessions = path.join(codexHome, "sessions");
    const rollouts = fs.existsSync(sessions) ? fs.readdirSync(sessions, { recursive: true }).map((f) => path.basename(f)) : [];
    for (const thread of new Set([lab.root, ...Object.keys(lab.turns)])) {
      if (!rollouts.some((f) => f.startsWith("rollout-") && f.endsWith(`-${thread}.jsonl`))) {
        ctx.note(`Thread \`${thread}\` (${thread === lab.root ? "the root" : "a child"}) has no rollout file.`);
      }
    }
    // (a resumed connection's children ran on the earlier one, whose rollouts are kept too)
    if (!lab.resumed && !Object.keys(lab.turns).some((thread) => thread !== lab.root)) {
      ctx.note("No child thread ran a turn in this run: there is no child rollout, only the root's.");
    }
  };
  await peer.request("initialize", {
    clientInfo: { name: "lineage-lab", title: "lineage lab", version: "0.1.0" },
    capabilities: { experimentalApi: true },
  });
  peer.notify("initialized");
  if (resume) {
    // a new connection to a thread an earlier run wrote: its response carries the history
    lab.resumed = await peer.request("thread/resume", { threadId: resume });
    lab.root = lab.resumed.thread.id;
    return lab;
  }
  const started = await peer.request("thread/start", { cwd: work });
  lab.root = started.thread.id;
  return lab;
}

/** Starts a root turn with `text`; resolves the provider turn id from the response. */
async function start(lab, text, extra = {}) {
  const r = await lab.peer.request("turn/start", { threadId: lab.root, input: [{ type: "text", text }], ...extra });
  return r.turn.id;
}

/** Runs `body(lab)` between open and close; always closes. */
async function withLab(ctx, options, body) {
  const lab = await open(ctx, options);
  try {
    return await body(lab);
  } finally {
    await lab.close();
  }
}

const spawnV1 = (task, text, callId) => ({
  name: "spawn_agent",
  namespace: V1,
  ...(callId ? { callId } : {}),
  input: { message: `[task:${task}] ${text}` },
});
const waitV1 = (targets, ms = 120_000) => ({ name: "wait_agent", namespace: V1, input: { targets, timeout_ms: ms } });
const text = (t) => ({ text: t });

/** The root agent of most v1 scenarios: spawn each task in turn, wait for it, then answer. */
function sequentialRoot(tasks) {
  return (req) => {
    const done = outputs(req).length; // spawn, wait, spawn, wait, …
    const step = Math.floor(done / 2);
    if (step >= tasks.length) return text("all delegated work is done");
    if (done % 2 === 0) return { calls: [spawnV1(tasks[step], `part ${step + 1} of the job`)] };
    const ids = spawnedIds(req);
    return { calls: [waitV1([ids[ids.length - 1]])] };
  };
}

const oneChild = {
  name: "01-one-child",
  title: "v1: the root spawns one child (spawn_agent), waits for it (wait_agent), then answers; the child answers at once",
  seed: "003 Codex App-Server Mapping: a spawnAgent collabAgentToolCall creates one child session and its submitted child turn; Root Turn Lifecycle: the root settles when its provider turn and every child turn are terminal",
  async run(ctx) {
    const root = sequentialRoot(["A"]);
    return withLab(ctx, { script: (req) => (req.child ? text("A finished: 1 2 3") : root(req)) }, async (lab) => {
      await start(lab, "delegate one job to a helper");
      await lab.completed(lab.root);
      const a = lab.threads.A;
      return {
        header: {
          expect: {
            turns: { [`${lab.root}#1`]: "settled:completed", [`${lab.root}#2`]: "absent", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${lab.root}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const twoChildren = {
  name: "02-two-children",
  title: "v1: the root spawns child A, waits, then spawns child B, waits, then answers",
  seed: "003 Session And Turn Semantics: each spawned child session has exactly one immutable creator relationship to the parent session, turn and delegation tool call",
  async run(ctx) {
    const root = sequentialRoot(["A", "B"]);
    return withLab(ctx, { script: (req, l) => (req.child ? text(`${l.task} finished`) : root(req)) }, async (lab) => {
      await start(lab, "delegate two jobs, one after the other");
      await lab.completed(lab.root);
      const { A: a, B: b } = lab.threads;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1`, [b]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const parallel = {
  name: "03-parallel-children",
  title: "v1: the root spawns A and B in one model response; both run at once (each held open until both have started), the root waits for both, then answers",
  seed: "003 Validation: concurrent children; Root Turn Lifecycle: a child terminal settles only the exact child turn",
  async run(ctx) {
    const both = gate();
    const seen = new Set();
    const script = async (req, l) => {
      if (req.child) {
        seen.add(l.task);
        if (seen.size >= 2) both.open();
        await both.done;
        return text(`${l.task} finished`);
      }
      const outs = outputs(req).length;
      if (outs === 0) return { calls: [spawnV1("A", "left half"), spawnV1("B", "right half")] };
      const ids = spawnedIds(req);
      if (outs === 2) return { calls: [waitV1(ids)] };
      if (outs === 3) return { calls: [waitV1(ids)] };
      return text("both halves are done");
    };
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(both);
      await start(lab, "split the job in two and run both halves at once");
      await lab.completed(lab.root);
      const { A: a, B: b } = lab.threads;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1`, [b]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const nested = {
  name: "04-nested-grandchild",
  title: "v1 with [agents] max_depth = 2: the root spawns A, A spawns its own child B and waits for it; B answers, then A, then the root",
  seed: "003 Entity Decision: a child session may have its own child sessions; the nested child records its parent child session/turn as its direct creator and keeps the original root",
  async run(ctx) {
    const root = sequentialRoot(["A"]);
    const childA = sequentialRoot(["B"]);
    const script = (req, l) => {
      if (!req.child) return root(req);
      if (l.task === "A") return childA(req);
      return text("B finished");
    };
    return withLab(ctx, { script, maxDepth: 2 }, async (lab) => {
      await start(lab, "delegate a job that itself needs a helper");
      await lab.completed(lab.root);
      const { A: a, B: b } = lab.threads;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${b}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1`, [b]: `${a}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const escalated = {
  name: "exec_command",
  input: { cmd: "echo approved", sandbox_permissions: "require_escalated", justification: "needs to run outside the sandbox" },
};

const approval = {
  name: "05-child-approval",
  title: "approval_policy on-request: child A runs exec_command with sandbox_permissions require_escalated; the client accepts the approval request (on A's thread); the command runs, A answers, the root answers",
  seed: "003 Codex App-Server Mapping: an approval request emitted on a registered child thread is persisted against that child session and its canonical child turn; requested, answered and provider-resolved keep the same child owner",
  async run(ctx) {
    const root = sequentialRoot(["A"]);
    const script = (req) => {
      if (!req.child) return root(req);
      return outputs(req).length === 0 ? { calls: [escalated] } : text("A ran the command");
    };
    const asked = [];
    const onRequest = (m, peer) => {
      if (m.method === "item/commandExecution/requestApproval") {
        asked.push(m);
        peer.respond(m.id, { decision: "accept" });
      }
    };
    return withLab(ctx, { script, onRequest, approval: "on-request" }, async (lab) => {
      await start(lab, "delegate a job that needs an approved command");
      await lab.completed(lab.root);
      const a = lab.threads.A;
      const r = lab.root;
      if (asked.length !== 1 || asked[0].params.threadId !== a) throw new Error(`expected one approval on ${a}, got ${asked.length}`);
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1` },
            interactions: { [`${a}#1/${asked[0].id}`]: "resolved" },
            findings: [],
          },
        },
      };
    });
  },
};

const rootFirst = {
  name: "06-root-ends-first",
  title: "v1: the root spawns A and answers at once without waiting; its provider turn completes while A is still held open; A then answers",
  seed: "003 Root Turn Lifecycle: root_provider_turn_completed -> active child turns remain -> root waiting; child turn terminal -> last active child -> root settles",
  async run(ctx) {
    const hold = gate();
    const script = async (req) => {
      if (req.child) {
        await hold.done;
        return text("A finished late");
      }
      return outputs(req).length === 0 ? { calls: [spawnV1("A", "a slow job")] } : text("started the helper; not waiting for it");
    };
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      const providerTurn = await start(lab, "start a slow helper and return");
      await lab.completed(lab.root);
      await sleep(300);
      const rootDone = lab.line((m) => m.method === "turn/completed" && m.params.turn.id === providerTurn);
      hold.open();
      const a = lab.threads.A;
      await lab.completed(a);
      await sleep(1500); // whatever Codex does after the child ends (it may wake the root)
      const r = lab.root;
      return {
        header: {
          expectAt: { [rootDone]: { turns: { [`${r}#1`]: "waiting", [`${a}#1`]: "running" } } },
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const childFails = {
  name: "07-child-fails",
  title: "v1: child A's model call fails (response.failed), so A's turn fails; the root's wait returns and the root answers",
  seed: "003 Root Turn Lifecycle: a failed child turn does not automatically fail the root turn; the root may complete while a child lane reports failure",
  async run(ctx) {
    const root = sequentialRoot(["A"]);
    const script = (req) => (req.child ? { fail: "the model is unavailable for this helper" } : root(req));
    return withLab(ctx, { script }, async (lab) => {
      await start(lab, "delegate a job that will fail");
      await lab.completed(lab.root);
      const a = lab.threads.A;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:failed" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const followUp = {
  name: "08-follow-up-same-child",
  title: "v1: the root spawns A and waits; then sends A a follow-up (send_input) and waits again; A answers twice, the root answers",
  seed: "003 Session And Turn Semantics: later guidance may create more turns inside that same child session, but it does not create another ownership edge",
  async run(ctx) {
    const script = (req, l) => {
      if (req.child) return text(outputs(req).length === 0 && !/follow-up/.test(req.text) ? "A: first answer" : "A: second answer");
      const outs = outputs(req).length;
      const ids = spawnedIds(req);
      if (outs === 0) return { calls: [spawnV1("A", "first question")] };
      if (outs === 1) return { calls: [waitV1(ids)] };
      if (outs === 2) return { calls: [{ name: "send_input", namespace: V1, input: { target: ids[0], message: "a follow-up question" } }] };
      if (outs === 3) return { calls: [waitV1(ids)] };
      return text("got both answers");
    };
    return withLab(ctx, { script }, async (lab) => {
      await start(lab, "ask a helper, then ask it again");
      await lab.completed(lab.root);
      const a = lab.threads.A;
      const r = lab.root;
      const childTurns = lab.turns[a]?.length ?? 0;
      if (childTurns !== 2) throw new Error(`expected two turns on A, saw ${childTurns}`);
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:completed", [`${a}#2`]: "settled:completed", [`${a}#3`]: "absent" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

/** Root spawns A (held open forever) and waits; resolves once A's model call is in flight. */
function heldChild(extra = {}) {
  const hold = gate();
  const script = async (req) => {
    if (req.child) {
      if (extra.childFirst && outputs(req).length === 0) return extra.childFirst;
      await hold.done;
      return text("A finished");
    }
    const outs = outputs(req).length;
    if (outs === 0) return { calls: [spawnV1("A", "a long job")] };
    if (outs === 1) return { calls: [waitV1(spawnedIds(req), extra.waitMs)] };
    return text(extra.rootAfter ?? "the helper is done");
  };
  return { hold, script };
}

const interruptRoot = {
  name: "09-interrupt-root-fan-out",
  title: "v1: while child A runs and the root waits on it, the client interrupts the root turn, then A's turn (the cancel fan-out); Codex answers {} to each, then each turn completes interrupted",
  seed: "003 Cancellation: cancel(root_turn_id) cancels the root provider turn, then every nested child; confirmed children settle canceled, the root settles canceled",
  async run(ctx) {
    const { hold, script } = heldChild();
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      const rootTurn = await start(lab, "delegate a long job (the user will cancel)");
      const a = await lab.child("A");
      const childTurn = await lab.turn(a);
      await sleep(300);
      await lab.peer.request("turn/interrupt", { threadId: lab.root, turnId: rootTurn });
      await lab.peer.request("turn/interrupt", { threadId: a, turnId: childTurn });
      await lab.completed(lab.root);
      await lab.completed(a);
      await sleep(500);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:canceled", [`${r}#2`]: "absent", [`${a}#1`]: "settled:canceled" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const interruptBurst = {
  name: "18-interrupt-fan-out-at-once",
  title: "v1: while child A runs and the root waits on it, the client sends the root's turn/interrupt and A's back to back, without waiting for either answer; both {} answers may come before the root's turn/completed interrupted, which then confirms the stop after the canonical cancel settled",
  seed: "003 Cancellation: cancel(root_turn_id) stops the root provider turn, then every nested child; a matching root provider terminal may arrive after the canonical root was settled canceled and is persisted without reopening it",
  async run(ctx) {
    const { hold, script } = heldChild();
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      const rootTurn = await start(lab, "delegate a long job (the user will cancel)");
      const a = await lab.child("A");
      const childTurn = await lab.turn(a);
      await sleep(300);
      const answers = [
        lab.peer.request("turn/interrupt", { threadId: lab.root, turnId: rootTurn }),
        lab.peer.request("turn/interrupt", { threadId: a, turnId: childTurn }),
      ];
      await Promise.all(answers);
      await lab.completed(lab.root);
      await lab.completed(a);
      await sleep(500);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:canceled", [`${r}#2`]: "absent", [`${a}#1`]: "settled:canceled" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const spawnRace = {
  name: "19-spawn-racing-root-interrupt",
  title: "v1: the client interrupts the root turn as soon as the root's spawnAgent item starts, before the spawn completes; Codex 0.169 aborts the spawn (no child thread, the spawn item never completes), answers {} and completes the root turn interrupted",
  seed: "003 Cancellation: preparing the root cancel closes child creation for that root turn; the root settles canceled; the provider's later terminal confirms the stop without reopening it",
  async run(ctx) {
    const hold = gate();
    const script = async (req) => {
      if (req.child) {
        await hold.done;
        return text("A finished");
      }
      return outputs(req).length === 0 ? { calls: [spawnV1("A", "a job the user cancels at once")] } : text("done");
    };
    let rootTurn;
    let sent = false;
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      lab.peer.on((m, peer) => {
        if (!sent && rootTurn && m.method === "item/started" && m.params.item?.tool === "spawnAgent") {
          sent = true;
          peer.request("turn/interrupt", { threadId: lab.root, turnId: rootTurn }).catch(() => null);
        }
      });
      rootTurn = await start(lab, "delegate a job (the user cancels immediately)");
      await lab.completed(lab.root);
      await sleep(1500);
      const others = Object.keys(lab.turns).filter((t) => t !== lab.root);
      if (!sent || others.length) throw new Error(`expected the spawn aborted by the interrupt; children: ${others}`);
      const r = lab.root;
      return {
        header: { expect: { turns: { [`${r}#1`]: "settled:canceled", [`${r}#2`]: "absent" }, findings: [] } },
      };
    });
  },
};

const interruptChild = {
  name: "10-child-only-interrupt",
  title: "v1: while child A runs and the root waits on it, the client interrupts A's turn only; A completes interrupted, the root's wait returns and the root answers",
  seed: "003 Cancellation: an exact child-only cancel targets that child only; the root settles from its own provider outcome and is not relabelled canceled",
  async run(ctx) {
    // An interrupted child stays alive (idle), so wait_agent only returns at its timeout
    // (10 s, its minimum).
    const { hold, script } = heldChild({ rootAfter: "the helper was stopped; finishing myself", waitMs: 10_000 });
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      await start(lab, "delegate a long job (the user stops only the helper)");
      const a = await lab.child("A");
      const childTurn = await lab.turn(a);
      await sleep(300);
      await lab.peer.request("turn/interrupt", { threadId: a, turnId: childTurn });
      await lab.completed(a);
      await lab.completed(lab.root);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:canceled" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const interruptApproval = {
  name: "11-interrupt-during-approval",
  title: "approval_policy on-request: child A's approval request is left unanswered; the client interrupts the root, then A; the pending request is resolved by Codex after A's turn completes interrupted",
  seed: "003 Cancellation: pending interaction supersession commits with the cancel; RFD Pending permission and elicitation requests: a cancelled session's pending request is cancelled",
  async run(ctx) {
    const { hold, script } = heldChild({ childFirst: { calls: [escalated] } });
    const asked = [];
    const onRequest = (m) => {
      if (m.method === "item/commandExecution/requestApproval") asked.push(m);
    };
    return withLab(ctx, { script, onRequest, approval: "on-request" }, async (lab) => {
      lab.gates.push(hold);
      const rootTurn = await start(lab, "delegate a job that needs an approval (the user cancels instead)");
      await lab.peer.waitFor((m) => m.method === "item/commandExecution/requestApproval");
      const a = lab.threads.A;
      const childTurn = await lab.turn(a);
      await sleep(300);
      await lab.peer.request("turn/interrupt", { threadId: lab.root, turnId: rootTurn });
      await lab.peer.request("turn/interrupt", { threadId: a, turnId: childTurn });
      await lab.completed(lab.root);
      await lab.completed(a);
      await lab.peer.waitFor((m) => m.method === "serverRequest/resolved", 10_000).catch(() => null);
      await sleep(500);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:canceled", [`${a}#1`]: "settled:canceled" },
            parents: { [a]: `${r}#1` },
            interactions: { [`${a}#1/${asked[0].id}`]: "superseded" },
            findings: [],
          },
        },
      };
    });
  },
};

const steer = {
  name: "12-guidance-steer-while-child-runs",
  title: "v1: while child A runs and the root waits on it, the user sends guidance (turn/steer on the root's active provider turn); A then answers and the root answers",
  seed: "003 Sending While Children Run / Codex guidance mapping: if the root provider turn is active, use turn/steer; do not create another root turn",
  async run(ctx) {
    const { hold, script } = heldChild({ rootAfter: "done, and I took the guidance into account" });
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      const rootTurn = await start(lab, "delegate a long job");
      await lab.child("A");
      await sleep(300);
      await lab.peer.request("turn/steer", {
        threadId: lab.root,
        input: [{ type: "text", text: "also: keep the answer short" }],
        expectedTurnId: rootTurn,
      });
      await sleep(300);
      hold.open();
      await lab.completed(lab.root);
      const a = lab.threads.A;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const guidanceStart = {
  name: "13-guidance-start-after-root-ended",
  title: "v1: the root spawns A and answers without waiting; while A still runs (root turn waiting), the user sends guidance as a second turn/start on the root thread; that provider turn answers, then A answers",
  seed: "003 Codex guidance mapping: if no root provider turn is active but the root turn remains active because child turns are running, use turn/start on the root thread and attach its events to the existing root turn",
  async run(ctx) {
    const hold = gate();
    const script = async (req) => {
      if (req.child) {
        await hold.done;
        return text("A finished late");
      }
      if (/keep it short/.test(req.text)) return text("noted the guidance");
      return outputs(req).length === 0 ? { calls: [spawnV1("A", "a slow job")] } : text("started the helper");
    };
    return withLab(ctx, { script }, async (lab) => {
      lab.gates.push(hold);
      await start(lab, "start a slow helper and return");
      await lab.completed(lab.root);
      await sleep(300);
      const second = await start(lab, "one more thing: keep it short");
      await lab.peer.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === second);
      await sleep(300);
      hold.open();
      const a = lab.threads.A;
      await lab.completed(a);
      await sleep(1500);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const spawnV2 = (task, message) => ({ name: "spawn_agent", namespace: V2, input: { task_name: task, message: `[task:${task}] ${message}`, fork_turns: "none" } });
const waitV2 = () => ({ name: "wait_agent", namespace: V2, input: { timeout_ms: 120_000 } });

const v2 = {
  name: "14-multi-agent-v2",
  title: "[features] multi_agent_v2 = true: the root spawns task `counter` (collaboration spawn_agent), waits (wait_agent), then answers; the spawn edge is one subAgentActivity sent as item/started and item/completed; the child's only label is its agentPath",
  seed: "003 Codex App-Server Mapping: subAgentActivity kind=started, id=<parent tool call id>, agentThreadId=<child thread id> is a spawn edge; the same edge reported more than once stays one child",
  async run(ctx) {
    const script = (req) => {
      if (req.child) return text("counter: 1 2 3");
      const outs = outputs(req).length;
      if (outs === 0) return { calls: [spawnV2("counter", "count to three")] };
      if (outs === 1) return { calls: [waitV2()] };
      return text("the counter is done");
    };
    return withLab(ctx, { script, v2: true }, async (lab) => {
      await start(lab, "delegate counting (v2)");
      await lab.completed(lab.root);
      await sleep(500);
      const c = lab.threads.counter;
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${c}#1`]: "settled:completed" },
            parents: { [c]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const v2Interrupt = {
  name: "15-multi-agent-v2-interrupt",
  title: "multi_agent_v2: while task `counter` runs and the root waits, the client interrupts the root, then the child; Codex still reports subAgentActivity completed on the root's thread after the interrupt",
  seed: "003 Cancellation: the root settles canceled after cancellation was requested for root and child; late child events after cancellation never resurrect the root",
  async run(ctx) {
    const hold = gate();
    const script = async (req) => {
      if (req.child) {
        await hold.done;
        return text("counter finished");
      }
      const outs = outputs(req).length;
      if (outs === 0) return { calls: [spawnV2("counter", "count slowly")] };
      if (outs === 1) return { calls: [waitV2()] };
      return text("done");
    };
    return withLab(ctx, { script, v2: true }, async (lab) => {
      lab.gates.push(hold);
      const rootTurn = await start(lab, "delegate slow counting (v2; the user cancels)");
      const c = await lab.child("counter");
      const childTurn = await lab.turn(c);
      await sleep(300);
      await lab.peer.request("turn/interrupt", { threadId: lab.root, turnId: rootTurn });
      await lab.peer.request("turn/interrupt", { threadId: c, turnId: childTurn });
      await lab.completed(lab.root);
      await lab.completed(c);
      await sleep(1000);
      const r = lab.root;
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:canceled", [`${r}#2`]: "absent", [`${c}#1`]: "settled:canceled" },
            parents: { [c]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const v2FollowUp = {
  name: "16-multi-agent-v2-follow-up",
  title: "multi_agent_v2: the root spawns task `counter`, waits, sends it a follow-up (followup_task), waits again, then answers; the child runs a second turn in the same session",
  seed: "003 Session And Turn Semantics: later guidance may create more turns inside that same child session, but it does not create another ownership edge",
  async run(ctx) {
    const script = (req) => {
      if (req.child) return text(/again, slower/.test(req.text) ? "counter: 1 .. 2 .. 3" : "counter: 1 2 3");
      const outs = outputs(req).length;
      if (outs === 0) return { calls: [spawnV2("counter", "count to three")] };
      if (outs === 1 || outs === 3) return { calls: [waitV2()] };
      if (outs === 2) return { calls: [{ name: "followup_task", namespace: V2, input: { target: "counter", message: "count again, slower" } }] };
      return text("the counter answered twice");
    };
    return withLab(ctx, { script, v2: true }, async (lab) => {
      await start(lab, "delegate counting twice (v2)");
      await lab.completed(lab.root);
      await sleep(500);
      const c = lab.threads.counter;
      const r = lab.root;
      const childTurns = lab.turns[c]?.length ?? 0;
      if (childTurns !== 2) throw new Error(`expected two turns on counter, saw ${childTurns}`);
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${r}#2`]: "absent", [`${c}#1`]: "settled:completed", [`${c}#2`]: "settled:completed", [`${c}#3`]: "absent" },
            parents: { [c]: `${r}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

// Not recorded: a v2 nested child. In 0.169 a v2 child's requests carry no
// `collaboration` tools whatever `[agents] max_depth` says (2 and 3 tried), and its
// spawn_agent call is answered "unsupported call: collaborationspawn_agent"; v1 nesting
// is 04-nested-grandchild.

const question = {
  name: "17-root-question-while-child-runs",
  title: "while child A runs (held open), the root asks the user a question (request_user_input; Codex 0.169 answers a child's call with \"request_user_input can only be used by the root thread\"); the client answers item/tool/requestUserInput, A then answers, the root waits for it and answers",
  seed: "003 Root Turn Lifecycle: the root turn remains active while a child runs and while an interactive prompt is pending; the interaction belongs to the exact session/turn that asked",
  async run(ctx) {
    const hold = gate();
    const ask = {
      name: "request_user_input",
      input: {
        questions: [
          {
            id: "flavour",
            header: "Flavour",
            question: "Which flavour should the report use?",
            options: [
              { label: "Short (Recommended)", description: "One paragraph." },
              { label: "Long", description: "Every detail." },
            ],
          },
        ],
      },
    };
    const script = async (req) => {
      if (req.child) {
        await hold.done;
        return text("A wrote the short report");
      }
      const outs = outputs(req).length;
      if (outs === 0) return { calls: [spawnV1("A", "write the report")] };
      if (outs === 1) return { calls: [ask] };
      if (outs === 2) return { calls: [waitV1(spawnedIds(req))] };
      return text("the report is done");
    };
    const asked = [];
    const onRequest = (m, peer) => {
      if (m.method === "item/tool/requestUserInput") {
        asked.push(m);
        peer.respond(m.id, { answers: { flavour: { answers: ["Short (Recommended)"] } } });
        setTimeout(() => hold.open(), 300);
      }
    };
    return withLab(ctx, { script, onRequest }, async (lab) => {
      lab.gates.push(hold);
      // request_user_input "is unavailable in Default mode": the turn runs in plan mode.
      await start(lab, "delegate a report and ask me which flavour", {
        collaborationMode: { mode: "plan", settings: { model: "mock-model" } },
      });
      await lab.completed(lab.root);
      const a = lab.threads.A;
      const r = lab.root;
      if (asked.length !== 1 || asked[0].params.threadId !== r) throw new Error(`expected one question on the root, got ${asked.length}`);
      return {
        header: {
          expect: {
            turns: { [`${r}#1`]: "settled:completed", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${r}#1` },
            interactions: { [`${r}#1/${asked[0].id}`]: "resolved" },
            findings: [],
          },
        },
      };
    });
  },
};

const twoRoots = {
  name: "20-two-roots-one-connection",
  title: "v1: one app-server connection, two thread/start: the first root spawns A, waits, answers; then a second thread/start, whose root spawns B, waits, answers",
  seed: "003 Codex App-Server Mapping: Root conversation: app-server threadId equal to the root session's provider session id (one root session per started thread); threadId != root events are child events only after a spawn edge registered the child",
  async run(ctx) {
    const roots = [];
    const script = (req) => {
      if (req.child) return text(`${req.task} finished: done`);
      const task = req.meta.thread_id === roots[1] ? "B" : "A";
      const done = outputs(req).length;
      if (done === 0) return { calls: [spawnV1(task, `the job of root ${task === "A" ? 1 : 2}`)] };
      if (done === 1) return { calls: [waitV1([spawnedIds(req)[0]])] };
      return text(`root ${task === "A" ? 1 : 2} is done`);
    };
    return withLab(ctx, { script: (req, lab) => script({ ...req, task: lab.task }) }, async (lab) => {
      roots.push(lab.root);
      await start(lab, "first conversation: delegate one job");
      await lab.completed(lab.root);
      await sleep(300);
      const second = await lab.peer.request("thread/start", { cwd: lab.work });
      roots.push(second.thread.id);
      await lab.peer.request("turn/start", { threadId: roots[1], input: [{ type: "text", text: "second conversation: delegate one job" }] });
      await lab.completed(roots[1]);
      await sleep(500);
      const [r1, r2] = roots;
      const { A: a, B: b } = lab.threads;
      return {
        header: {
          roots: [r1, r2],
          expect: {
            turns: {
              [`${r1}#1`]: "settled:completed",
              [`${r1}#2`]: "absent",
              [`${a}#1`]: "settled:completed",
              [`${r2}#1`]: "settled:completed",
              [`${r2}#2`]: "absent",
              [`${b}#1`]: "settled:completed",
            },
            parents: { [a]: `${r1}#1`, [b]: `${r2}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

const resumeHistory = {
  name: "21-resume-history",
  title: "v1: a first connection (not recorded) starts the root, which spawns A, waits and answers; the app-server is stopped; the recorded connection is a new app-server on the same CODEX_HOME: thread/resume of the root (its response carries the earlier turn, with the spawn), then a second turn/start that the root answers",
  seed: "003 Codex App-Server Mapping: Root conversation: app-server threadId equal to the root session's provider session id; Session And Turn Semantics: a later user submission opens the root's next turn (the earlier turn, with its child, is history)",
  async run(ctx) {
    const first = sequentialRoot(["A"]);
    const script = (req) => {
      if (req.child) return text("A finished: 1 2 3");
      if (/second question/.test(req.text)) return text("the answer to the second question");
      return first(req);
    };
    // the first connection goes to a trace that is not written
    const earlier = await open({ ...ctx, trace: new Trace() }, { script });
    let root;
    let a;
    try {
      await start(earlier, "delegate one job to a helper");
      await earlier.completed(earlier.root);
      await sleep(500);
      root = earlier.root;
      a = earlier.threads.A;
    } finally {
      await earlier.close();
    }
    return withLab(ctx, { script, resume: root }, async (lab) => {
      await start(lab, "a second question");
      await lab.completed(lab.root);
      await sleep(500);
      return {
        header: {
          expect: {
            turns: { [`${root}#1`]: "settled:completed", [`${root}#2`]: "settled:completed", [`${root}#3`]: "absent", [`${a}#1`]: "settled:completed" },
            parents: { [a]: `${root}#1` },
            findings: [],
          },
        },
      };
    });
  },
};

export const scenarios = [
  oneChild,
  twoChildren,
  parallel,
  nested,
  approval,
  rootFirst,
  childFails,
  followUp,
  interruptRoot,
  interruptChild,
  interruptApproval,
  steer,
  guidanceStart,
  v2,
  v2Interrupt,
  v2FollowUp,
  question,
  interruptBurst,
  spawnRace,
  twoRoots,
  resumeHistory,
].map((s) => ({ timeoutMs: 120_000, ...s }));
