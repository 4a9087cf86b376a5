'use strict';
// Builds the addon with cargo (release; `--debug` for a debug build) and copies the
// library to `lineage.node`, which `index.js` loads. No download: cargo and the crates
// the workspace already locks.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

// `--prebuilt` copies a library cargo already built (CI builds the whole workspace once,
// so the addon shares its dependencies' artifacts instead of building them again with
// this package's own feature set).
const debug = process.argv.includes('--debug');
const prebuilt = process.argv.includes('--prebuilt');
const root = path.resolve(__dirname, '..', '..', '..');
const args = ['build', '--locked', '-p', 'lineage-node'];
if (!debug) args.push('--release');
if (!prebuilt) execFileSync('cargo', args, { cwd: root, stdio: 'inherit' });

const targetDir = process.env.CARGO_TARGET_DIR
  ? path.resolve(root, process.env.CARGO_TARGET_DIR)
  : path.join(root, 'target');
const file = { darwin: 'liblineage_node.dylib', win32: 'lineage_node.dll' }[process.platform]
  || 'liblineage_node.so';
const built = path.join(targetDir, debug ? 'debug' : 'release', file);
const dest = path.join(__dirname, '..', 'lineage.node');
fs.copyFileSync(built, dest);
console.log(`built ${path.relative(process.cwd(), dest)} from ${path.relative(process.cwd(), built)}`);
