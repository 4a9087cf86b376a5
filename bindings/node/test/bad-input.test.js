'use strict';
// Bad input through the binding is a typed error (an `Error` with a stable `code`) or
// works as the CLI does; nothing crashes the process.
const test = require('node:test');
const assert = require('node:assert/strict');
const lineage = require('..');

const ROOT = '{"event":{"type":"root_session_created","session":"R"}}';
const code = (c) => (e) => e instanceof Error && e.code === c;

test('a push of something that is not a line or a record is a usage error', () => {
  const engine = new lineage.Engine();
  for (const bad of [42, null, undefined, true, [1, 2], Symbol('s'), () => 1, 10n]) {
    assert.throws(() => engine.push(bad), code('usage'), String(typeof bad));
  }
  assert.throws(() => engine.push({ big: 1n }), code('usage'));
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => engine.push(cyclic), code('usage'));
  assert.throws(() => engine.push(ROOT, 'soon'), code('usage'));
  assert.throws(() => engine.push(ROOT, -1), code('usage'));
  assert.throws(() => engine.handleTimeout('now'), code('usage'));
  // The engine is still usable after each refusal.
  assert.equal(engine.push(ROOT).changes[0].type, 'session_created');
});

test('bad options are usage errors', () => {
  assert.throws(() => new lineage.Engine({ format: 'yaml' }), code('usage'));
  assert.throws(() => new lineage.Engine({ spec: '1999-01-01' }), code('usage'));
  assert.throws(() => new lineage.Engine('acp'), code('usage'));
  assert.throws(() => lineage.convert(ROOT, { to: 'acp-v9' }), code('usage'));
  assert.throws(() => lineage.convert(ROOT, {}), code('usage'));
  assert.throws(() => lineage.check(ROOT, { format: 'xml' }), code('usage'));
  assert.throws(() => lineage.replay(42), code('usage'));
});

test('invalid UTF-8 bytes in a Buffer are an invalid-utf8 finding at their line, as in a file', () => {
  const engine = new lineage.Engine();
  const bytes = Buffer.concat([Buffer.from('{"event":{"type":"root_session_created","session":"R'), Buffer.from([0xff]), Buffer.from('"}}')]);
  const out = engine.push(bytes);
  assert.equal(out.findings[0].rule, 'invalid-utf8');
  assert.equal(out.findings[0].line, 1);
  assert.equal(out.changes[0].session, 'R\uFFFD');
  assert.equal(lineage.replay(bytes).diagnostics[0].rule, 'invalid-utf8');
});

test('a 50 MB line is read like any other line (a malformed record, or a record)', () => {
  const engine = new lineage.Engine({ format: 'canonical' });
  const junk = 'x'.repeat(50 * 1024 * 1024);
  const out = engine.push(junk);
  assert.equal(out.findings[0].rule, 'malformed-record');
  const title = 'y'.repeat(50 * 1024 * 1024);
  const big = engine.push(`{"event":{"type":"root_session_created","session":"R","title":"${title}"}}`);
  assert.equal(big.changes[0].title.length, title.length);
});

test('an engine used after finish() throws `finished`, every method', () => {
  const engine = new lineage.Engine();
  engine.push(ROOT);
  const end = engine.finish();
  assert.equal(end.snapshot.sessions[0].id, 'R');
  assert.throws(() => engine.push(ROOT), code('finished'));
  assert.throws(() => engine.snapshot(), code('finished'));
  assert.throws(() => engine.pollTimeout(), code('finished'));
  assert.throws(() => engine.handleTimeout(1), code('finished'));
  assert.throws(() => engine.finish(), code('finished'));
});

test('inputs that cannot be processed carry their codes', () => {
  assert.throws(() => lineage.replay('/no/such/trace.jsonl'), code('unreadable'));
  assert.throws(() => lineage.replay('{"hello":1}\n'), code('unknown-format'));
  assert.throws(() => lineage.replay(Buffer.from('\n\n')), code('empty-input'));
  assert.throws(() => lineage.check('/no/such/trace.jsonl'), code('unreadable'));
  const untold = new lineage.Engine();
  untold.push('{"hello":1}');
  assert.throws(() => untold.finish(), code('unknown-format'));
});

test('an engine belongs to one thread: a copy sent to a worker is no engine, each worker has its own', async () => {
  const { Worker } = require('node:worker_threads');
  const engine = new lineage.Engine();
  // What a worker would get: a structured clone, whose native half is an empty object.
  const copy = structuredClone(engine._native);
  assert.throws(() => engine._native.push.call(copy, ROOT));
  assert.throws(() => lineage.Engine.prototype.push.call({ _native: copy }, ROOT));
  // Each worker loads the addon and has engines of its own.
  const own = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const lineage = require(${JSON.stringify(require.resolve('..'))});
    const e = new lineage.Engine();
    parentPort.postMessage(e.push(${JSON.stringify(ROOT)}).changes.length);
  `, { eval: true });
  const [count] = await require('node:events').once(own, 'message');
  await own.terminate();
  assert.equal(count, 1);
  assert.equal(engine.push(ROOT).changes.length, 1);
});
