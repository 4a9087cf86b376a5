'use strict';
// The real host: the example ACP Client (examples/acp-client.mjs, on
// @agentclientprotocol/sdk) runs the example SDK Agent, which announces two children;
// one asks permission (the Client allows it), the Client cancels the other. Every
// message of both directions went through the Engine: the tree was printed live, and
// the final Client view and conformance findings are the ones the exchange calls for.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const client = path.join(__dirname, '..', 'examples', 'acp-client.mjs');

test('the SDK Client shows the SDK Agent\'s subagent tree live and ends with the expected view', () => {
  const out = execFileSync(process.execPath, [client, '--json', '--cancel', 'writer'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = out.trim().split('\n');
  const view = JSON.parse(lines.pop());
  const text = lines.join('\n');

  // Live: the tree was printed as it changed, the cancel before the prompt's answer.
  assert.match(text, /└─ researcher \[requires_action\]/);
  assert.match(text, /└─ writer \[running\]/);
  const cancelled = text.indexOf('└─ writer [idle (cancelled)]');
  assert.ok(cancelled > 0, text);
  assert.ok(cancelled < text.indexOf('prompt answered: end_turn'), text);
  assert.doesNotMatch(text, /^finding:/m);

  assert.equal(view.format, 'acp');
  assert.deepEqual(view.diagnostics, []);
  const byId = Object.fromEntries(view.sessions.map((s) => [s.id, s]));
  assert.equal(byId['root-1'].kind, 'root');
  const children = view.sessions.filter((s) => s.parent === 'root-1').map((s) => s.title);
  assert.deepEqual(children, ['researcher', 'writer']);
  assert.deepEqual(byId['child-researcher'].state, { state: 'idle', stopReason: 'end_turn' });
  assert.deepEqual(byId['child-writer'].state, { state: 'idle', stopReason: 'cancelled' });
  // The Client's answer went through the Engine too.
  assert.equal(view.answeredRequests.length, 1);
  assert.equal(view.answeredRequests[0].session, 'child-researcher');
  assert.deepEqual(view.answeredRequests[0].result, { outcome: { outcome: 'selected', optionId: 'allow' } });
  assert.deepEqual(view.pendingRequests, []);
});

test('cancelling the child that asks permission: it ends cancelled, the other goes on, no finding', () => {
  const out = execFileSync(process.execPath, [client, '--json', '--cancel', 'researcher'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const view = JSON.parse(out.trim().split('\n').pop());
  const researcher = view.sessions.find((s) => s.id === 'child-researcher');
  assert.deepEqual(researcher.state, { state: 'idle', stopReason: 'cancelled' });
  const writer = view.sessions.find((s) => s.id === 'child-writer');
  assert.deepEqual(writer.state, { state: 'idle', stopReason: 'end_turn' });
  assert.deepEqual(view.diagnostics, []);
  assert.deepEqual(view.pendingRequests, []);
});
