// An ACP Client over peer.mjs: it speaks ACP v1 to a real adapter on stdio and records
// every line as `{"from":"client"|"agent","message":…,"at":ms}`, with
// `{"from":"transport","event":"disconnected"|"connected"}` around a restart.
//
//   const client = new AcpClient({ trace, cmd, env, stderr });
//   await client.connect();                       // spawn + initialize (advertises subagents)
//   const { sessionId } = await client.request("session/new", { cwd, mcpServers: [] });
//   const done = client.prompt(sessionId, "go"); … await done;
//   await client.restart();                       // disconnect, new process, initialize
//
// The Client advertises `clientCapabilities.subagents: {}` and no filesystem or terminal
// capability. It answers `session/request_permission` by selecting an allow option,
// unless `holdPermission(request)` says to keep it pending (then `answerHeld` or a
// `session/cancel` answers it). After a `session/cancel` of S it answers S's pending
// permission requests, and those of S's announced descendants, `cancelled` (the
// Subagent Sessions RFD, "Pending permission and elicitation requests"). Any other
// Agent request gets a JSON-RPC "method not found" error.

import { spawnPeer } from "./peer.mjs";

export const CLIENT_CAPABILITIES = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
  subagents: {},
};

export class AcpClient {
  constructor({ trace, cmd, args = [], env = {}, cwd, stderr, holdPermission = () => false }) {
    Object.assign(this, { trace, cmd, args, env, cwd, stderr, holdPermission });
    this.parents = new Map(); // child session id -> parent session id (announcements)
    this.held = []; // pending permission requests the Client keeps open
    this.permissions = []; // every permission request seen
    this.peer = null;
    this.initialized = null;
    this.stderrCount = 0;
  }

  /** Spawns the adapter and runs `initialize`; resolves with its result. */
  async connect() {
    this.stderrCount += 1;
    const stderr = this.stderr ? `${this.stderr}.${this.stderrCount}` : undefined;
    this.peer = spawnPeer({
      cmd: this.cmd,
      args: this.args,
      env: this.env,
      cwd: this.cwd,
      trace: this.trace,
      sent: "client",
      received: "agent",
      stderr,
    });
    this.peer.on((m) => this.#onMessage(m));
    this.held = [];
    this.initialized = await this.peer.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: { name: "lineage-lab", version: "1" },
    });
    return this.initialized;
  }

  /** Ends the adapter process; `record`: the trace notes the transport's disconnect (a
   *  restart). At the end of a scenario nothing is recorded: the capture just ends. */
  async disconnect({ record = true } = {}) {
    if (!this.peer) return;
    await this.peer.stop();
    if (record) this.trace.transport("disconnected");
    this.peer = null;
  }

  /** A restart: disconnect, then a new process on a new connection. */
  async restart() {
    await this.disconnect();
    this.trace.transport("connected");
    return this.connect();
  }

  request(method, params, ms = 90_000) {
    return this.peer.request(method, params, ms);
  }

  prompt(sessionId, text, ms = 120_000) {
    return this.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, ms);
  }

  /** `session/load` of `sessionId`; remembers where its response was (the freshness
   *  boundary of the Subagent Sessions RFD's "Reconnection and replay"). */
  async load(sessionId, cwd) {
    const result = await this.request("session/load", { sessionId, cwd, mcpServers: [] });
    this.boundary = this.peer.seen.length;
    return result;
  }

  /** The last work-state snapshot of `child` the Agent sent after the load response. */
  freshState(child) {
    return this.peer.seen
      .slice(this.boundary ?? 0)
      .filter((m) => m.params?.update?.sessionUpdate === "subagent_update" && m.params.update.sessionId === child)
      .filter((m) => m.params.update.state !== undefined)
      .map((m) => m.params.update.state)
      .pop();
  }

  /**
   * What the RFD expects of each child in `live` (child -> parent) after a reload: the
   * same parent; controls disabled (no grant came after the response); its state current
   * only if reported after the response; the replayed `running → idle` is history, so
   * the one assignment it had stays one transition into idle.
   */
  reloaded(live) {
    const sessions = {};
    for (const [child, parent] of live) {
      const state = this.freshState(child);
      sessions[child] = { parent, effectiveCancel: false, idleTransitions: 1, stateCurrent: state !== undefined };
      if (state) sessions[child].state = state;
    }
    return sessions;
  }

  /**
   * Live child work (a tool call, a message or thought chunk, a plan on the child's own
   * stream) sent while the child had no reported work state on this connection: the RFD
   * says "When the v1 Agent observes child foreground work starting, resuming, or
   * stopping, it MUST report the corresponding running or idle state." Replay windows
   * (a `session/load` request to its response) are skipped. Returns trace lines (the
   * header is line 1).
   */
  workBeforeState() {
    const WORK = ["tool_call", "tool_call_update", "agent_message_chunk", "agent_thought_chunk", "plan"];
    const state = new Map();
    const seen = [];
    let loading = null;
    this.trace.records.forEach((r, i) => {
      if (r.from === "transport") state.clear();
      const m = r.message;
      if (!m) return;
      if (r.from === "client" && m.method === "session/load") loading = m.id;
      if (r.from === "agent" && m.method === undefined && m.id === loading) loading = null;
      const u = m.method === "session/update" ? m.params?.update : undefined;
      if (!u || r.from !== "agent" || loading !== null) return;
      if (u.sessionUpdate === "subagent_update" && u.state !== undefined) state.set(u.sessionId, u.state);
      const child = m.params.sessionId;
      if (WORK.includes(u.sessionUpdate) && this.parents.has(child) && !state.get(child)) {
        const text = typeof u.content?.text === "string" ? { text: u.content.text.slice(0, 80) } : {};
        seen.push({ line: i + 2, child, update: u.sessionUpdate, ...text });
      }
    });
    return seen;
  }

  /** `session/cancel` of `sessionId`, then the RFD's cleanup of its pending permissions. */
  cancel(sessionId) {
    this.peer.notify("session/cancel", { sessionId });
    const affected = (s) => {
      for (let at = s; at !== undefined; at = this.parents.get(at)) if (at === sessionId) return true;
      return false;
    };
    for (const request of this.held.filter((r) => affected(r.params?.sessionId))) {
      this.#answer(request, { outcome: { outcome: "cancelled" } });
    }
  }

  /** Answers a held permission request by allowing it. */
  answerHeld(request) {
    this.#answer(request, { outcome: { outcome: "selected", optionId: allowOption(request) } });
  }

  waitFor(pred, ms = 60_000, options) {
    return this.peer.waitFor(pred, ms, options);
  }

  /** Resolves at the first `subagent_update` announcing a child (optionally of `parent`). */
  waitForChild(pred = () => true, ms = 60_000) {
    return this.waitFor((m) => {
      const u = m.params?.update;
      return m.method === "session/update" && u?.sessionUpdate === "subagent_update" && pred(u, m.params.sessionId);
    }, ms);
  }

  /** Resolves when `child` reports `idle` on its parent's stream. */
  waitForIdle(child, ms = 60_000, { fresh = true } = {}) {
    return this.waitFor(
      (m) => {
        const u = m.params?.update;
        return u?.sessionUpdate === "subagent_update" && u.sessionId === child && u.state?.state === "idle";
      },
      ms,
      { fresh },
    );
  }

  #answer(request, result) {
    const i = this.held.indexOf(request);
    if (i >= 0) this.held.splice(i, 1);
    this.peer.respond(request.id, result);
  }

  #onMessage(m) {
    const u = m.method === "session/update" ? m.params?.update : undefined;
    if (u?.sessionUpdate === "subagent_update" && typeof u.sessionId === "string") {
      this.parents.set(u.sessionId, m.params.sessionId);
    }
    if (m.method === undefined || m.id === undefined) return;
    if (m.method === "session/request_permission") {
      this.permissions.push(m);
      if (this.holdPermission(m)) this.held.push(m);
      else this.peer.respond(m.id, { outcome: { outcome: "selected", optionId: allowOption(m) } });
      return;
    }
    this.peer.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
  }
}

function allowOption(request) {
  const options = request.params?.options ?? [];
  const pick = options.find((o) => o.kind === "allow_once") ?? options.find((o) => o.kind?.startsWith("allow"));
  return (pick ?? options[0])?.optionId ?? "allow";
}

/** A promise that resolves after `ms`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A gate the scripted model can await to hold a call open. */
export function gate() {
  let open;
  const promise = new Promise((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
