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
    const out = await body.run(client, sessionId, { work, model });
    return { protocolVersion: init.protocolVersion, ...out };
  } finally {
    await client.disconnect({ record: false }).catch(() => {});
    await model.close();
  }
}

/** The RFD-shaped expectation of every child: its parent, and idle at the end. */
function children(client, wanted) {
  const sessions = {};
  for (const [child, parent] of client.parents) sessions[child] = { parent, ...(wanted[child] ?? {}) };
  return sessions;
}

function firstChild(client) {
  return [...client.parents.keys()];
}

export const scenarios = [
  {
    name: "01-one-child",
    title: "One foreground child: the parent delegates with Agent, the child answers, the parent ends its turn",
    seed: "Announcing and updating an association; Current work state (running, then idle end_turn)",
    run: (ctx) =>
      withAdapter(
        ctx,
        async (req) => {
          if (req.child) return { text: "The child looked: nothing to fix." };
          if (/nothing to fix/.test(req.text)) return { text: "Done: the child found nothing." };
          return { calls: [agent("Look around", "Look around the repository and report.")] };
        },
        {
          run: async (client, root) => {
            await client.prompt(root, "Delegate a look around to a subagent.");
            await sleep(500);
            const ids = firstChild(client);
            return { header: { expect: { findings: [], sessions: children(client, {}) } }, ids };
          },
        },
      ),
  },
];
