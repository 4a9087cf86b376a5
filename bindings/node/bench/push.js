'use strict';
// The cost of `Engine.push` from Node ÷ the Rust engine's on the same trace (target
// ≤ 1.5). Both run in this process on the release addon: the Rust side is the engine's
// push loop alone (`rustPushRounds`), the Node side the same lines through
// `Engine.push`, each output parsed into objects as a host gets them. Each figure is
// the median of several rounds, each round on a new engine. The middle column is the
// Rust loop that also writes each output as the JSON the addon hands to Node, so the
// rest of the difference is the N-API crossing and `JSON.parse`.
//
//   npm run build && node bench/push.js [trace.jsonl ...]
//
// Without arguments it generates one long trace per format with `lineage gen` (the
// release or debug binary of this workspace).
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const lineage = require('..');
const native = require('../lineage.node');

const root = path.resolve(__dirname, '..', '..', '..');
const ROUNDS = Number(process.env.ROUNDS || 7);

function traces() {
  const given = process.argv.slice(2);
  if (given.length) return given.map((p) => [path.basename(p), fs.readFileSync(p, 'utf8'), undefined]);
  const bin = ['release', 'debug'].map((p) => path.join(root, 'target', p, 'lineage')).find((p) => fs.existsSync(p));
  if (!bin) throw new Error('no lineage binary: run `cargo build --release --bin lineage` or pass traces');
  return ['canonical', 'codex-app-server', 'claude-sdk', 'acp'].map((format) => {
    const shape = 'long:20000';
    const text = execFileSync(bin, ['gen', '--format', format, '--shape', shape, '--seed', '7'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    return [`${format} ${shape}`, text, undefined];
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function nodeRounds(lines) {
  const times = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const engine = new lineage.Engine();
    const start = process.hrtime.bigint();
    let changes = 0;
    for (const line of lines) changes += engine.push(line).changes.length;
    times.push(Number(process.hrtime.bigint() - start));
    if (changes < 0) console.log(changes);
  }
  return times;
}

console.log(`push cost, Node ÷ Rust (median of ${ROUNDS} rounds; target ≤ 1.5)`);
console.log('trace | lines | Rust µs/line | Rust + output JSON µs/line | Node µs/line | ratio');
let worst = 0;
for (const [name, text] of traces()) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  nodeRounds(lines.slice(0, 1000)); // warm up the JIT
  const rust = median(native.rustPushRounds(lines, undefined, ROUNDS, false));
  const json = median(native.rustPushRounds(lines, undefined, ROUNDS, true));
  const node = median(nodeRounds(lines));
  const ratio = node / rust;
  worst = Math.max(worst, ratio);
  const us = (ns) => (ns / lines.length / 1000).toFixed(2);
  console.log(`${name} | ${lines.length} | ${us(rust)} | ${us(json)} | ${us(node)} | ${ratio.toFixed(2)}`);
}
console.log(`worst ratio: ${worst.toFixed(2)}`);
