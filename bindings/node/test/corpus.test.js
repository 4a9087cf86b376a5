'use strict';
// For every trace of the corpus (traces/ and traces/real/, each file the engine reads
// line by line), pushing its lines one by one through `Engine` gives the changes and
// findings of `lineage replay --format changes`, and `finish().snapshot` (and
// `replay(path)`) is the document of `lineage replay --format json`. The reference is
// the `lineage` binary when it is built (CI builds it), else the library's own stream.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const lineage = require('..');

const root = path.resolve(__dirname, '..', '..', '..');
const bin = [process.env.LINEAGE_BIN, path.join(root, 'target', 'debug', 'lineage'),
  path.join(root, 'target', 'release', 'lineage')].find((p) => p && fs.existsSync(p));

function traces(dir) {
  const out = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  }
  return out.sort();
}

/** The reference run: [stdout, exit code]. */
function reference(trace, format) {
  if (!bin) {
    try {
      const out = format === 'json' ? JSON.stringify(lineage.replay(trace))
        : lineage.changes(trace).map((l) => JSON.stringify(l)).join('\n');
      return [out, 0];
    } catch (e) {
      return ['', 2];
    }
  }
  try {
    return [execFileSync(bin, ['replay', trace, '--format', format], { encoding: 'utf8', maxBuffer: 1 << 28 }), 0];
  } catch (e) {
    return [e.stdout || '', e.status];
  }
}

/** The physical lines of a file as the CLI reads them (`\n`, then a trailing `\r`). */
function lines(bytes) {
  const out = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    const next = end === -1 ? bytes.length : end + 1;
    if (end === -1) end = bytes.length;
    let line = bytes.subarray(start, end);
    if (line.length && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    out.push(line);
    start = next;
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function asPushed(line) {
  try {
    return utf8.decode(line);
  } catch {
    return Buffer.from(line); // not UTF-8: pushed as bytes (an `invalid-utf8` finding)
  }
}

/** Every change and finding the engine returns for the file, and its final document. */
function pushAll(file) {
  const engine = new lineage.Engine();
  const changes = [];
  const findings = [];
  for (const line of lines(fs.readFileSync(file))) {
    const out = engine.push(asPushed(line));
    changes.push(...out.changes);
    findings.push(...out.findings);
  }
  const end = engine.finish();
  changes.push(...end.changes);
  findings.push(...end.findings);
  return { changes, findings, snapshot: end.snapshot };
}

const corpus = traces(path.join(root, 'traces')).filter((f) => !f.includes(`${path.sep}real-native${path.sep}`));

test('the corpus is there', () => {
  assert.ok(corpus.length > 200, `${corpus.length} traces`);
});

test('every corpus trace pushed line by line gives the CLI change stream and document', () => {
  let compared = 0;
  for (const file of corpus) {
    const [json, code] = reference(file, 'json');
    const [stream] = reference(file, 'changes');
    const name = path.relative(root, file);
    let pushed;
    try {
      pushed = pushAll(file);
    } catch (e) {
      assert.equal(code, 2, `${name}: ${e.code} ${e.message}`);
      assert.ok(['unknown-format', 'usage'].includes(e.code), `${name}: ${e.code}`);
      compared += 1;
      continue;
    }
    const items = stream.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    if (items.some((i) => i.file !== undefined)) throw new Error(`${name} is a native source`);
    assert.deepEqual(pushed.changes, items.filter((i) => i.change).map((i) => i.change), `${name}: changes`);
    assert.deepEqual(pushed.findings, items.filter((i) => i.finding).map((i) => i.finding), `${name}: findings`);
    assert.deepEqual(pushed.snapshot, JSON.parse(json), `${name}: snapshot`);
    compared += 1;
  }
  assert.ok(compared === corpus.length, `${compared} of ${corpus.length} compared`);
});

test('replay() and changes() of a path equal the CLI, native sources included', () => {
  const all = traces(path.join(root, 'traces'));
  for (const file of all) {
    const [json, code] = reference(file, 'json');
    const name = path.relative(root, file);
    if (code === 2) {
      assert.throws(() => lineage.replay(file), (e) => typeof e.code === 'string', name);
      continue;
    }
    assert.deepEqual(lineage.replay(file), JSON.parse(json), name);
    const [stream] = reference(file, 'changes');
    const items = stream.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(lineage.changes(file), items, name);
  }
});
