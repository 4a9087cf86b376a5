"use strict";
// lineage's replay page. Reads the JSON in #lineage-data (a bounded timeline summary of
// a replay) and draws it; every text goes in with textContent, never as markup.
(function () {
  const data = JSON.parse(document.getElementById("lineage-data").textContent);
  const T = data.timeline;
  const SVG = "http://www.w3.org/2000/svg";
  const ROW = 24, AXIS = 34, FINDINGS = 16, ACTIVITY = 30, LEFT = 230, RIGHT = 16;
  const lanes = T.lanes;
  const laneIndex = new Map(lanes.map((l, i) => [l.id, i]));
  let cursorLine = T.last_line;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- the axis: the records' time where the trace has it, else line numbers ----
  const times = T.times;
  const hasTime = times.length > 0;
  function timeAt(line) {
    let lo = 0, hi = times.length - 1, best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid][0] <= line) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return times[best][1];
  }
  // The last line whose time is at most `v` (the axis's line labels).
  function lineAtTime(v) {
    let best = times[0][0];
    for (const [l, t] of times) { if (t <= v) best = l; else break; }
    return best;
  }
  const value = (line) => (hasTime ? timeAt(line) : line);
  const v0 = hasTime ? times[0][1] : 0;
  const v1 = Math.max(value(T.last_line), v0 + 1);
  let width = 900;
  const pos = (line) => LEFT + ((value(line) - v0) / (v1 - v0)) * (width - LEFT - RIGHT);
  function describeLine(line) {
    if (!hasTime) return `line ${line}`;
    const ms = timeAt(line) - v0;
    return `line ${line} · +${(ms / 1000).toFixed(3)} s`;
  }

  // ---- the state of a lane at a line ----
  function stateAt(lane, line) {
    if (lane.created > line) return null;
    let bar = null;
    for (const b of lane.bars) { if (b.from <= line) bar = b; else break; }
    if (!bar) return { state: "none", bar: null };
    if (bar.to !== null && bar.to <= line && bar.outcome) return { state: bar.outcome, bar };
    let phase = bar.phases[0][1];
    for (const [l, p] of bar.phases) { if (l <= line) phase = p; else break; }
    return { state: phase, bar };
  }

  // ---- details panel ----
  const details = el("aside", { id: "details" });
  function show(title, rows) {
    details.replaceChildren(el("h2", {}, title));
    const table = el("table");
    for (const [k, v] of rows) {
      const tr = el("tr");
      tr.append(el("td", {}, k), el("td", {}, String(v)));
      table.append(tr);
    }
    details.append(table);
  }
  function descendants(id) {
    const out = new Set([id]);
    for (const l of lanes) if (l.parent && out.has(l.parent)) out.add(l.id);
    out.delete(id);
    return out;
  }
  function showBar(lane, bar) {
    const rows = [["session", lane.id], ["from", describeLine(bar.from)],
      ["to", bar.to === null ? "still open" : describeLine(bar.to)]];
    if (bar.turn) rows.unshift(["turn", bar.turn]);
    if (bar.outcome) rows.push(["outcome", bar.outcome]);
    bar.phases.forEach(([l, p]) => rows.push([`phase at ${l}`, p]));
    const waiting = bar.phases.find(([, p]) => p === "waiting");
    if (waiting && !lane.parent) {
      // Which children kept the root turn open: those still active when it began to wait.
      const kids = descendants(lane.id);
      const open = lanes.filter((l) => kids.has(l.id)).map((l) => [l, stateAt(l, waiting[0])])
        .filter(([, s]) => s && s.bar && (s.bar.to === null || s.bar.to > waiting[0]));
      rows.push(["waiting for", open.length ? open.map(([l, s]) =>
        `${l.label || l.id} (${s.bar.turn}, until ${s.bar.to === null ? "the end" : "line " + s.bar.to})`).join("\n") : "—"]);
    }
    show(bar.turn || `${lane.label || lane.id}: ${bar.phases[0][1]}`, rows);
  }
  function showLane(lane) {
    const rows = [["id", lane.id]];
    if (lane.label) rows.push(["label", lane.label]);
    if (lane.parent) rows.push(["parent", lane.parent]);
    if (lane.parent_turn) rows.push(["parent turn", lane.parent_turn]);
    rows.push(["created", describeLine(lane.created)]);
    const s = stateAt(lane, cursorLine);
    rows.push([`at line ${cursorLine}`, s ? s.state : "not yet created"]);
    if (lane.elided_bars) rows.push(["bars not drawn", lane.elided_bars]);
    for (const [k, v] of lane.details) rows.push([k, v]);
    show(lane.label || lane.id, rows);
  }

  // ---- page skeleton ----
  const counts = { error: 0, warning: 0, note: 0 };
  for (const f of data.findings) counts[f.severity] = (counts[f.severity] || 0) + 1;
  const header = el("header");
  header.append(el("h1", {}, data.title),
    el("span", { class: "meta" }, `${data.format} · ${lanes.length + T.elided_lanes} sessions · ` +
      `${T.last_line} lines · ${counts.error} errors, ${counts.warning} warnings, ${counts.note} notes` +
      (data.ended ? "" : " · cut (no end-of-trace findings)")));
  const controls = el("div", { id: "controls" });
  const slider = el("input", { id: "slider", type: "range", min: "0", max: String(T.last_line),
    value: String(T.last_line), "aria-label": "show the state at line" });
  const atLabel = el("span", { id: "at-label" });
  controls.append(el("span", {}, "state at"), slider, atLabel);
  const legend = el("div", { id: "legend" });
  const names = data.format === "acp"
    ? ["running", "requires_action", "idle", "unconfirmed", "disconnected"]
    : ["submitted", "running", "waiting", "settling", "completed", "failed", "canceled", "interrupted"];
  for (const n of names) legend.append(el("span", { class: "state", "data-state": n }, n));
  const main = el("main");
  const tree = el("aside", { id: "tree" });
  const wrap = el("section", { id: "lanes-wrap" });
  main.append(tree, wrap);
  const findingsList = el("ol", { id: "findings-list" });
  document.body.append(header, controls, legend, main, details, findingsList);

  // ---- the tree at the cursor ----
  const nodes = new Map();
  function buildTree() {
    const root = el("ul");
    const lists = new Map();
    for (const lane of lanes) {
      const li = el("li", { "data-session": lane.id });
      const node = el("span", { class: "node", "data-session": lane.id });
      const badge = el("span", { class: "state" });
      node.append(el("span", { class: "name" }, lane.label ? `${lane.label} (${lane.id})` : lane.id), badge);
      node.addEventListener("click", () => showLane(lane));
      li.append(node);
      const parentList = (lane.parent && lists.get(lane.parent)) || root;
      parentList.append(li);
      const ul = el("ul");
      li.append(ul);
      lists.set(lane.id, ul);
      nodes.set(lane.id, { node, badge });
    }
    tree.append(root);
    if (T.elided_lanes) tree.append(el("p", { class: "elided" },
      `${T.elided_lanes} more sessions are not drawn (the page draws the first ${lanes.length} in tree order)`));
  }
  function updateTree() {
    for (const lane of lanes) {
      const { node, badge } = nodes.get(lane.id);
      const s = stateAt(lane, cursorLine);
      node.classList.toggle("future", s === null);
      badge.textContent = s ? s.state : "";
      badge.setAttribute("data-state", s ? s.state : "none");
    }
  }

  // ---- the swimlanes ----
  let cursor = null;
  function drawLanes() {
    width = Math.max(wrap.clientWidth || 900, 600);
    const top = AXIS + FINDINGS + ACTIVITY;
    const height = top + lanes.length * ROW + 8;
    const root = svg("svg", { id: "lanes", width, height, role: "img", "aria-label": "sessions over time" });
    const axis = svg("g", { class: "axis" });
    for (let i = 0; i <= 8; i += 1) {
      const x = LEFT + (i / 8) * (width - LEFT - RIGHT);
      const v = v0 + ((v1 - v0) * i) / 8;
      const line = hasTime ? lineAtTime(v) : Math.round(v);
      axis.append(svg("line", { x1: x, x2: x, y1: AXIS - 6, y2: height }),
        svg("text", { x, y: 12, "text-anchor": i === 8 ? "end" : "middle" }, hasTime ? `+${((v - v0) / 1000).toFixed(1)}s` : `line ${line}`),
        svg("text", { x, y: 25, "text-anchor": i === 8 ? "end" : "middle" }, hasTime ? `line ${line}` : ""));
    }
    root.append(axis);
    for (const w of T.windows) {
      const x = pos(w.from), x2 = pos(w.to === null ? T.last_line : w.to);
      const r = svg("rect", { class: `window ${w.kind}`, x, y: top, width: Math.max(2, x2 - x), height: lanes.length * ROW });
      r.append(svg("title", {}, `${w.kind}: lines ${w.from}–${w.to === null ? "end" : w.to}`));
      root.append(r);
    }
    data.findings.forEach((f) => {
      const x = pos(f.line);
      const m = svg("line", { class: `finding ${f.severity}`, x1: x, x2: x, y1: AXIS, y2: AXIS + FINDINGS - 3 });
      m.append(svg("title", {}, `line ${f.line}: ${f.rule}`));
      m.addEventListener("click", () => show(`${f.severity}[${f.rule}]`, [["line", f.line], ["message", f.message]]));
      root.append(m);
    });
    root.append(drawActivity(AXIS + FINDINGS));
    lanes.forEach((lane, i) => root.append(drawLane(lane, top + i * ROW)));
    for (const a of T.asks) drawAsk(root, a, top);
    for (const c of T.cancels) drawCancel(root, c, top);
    cursor = svg("line", { class: "cursor", y1: AXIS, y2: height });
    root.append(cursor);
    wrap.replaceChildren(root);
    moveCursor();
  }
  // Sessions with an active turn (ACP: a running state) over time, every session counted,
  // drawn or not.
  function drawActivity(y) {
    const g = svg("g", { class: "activity" });
    const pts = T.activity;
    const peak = Math.max(1, ...pts.map(([, n]) => n));
    let d = `M${pos(0)},${y + ACTIVITY - 4}`;
    let last = 0;
    for (const [line, n] of pts) {
      const x = pos(line);
      d += ` L${x},${y + ACTIVITY - 4 - (last / peak) * (ACTIVITY - 8)} L${x},${y + ACTIVITY - 4 - (n / peak) * (ACTIVITY - 8)}`;
      last = n;
    }
    d += ` L${pos(T.last_line)},${y + ACTIVITY - 4 - (last / peak) * (ACTIVITY - 8)}`;
    g.append(svg("path", { class: "activity-line", d }),
      svg("text", { x: 6, y: y + 18 }, `active sessions (peak ${peak})`));
    return g;
  }
  function drawLane(lane, y) {
    const g = svg("g", { class: "lane", "data-session": lane.id });
    g.append(svg("rect", { class: "lane-bg", x: 0, y, width, height: ROW }));
    const depth = (() => { let d = 0, p = lane.parent; while (p && laneIndex.has(p) && d < 32) { d += 1; p = lanes[laneIndex.get(p)].parent; } return d; })();
    const name = lane.label || lane.id;
    const label = svg("text", { class: "lane-label", x: 6 + depth * 8, y: y + 16 }, name.length > 30 ? name.slice(0, 29) + "…" : name);
    label.append(svg("title", {}, lane.id));
    label.addEventListener("click", () => showLane(lane));
    g.append(label);
    // Wider bars first, so a short bar drawn over a long one (a resumed thread's history
    // turns all happen at one instant) stays on top, visible and clickable.
    const span = (b) => pos(b.to === null ? T.last_line : b.to) - pos(b.from);
    const order = lane.bars.map((b, k) => [span(b), k]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, k] of order) g.append(drawBar(lane, lane.bars[k], y));
    return g;
  }
  function drawBar(lane, bar, y) {
    const g = svg("g", { class: "bar", "data-turn": bar.turn, "data-outcome": bar.outcome || "open" });
    const end = bar.to === null ? T.last_line : bar.to;
    bar.phases.forEach(([from, phase], k) => {
      const next = k + 1 < bar.phases.length ? bar.phases[k + 1][0] : end;
      const x = pos(from);
      g.append(svg("rect", { class: `ph-${phase}`, x, y: y + 5, width: Math.max(2, pos(next) - x), height: ROW - 10 }));
    });
    const x = pos(bar.from);
    const outcome = bar.outcome || (bar.turn ? "open" : "");
    if (outcome) {
      g.append(svg("rect", { class: `frame out-${outcome}`, x, y: y + 4, width: Math.max(3, pos(end) - x), height: ROW - 8 }));
      if (bar.outcome) g.append(svg("rect", { class: `end out-${bar.outcome}`, x: pos(end) - 2, y: y + 2, width: 4, height: ROW - 4 }));
    }
    g.append(svg("title", {}, `${bar.turn || bar.phases[0][1]}: lines ${bar.from}–${bar.to === null ? "open" : bar.to}${bar.outcome ? " · " + bar.outcome : ""}`));
    g.addEventListener("click", (e) => { e.stopPropagation(); showBar(lane, bar); });
    return g;
  }
  function drawAsk(root, a, top) {
    const i = laneIndex.get(a.session);
    if (i === undefined) return;
    const y = top + i * ROW + ROW / 2;
    const x1 = pos(a.from), x2 = pos(a.to === null ? T.last_line : a.to);
    const g = svg("g", { class: "interaction", "data-request": a.request, "data-status": a.status });
    g.append(svg("line", { class: "ask", x1, x2, y1: y, y2: y }),
      svg("circle", { class: `ask-dot ${a.to === null ? "pending" : ""}`, cx: x1, cy: y, r: 4 }));
    g.append(svg("title", {}, `request ${a.request}: ${a.status}`));
    g.addEventListener("click", () => show(`interaction ${a.request}`, [["session", a.session],
      ["asked", describeLine(a.from)], ["left pending", a.to === null ? "never" : describeLine(a.to)], ["status", a.status]]));
    root.append(g);
  }
  function drawCancel(root, c, top) {
    const session = c.turn.slice(0, c.turn.lastIndexOf("#"));
    const rows = [session, ...c.targets.map(([t]) => t.slice(0, t.lastIndexOf("#")))]
      .map((s) => laneIndex.get(s)).filter((i) => i !== undefined);
    if (!rows.length) return;
    const x = pos(c.prepared);
    const g = svg("g", { class: "cancel-op", "data-turn": c.turn });
    g.append(svg("line", { class: "cancel", x1: x, x2: x, y1: top + Math.min(...rows) * ROW + 2, y2: top + (Math.max(...rows) + 1) * ROW - 2 }));
    for (const [t, ack] of c.targets) {
      const i = laneIndex.get(t.slice(0, t.lastIndexOf("#")));
      if (i === undefined || ack === null) continue;
      const ax = pos(ack), ay = top + i * ROW + 4;
      g.append(svg("path", { class: "ack", d: `M${ax - 4},${ay} L${ax + 4},${ay} L${ax},${ay + 6} Z` }));
    }
    g.append(svg("title", {}, `cancel of ${c.turn} at line ${c.prepared}`));
    g.addEventListener("click", () => show(`cancel of ${c.turn}`, [["prepared", describeLine(c.prepared)],
      ["completed", c.completed === null ? "never" : describeLine(c.completed)],
      ...c.targets.map(([t, ack]) => [`target ${t}`, ack === null ? "not acknowledged" : `acknowledged at line ${ack}`])]));
    root.append(g);
  }
  function moveCursor() {
    if (!cursor) return;
    const x = pos(cursorLine);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    for (const g of wrap.querySelectorAll("g.lane")) {
      const lane = lanes[laneIndex.get(g.getAttribute("data-session"))];
      g.classList.toggle("future", lane.created > cursorLine);
    }
  }
  function setCursor(line) {
    cursorLine = line;
    atLabel.textContent = describeLine(line);
    updateTree();
    moveCursor();
  }

  // ---- findings list ----
  for (const f of data.findings) {
    const li = el("li", { class: `sev-${f.severity}` }, `line ${f.line}: ${f.severity}[${f.rule}] ${f.message}`);
    li.addEventListener("click", () => setCursor(f.line));
    findingsList.append(li);
  }
  if (data.elided_findings) findingsList.append(el("li", { class: "elided" }, `${data.elided_findings} more findings (see lineage check)`));
  if (T.elided_marks) findingsList.append(el("li", { class: "elided" }, `${T.elided_marks} interactions or cancels not drawn`));

  buildTree();
  drawLanes();
  setCursor(T.last_line);
  slider.addEventListener("input", () => setCursor(Number(slider.value)));
  window.addEventListener("resize", () => drawLanes());
  show("lineage", [["how to read", "Each row is a session; bars are its turns (an ACP trace: its reported work states), " +
    "framed by outcome. Drag the slider to see the tree at any line; click a bar, a label or a mark for details."]]);
})();
