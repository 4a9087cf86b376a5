// codex-acp (the ACP agent over its bundled Codex app-server) driven by
// lab/lib/acp-client.mjs, an ACP Client that advertises `subagents`, against the scripted
// Responses API model. Multi-agent v1 tools (namespace `multi_agent_v1`): the root calls
// `spawn_agent {message}`, then `wait_agent {targets}`. A child's model call carries the
// `x-openai-subagent` header; its task text carries a `[task:X]` marker the script reads.

import fs from "node:fs";
import path from "node:path";
import { AcpClient, gate, sleep } from "../../lib/acp-client.mjs";
import { startModel } from "../../lib/model.mjs";

export const program = { name: "codex-acp", package: "@agentclientprotocol/codex-acp", format: "acp" };

const V1 = "multi_agent_v1";
const spawn = (task, text) => ({ name: "spawn_agent", namespace: V1, input: { message: `[task:${task}] ${text}` } });
const wait = (targets) => ({ name: "wait_agent", namespace: V1, input: { targets, timeout_ms: 120_000 } });
const escalated = {
  name: "exec_command",
  input: { cmd: "echo approved", sandbox_permissions: "require_escalated", justification: "needs to run outside the sandbox" },
};

/** The `[task:X]` marker of a child's own task (its first user message), or null. */
function taskOf(req) {
  for (const item of req.body.input ?? []) {
    if (item.role !== "user") continue;
    const m = /\[task:(\w+)\]/.exec(JSON.stringify(item.content ?? ""));
    if (m) return m[1];
  }
  return null;
}

/** The function call outputs this request carries. */
const outputs = (req) => (req.body.input ?? []).filter((i) => i.type === "function_call_output");

/** The agent ids the spawn calls returned, in order (`{"agent_id": …}`). */
function spawnedIds(req) {
  const ids = [];
  for (const o of outputs(req)) {
    const text = typeof o.output === "string" ? o.output : JSON.stringify(o.output ?? "");
    const m = /"agent_id"\s*:\s*"([^"]+)"/.exec(text);
    if (m) ids.push(m[1]);
  }
  return ids;
}

/** A root that spawns each task in turn and waits for it, then answers. */
function sequentialRoot(tasks) {
  return (req) => {
    const done = outputs(req).length;
    const step = Math.floor(done / 2);
    if (step >= tasks.length) return { text: "all delegated work is done" };
    if (done % 2 === 0) return { calls: [spawn(tasks[step], `part ${step + 1} of the job`)] };
    const ids = spawnedIds(req);
    return { calls: [wait([ids[ids.length - 1]])] };
  };
}

function config({ url, approval = "never", sandbox = "read-only", maxDepth }) {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = "${approval}"`,
    `sandbox_mode = "${sandbox}"`,
    "check_for_update_on_startup = false",
    "[model_providers.mock]",
    'name = "Mock"',
    `base_url = "${url}/v1"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "[analytics]",
    "enabled = false",
    ...(maxDepth ? ["[agents]", `max_depth = ${maxDepth}`] : []),
    "",
  ].join("\n");
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
  const client = new AcpClient({
    trace: ctx.trace,
    cmd: ctx.bin("codex-acp"),
    env,
    cwd: work,
    stderr: ctx.log("stderr"),
    holdPermission: body.holdPermission,
  });
  try {
    const init = await client.connect();
    const { sessionId } = await client.request("session/new", { cwd: work, mcpServers: [] });
    const out = await body.run(client, sessionId, { work, model, lab });
    return { protocolVersion: init.protocolVersion, ...out };
  } finally {
    for (const g of lab.gates) g.open();
    await client.disconnect({ record: false }).catch(() => {});
    await model.close();
  }
}

function children(client, wanted = {}) {
  const sessions = {};
  for (const [child, parent] of client.parents) sessions[child] = { parent, ...(wanted[child] ?? {}) };
  return sessions;
}

export const scenarios = [
  {
    name: "01-one-child",
    title: "One child: the root spawns a child (spawn_agent), waits for it (wait_agent), then answers",
    seed: "Announcing and updating an association; Current work state (running, then idle end_turn)",
    run: (ctx) => {
      const root = sequentialRoot(["A"]);
      return withAdapter(ctx, (req) => (req.child ? { text: "A finished: 1 2 3" } : root(req)), {
        run: async (client, r) => {
          await client.prompt(r, "Delegate one job to a helper.");
          await sleep(500);
          return { header: { expect: { findings: [], sessions: children(client) } } };
        },
      });
    },
  },
];
