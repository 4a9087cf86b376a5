// An ACP Client on @agentclientprotocol/sdk that shows an Agent's subagent tree live.
// It spawns the Agent (the command after `--`; the small SDK Agent beside this file by
// default), passes every JSON-RPC message both ways through the SDK connection, feeds
// each one into a lineage `Engine` as it passes, and prints the tree whenever a message
// changed it. It advertises `subagents`, allows permission requests (a request of work
// it cancelled is answered `cancelled`), and cancels the child titled
// `--cancel <title>` (default `writer`) once it is announced.
//
//   node examples/acp-client.mjs [--cancel writer] [--json] [-- agent-command args...]
//
// `--json` prints, at the end, one line: the `replay --format json` document of what
// passed (the Client view lineage folded) and its findings (the Subagent Sessions
// conformance checker ran on the same messages).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream } from '@agentclientprotocol/sdk/unstable';

const require = createRequire(import.meta.url);
const { Engine } = require('../index.js');

function args(argv) {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const agentCommand = split === -1
    ? [process.execPath, fileURLToPath(new URL('./subagent-agent.mjs', import.meta.url))]
    : argv.slice(split + 1);
  const at = own.indexOf('--cancel');
  return { cancel: at === -1 ? 'writer' : own[at + 1], json: own.includes('--json'), agentCommand };
}

/** The subagent tree of the Client view, one line per session, children indented. */
function tree(view) {
  const children = new Map();
  for (const s of view.sessions) {
    const parent = s.parent ?? null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(s);
  }
  const lines = [];
  const stack = [...(children.get(null) ?? [])].reverse().map((s) => [s, 0]);
  while (stack.length) {
    const [s, depth] = stack.pop();
    const state = s.state?.state ?? 'unconfirmed';
    const stop = s.state?.stopReason ? ` (${s.state.stopReason})` : '';
    lines.push(`${'  '.repeat(depth)}${depth ? '└─ ' : ''}${s.title ?? s.id} [${state}${stop}]`);
    for (const c of [...(children.get(s.id) ?? [])].reverse()) stack.push([c, depth + 1]);
  }
  return lines.join('\n');
}

/** The SDK stream with a tap on both directions: each message goes on unchanged, and
 * into `see(from, message)` first. */
function tapped(stream, see) {
  const readable = stream.readable.pipeThrough(new TransformStream({
    transform(message, controller) {
      see('agent', message);
      controller.enqueue(message);
    },
  }));
  const writer = stream.writable.getWriter();
  const writable = new WritableStream({
    async write(message) {
      see('client', message);
      await writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}

async function main() {
  const { cancel, json, agentCommand } = args(process.argv.slice(2));
  const [command, ...rest] = agentCommand;
  const child = spawn(command, rest, { stdio: ['pipe', 'pipe', 'inherit'] });
  const engine = new Engine({ format: 'acp' });
  let shown = '';
  const announced = new Map(); // title -> session id
  let cancelChild = () => {};
  const cancelled = new Set();

  const see = (from, message) => {
    const out = engine.push({ from, message });
    for (const f of out.findings) console.log(`finding: ${f.severity}[${f.rule}] line ${f.line}: ${f.message}`);
    if (out.changes.length === 0) return;
    const view = engine.snapshot();
    const text = tree(view);
    if (text !== shown) {
      shown = text;
      console.log(`--- after the ${from}'s ${message.method ?? 'response'}\n${text}`);
    }
    for (const s of view.sessions) {
      if (s.parent && s.title && !announced.has(s.title)) {
        announced.set(s.title, s.id);
        if (s.title === cancel) cancelChild(s.id);
      }
    }
  };

  const stream = tapped(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), see);
  const app = client({ name: 'lineage-example-client' })
    .onRequest('session/request_permission', ({ params }) => {
      // The RFD: a request of work the Client cancelled is answered `cancelled`.
      if (cancelled.has(params.sessionId)) return { outcome: { outcome: 'cancelled' } };
      const allow = params.options.find((o) => o.kind.startsWith('allow')) ?? params.options[0];
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    })
    .onNotification('session/update', () => {});

  await app.connectWith(stream, async (agent) => {
    cancelChild = (sessionId) => {
      cancelled.add(sessionId);
      agent.notify('session/cancel', { sessionId });
    };
    await agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { subagents: {} },
    });
    const { sessionId } = await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const done = await agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'fix the build' }],
    });
    console.log(`prompt answered: ${done.stopReason}`);
  });
  child.stdin.end();
  const end = engine.finish();
  for (const f of end.findings) console.log(`finding: ${f.severity}[${f.rule}] line ${f.line}: ${f.message}`);
  if (json) console.log(JSON.stringify(end.snapshot));
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', resolve)));
}

main().catch((e) => {
  console.error(`error: ${e.code ?? ''} ${e.stack ?? e}`);
  process.exit(1);
});
