'use strict';
// The TypeScript types: types/*.d.ts are what json-schema-to-typescript makes of the
// committed JSON Schemas today, and index.d.ts (which uses them) compiles strictly,
// with a use of every function of the API.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const here = path.join(__dirname, '..');

test('types/*.d.ts are generated from docs/*.schema.json', () => {
  execFileSync(process.execPath, [path.join(here, 'scripts', 'types.js'), '--check'], { stdio: 'pipe' });
});

test('index.d.ts and a typed use of the API compile with tsc --strict', () => {
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '--strict', 'index.d.ts', 'test/usage.ts'], { cwd: here, stdio: 'pipe' });
  } catch (e) {
    assert.fail(String(e.stdout));
  }
});
