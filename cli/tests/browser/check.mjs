// Opens lineage's HTML replay pages in a real headless Chromium and checks what a person
// would see. Driven by cli/tests/browser.rs, which writes the cases:
//
//   node check.mjs cases.json artifacts-dir
//
// cases.json: [{ name, html, lanes: [session ids], labels: {id: label},
//                end: {id: state}, at: {line: {id: state}} }]
// For each case: the page loads with no console error or page error, it has exactly one
// lane per expected session, labels are shown, the tree shows the expected state of each
// session with the slider at the end and at every line of `at` (so moving the slider
// changes the state shown), and a screenshot is kept as <artifacts>/<name>.png.
// Prints one JSON line per case; exits 1 if any case failed.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [casesFile, artifacts] = process.argv.slice(2);
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
fs.mkdirSync(artifacts, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.LINEAGE_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

async function states(page) {
  return page.$$eval("#tree .node", (nodes) =>
    Object.fromEntries(nodes.map((n) => [n.getAttribute("data-session"),
      n.classList.contains("future") ? null : n.querySelector(".state").getAttribute("data-state")])));
}

function compare(failures, when, want, got) {
  for (const [id, state] of Object.entries(want)) {
    if (got[id] !== state) failures.push(`${when}: session ${id} shows ${got[id]}, expected ${state}`);
  }
}

async function runCase(c) {
  const failures = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on("console", (m) => { if (m.type() === "error") failures.push(`console error: ${m.text()}`); });
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!r.url().startsWith("file:")) failures.push(`network request: ${r.url()}`); });
  await page.goto(pathToFileURL(c.html).href);
  await page.waitForSelector("svg#lanes");
  const lanes = await page.$$eval("svg g.lane", (gs) => gs.map((g) => g.getAttribute("data-session")));
  if (lanes.length !== c.lanes.length) failures.push(`${lanes.length} lanes drawn, expected ${c.lanes.length}`);
  for (const id of c.lanes) if (!lanes.includes(id)) failures.push(`no lane for session ${id}`);
  const labels = await page.$$eval("svg g.lane", (gs) =>
    Object.fromEntries(gs.map((g) => [g.getAttribute("data-session"), g.querySelector(".lane-label").textContent])));
  for (const [id, label] of Object.entries(c.labels || {})) {
    if (!(labels[id] || "").startsWith(label.slice(0, 29))) failures.push(`lane ${id} is labelled ${labels[id]}, expected ${label}`);
  }
  compare(failures, "at the end", c.end, await states(page));
  for (const [line, want] of Object.entries(c.at || {})) {
    await page.$eval("#slider", (s, v) => { s.value = v; s.dispatchEvent(new Event("input")); }, line);
    compare(failures, `slider at line ${line}`, want, await states(page));
  }
  // A click on a bar shows its details.
  const bar = await page.$("svg g.bar");
  if (bar) {
    await bar.click();
    const title = await page.$eval("#details h2", (h) => h.textContent);
    if (!title) failures.push("a click on a bar showed no details");
  }
  await page.screenshot({ path: path.join(artifacts, `${c.name}.png`), fullPage: true });
  await page.close();
  return failures;
}

let failed = 0;
for (const c of cases) {
  let failures;
  try {
    failures = await runCase(c);
  } catch (e) {
    failures = [`the page could not be checked: ${e.message}`];
  }
  if (failures.length) failed += 1;
  console.log(JSON.stringify({ name: c.name, ok: failures.length === 0, failures }));
}
await browser.close();
process.exit(failed ? 1 : 0);
