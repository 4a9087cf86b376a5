#!/usr/bin/env node
// Re-records the real traces: every scenario of every program under programs/, each run
// against the scripted model in a loopback-only network namespace, written to
// traces/real/<program>/<scenario>.jsonl with a header naming the provider, its version
// and the scenario, and what the scenario expects. A version other than the program's
// first recorded one (FIRST below) writes traces/real/<program>@<version>/ instead.
//
//   node lab/record.mjs                 # everything
//   node lab/record.mjs codex           # one program
//   node lab/record.mjs codex/03-nested # one scenario (a name prefix)
//
// A scenario module (programs/<program>/scenarios.mjs) exports
//   program   = { name, package, format }
//   scenarios = [{ name, title, seed, timeoutMs?, async run(ctx) -> header fields }]
// and `run` gets ctx = { trace, home (a fresh directory), bin(name), version, log(file),
// lineage (the lineage binary), out (traces/real), native, keep(from, to), note(text) }.
//
// The native files of the same run go to traces/real-native/<program>/<scenario>/ (or
// <program>@<version>/, as above):
// `ctx.keep(from, to)` copies the directory `from` (relative to home) to `to` in that
// folder once the scenario succeeded, before home is deleted (byte for byte, layout
// kept); `ctx.native` is that folder's staging directory, for files the driver writes
// itself; `ctx.note(text)` adds a line to its NOTES.md. A `from` the program did not
// write is said so in NOTES.md, never skipped silently.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isolate } from "./lib/isolate.mjs";
import { Trace } from "./lib/trace.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, "..", "traces", "real");
const nativeOut = path.join(here, "..", "traces", "real-native");

/**
 * The versions whose recordings sit in traces/real/<program>/ and
 * traces/real-native/<program>/ (the first the lab recorded). A run of any other version
 * writes traces/real/<program>@<version>/ (and real-native/<program>@<version>/) beside
 * them, so a provider upgrade reads as `diff -r traces/real/codex traces/real/codex@0.171.0`.
 */
const FIRST = { codex: "0.169.0", "claude-code": "2.1.328", "claude-agent-acp": "0.101.0", "codex-acp": "2.6.0" };

/** The folder (under traces/real and traces/real-native) of a program's run at `version`. */
function folder(program, version) {
  return FIRST[program] === version ? program : `${program}@${version}`;
}

function version(pkg) {
  const file = path.join(here, "node_modules", pkg, "package.json");
  return JSON.parse(fs.readFileSync(file, "utf8")).version;
}

/** The lineage binary scenarios may run (`lineage record`): LINEAGE_BIN, else the most
 *  recent of the release and debug builds (`lab/record` builds the release one first). */
function lineageBin() {
  if (process.env.LINEAGE_BIN) return process.env.LINEAGE_BIN;
  const builds = ["release", "debug"]
    .map((p) => path.join(here, "..", "target", p, "lineage"))
    .filter((f) => fs.existsSync(f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return builds[0] ?? "lineage";
}

function wanted(filters, program, scenario) {
  if (!filters.length) return true;
  return filters.some((f) => {
    const [p, s] = f.split("/");
    return p === program && (!s || scenario.startsWith(s));
  });
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort() : [];
}

/**
 * Fills the staging folder `native` from `home` (the kept directories) and `notes`, then
 * puts it in place of traces/real-native/<program>/<scenario>/.
 */
function saveNative(program, scenario, home, native, keeps, notes, dir) {
  for (const { from, to } of keeps) {
    const src = path.join(home, from);
    if (!filesUnder(src).length) {
      notes.push(`The run wrote no file under \`~/${from}\` (kept as \`${to}/\`): there is none here.`);
      continue;
    }
    fs.cpSync(src, path.join(native, to), { recursive: true });
  }
  if (!filesUnder(native).length && !keeps.length) return;
  if (notes.length) {
    const text = [`# ${program.name}/${scenario.name}: native files`, "", ...notes.map((n) => `- ${n}`), ""].join("\n");
    fs.writeFileSync(path.join(native, "NOTES.md"), text);
  }
  const dest = path.join(nativeOut, dir, scenario.name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(native, dest, { recursive: true });
  console.log(`  kept ${path.relative(process.cwd(), dest)}/ (${filesUnder(dest).length} files)`);
}

async function runOne(program, scenario) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `lab-${program.name}-`));
  const native = fs.mkdtempSync(path.join(os.tmpdir(), `lab-native-${program.name}-`));
  const logs = path.join(here, "out", program.name);
  fs.mkdirSync(logs, { recursive: true });
  const trace = new Trace();
  const keeps = [];
  const notes = [];
  const ctx = {
    trace,
    home,
    native,
    keep: (from, to) => keeps.push({ from, to }),
    note: (text) => notes.push(text),
    version: version(program.package),
    bin: (name) => path.join(here, "node_modules", ".bin", name),
    lineage: lineageBin(),
    out,
    log: (file) => path.join(logs, `${scenario.name}.${file}`),
  };
  const limit = scenario.timeoutMs ?? 180_000;
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`scenario timed out after ${limit} ms`)), limit);
  });
  try {
    const fields = await Promise.race([scenario.run(ctx), timeout]);
    // what the program left in its home, for review (not committed)
    fs.writeFileSync(ctx.log("home.txt"), filesUnder(home).map((f) => `${fs.statSync(path.join(home, f)).size}\t${f}`).join("\n") + "\n");
    const dir = folder(program.name, ctx.version);
    const file = path.join(out, dir, `${scenario.name}.jsonl`);
    trace.write(file, {
      format: program.format,
      ...fields?.formatFields,
      provider: { package: program.package, version: ctx.version },
      scenario: scenario.title,
      seed: scenario.seed,
      recorded: "lab/record.mjs against a scripted model, loopback only",
      ...fields?.header,
    });
    console.log(`recorded ${path.relative(process.cwd(), file)} (${trace.records.length} records)`);
    saveNative(program, scenario, home, native, keeps, notes, dir);
    return true;
  } catch (e) {
    console.error(`FAILED ${program.name}/${scenario.name}: ${e?.stack ?? e}`);
    return false;
  } finally {
    clearTimeout(timer);
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(native, { recursive: true, force: true });
  }
}

async function main() {
  isolate();
  const filters = process.argv.slice(2);
  const dirs = fs
    .readdirSync(path.join(here, "programs"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  let failed = 0;
  for (const dir of dirs) {
    const file = path.join(here, "programs", dir, "scenarios.mjs");
    if (!fs.existsSync(file)) continue;
    const { program, scenarios } = await import(pathToFileURL(file).href);
    for (const scenario of scenarios) {
      if (!wanted(filters, program.name, scenario.name)) continue;
      if (!(await runOne(program, scenario))) failed += 1;
    }
  }
  if (failed) {
    console.error(`${failed} scenario(s) failed; their committed traces were left as they were`);
    process.exit(1);
  }
}

await main();
