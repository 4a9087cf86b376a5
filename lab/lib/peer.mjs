// A program spoken to in JSON lines on its stdin/stdout (Codex app-server, Claude Code
// stream-json, an ACP agent), every line in both directions recorded in a Trace.
//
//   const peer = spawnPeer({ cmd, args, env, trace, sent: "client", received: "server" });
//   peer.send({...}); await peer.waitFor((m) => m.method === "turn/completed", 30_000);
//   const result = await peer.request("thread/start", {...});      // JSON-RPC helpers
//   await peer.stop();
//
// `tap(direction, line)`, if given, sees every raw line in the order the driver reads and
// writes them ("received": a stdout line as printed, without its newline, JSON or not;
// "sent": a stdin line as written), before anything else handles it.

import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

export function spawnPeer({ cmd, args = [], env = {}, cwd, trace, sent, received, stderr, jsonrpc = true, tap }) {
  const child = spawn(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  if (stderr) child.stderr.pipe(fs.createWriteStream(stderr));
  else child.stderr.resume();
  const seen = [];
  const waiters = [];
  const handlers = [];
  const pending = new Map();
  let nextId = 0;
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
    for (const w of waiters.splice(0)) w.reject(new Error(`${cmd} exited (${code ?? signal})`));
  });
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    tap?.("received", line);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a protocol line (a program's stray output): not part of the trace
    }
    trace.record(received, message);
    seen.push(message);
    if (jsonrpc && message.id !== undefined && message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(Object.assign(new Error(message.error.message), { rpc: message.error }));
      else resolve(message.result);
    }
    for (const h of handlers) h(message, peer);
    for (let i = waiters.length - 1; i >= 0; i -= 1) {
      if (waiters[i].pred(message)) waiters.splice(i, 1)[0].resolve(message);
    }
  });
  const peer = {
    child,
    seen,
    get exited() {
      return exited;
    },
    /** Writes one message to the program's stdin and records it. */
    send(message) {
      trace.record(sent, message);
      const line = JSON.stringify(message);
      tap?.("sent", line);
      child.stdin.write(line + "\n");
    },
    /** Calls `fn(message, peer)` for every message the program writes. */
    on(fn) {
      handlers.push(fn);
    },
    /** Resolves with the first message (already seen or later) matching `pred`. */
    waitFor(pred, ms = 60_000, { fresh = false } = {}) {
      if (!fresh) {
        const hit = seen.find(pred);
        if (hit) return Promise.resolve(hit);
      }
      return new Promise((resolve, reject) => {
        const w = { pred, resolve, reject };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`timed out after ${ms} ms waiting in ${cmd}`));
          }
        }, ms).unref();
      });
    },
    /** A JSON-RPC request (ids from 0 upward, as a real client's); resolves with its result. */
    request(method, params, ms = 60_000) {
      const id = nextId;
      nextId += 1;
      const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
      if (!jsonrpc) delete message.jsonrpc;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        setTimeout(() => {
          if (pending.delete(id)) reject(new Error(`${method} got no answer in ${ms} ms`));
        }, ms).unref();
        peer.send(message);
      });
    },
    /** A JSON-RPC notification. */
    notify(method, params) {
      const message = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
      if (!jsonrpc) delete message.jsonrpc;
      peer.send(message);
    },
    /** Answers a request the program sent. */
    respond(id, result) {
      const message = { jsonrpc: "2.0", id, result };
      if (!jsonrpc) delete message.jsonrpc;
      peer.send(message);
    },
    /** Ends the program: closes stdin, then SIGTERM and SIGKILL its process group. */
    async stop(graceMs = 2_000) {
      if (exited) return exited;
      child.stdin.end();
      const done = new Promise((resolve) => child.on("exit", () => resolve()));
      const timer = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([done, timer(graceMs)]);
      for (const signal of ["SIGTERM", "SIGKILL"]) {
        if (exited) break;
        try {
          process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
        await Promise.race([done, timer(graceMs)]);
      }
      return exited;
    },
  };
  return peer;
}
