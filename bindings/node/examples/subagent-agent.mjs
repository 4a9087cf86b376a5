// A small ACP Agent written with @agentclientprotocol/sdk, speaking the Subagent
// Sessions RFD (the SDK's `unstable` entry point carries its types): on a prompt it
// announces two children, "researcher" (which asks the Client's permission for a tool
// call) and "writer" (which works until the researcher is done); it cancels a child's
// work when the Client sends `session/cancel` for it (the child reports `idle` with
// `stopReason: "cancelled"`), and answers the prompt once both children are idle. Run on stdio: `node subagent-agent.mjs`.
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream } from '@agentclientprotocol/sdk/unstable';

const ROOT = 'root-1';
const CHILDREN = [
  { id: 'child-researcher', title: 'researcher', description: 'reads the code' },
  { id: 'child-writer', title: 'writer', description: 'drafts the change' },
];

/** Per child: resolves when its work ends, with the stop reason. */
const ended = new Map();
const stopped = new Map();
let researcherDone;

const update = (client, sessionId, u) => client.notify('session/update', { sessionId, update: u });
const subagent = (client, child, fields) =>
  update(client, ROOT, { sessionUpdate: 'subagent_update', sessionId: child.id, ...fields });

async function runChild(client, child) {
  await update(client, child.id, {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `${child.title}: working` },
  });
  if (child.title === 'researcher') {
    if (stopped.has(child.id)) return;
    await subagent(client, child, { state: { state: 'requires_action' } });
    const answer = await client.request('session/request_permission', {
      sessionId: child.id,
      toolCall: { toolCallId: 'call-read', title: 'read src/main.rs', kind: 'read', status: 'pending' },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    if (stopped.has(child.id)) return;
    const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow';
    await subagent(client, child, { state: { state: 'running' } });
    await update(client, child.id, {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: allowed ? ' (read it)' : ' (was refused)' },
    });
    await finishChild(client, child, 'end_turn');
  }
  // The writer works until the researcher is done, or until it is cancelled.
  await researcherDone;
  await finishChild(client, child, 'end_turn');
}

async function finishChild(client, child, stopReason) {
  if (stopped.has(child.id)) return;
  stopped.set(child.id, stopReason);
  await subagent(client, child, { state: { state: 'idle', stopReason } });
  ended.get(child.id)?.();
}

const app = agent({ name: 'subagent-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: false },
    authMethods: [],
  }))
  .onRequest('session/new', () => ({ sessionId: ROOT }))
  .onRequest('session/prompt', async ({ params, client }) => {
    const done = CHILDREN.map((child) => new Promise((resolve) => ended.set(child.id, resolve)));
    researcherDone = done[0];
    for (const child of CHILDREN) {
      await subagent(client, child, {
        title: child.title,
        description: child.description,
        capabilities: { cancel: {} },
        state: { state: 'running' },
      });
    }
    for (const child of CHILDREN) runChild(client, child);
    await Promise.all(done);
    await update(client, params.sessionId, {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'done' },
    });
    return { stopReason: 'end_turn' };
  })
  .onNotification('session/cancel', async ({ params, client }) => {
    const child = CHILDREN.find((c) => c.id === params.sessionId);
    if (child) await finishChild(client, child, 'cancelled');
  });

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
app.connect(stream);
