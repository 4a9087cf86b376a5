// The scripted model: one HTTP server on 127.0.0.1 that answers the Responses API
// (Codex) and the Messages API (Claude Code) with SSE built from a scenario's script.
// Only the model is scripted; everything the programs write is theirs.
//
//   const model = await startModel(async (req) => ({ text: "done" }));
//   … point the program at model.url …
//   await model.close();
//
// `req` describes one model call: { api: "responses" | "messages", n (1-based call
// number), child (the program marked it as a subagent's call), agent (Codex:
// x-codex-turn-metadata.agent_name; Claude: null), meta (Codex turn metadata or {}),
// text (every text the request carries, joined, for matching), body, headers }.
// The script may await (to hold a call open) and returns a reply (see sse.mjs); a reply
// with `status` is answered as that HTTP error instead (`fail` its message).

import http from "node:http";
import { messagesStream, responsesStream } from "./sse.mjs";

function texts(value, out = []) {
  // Every string under a "text"/"content"/"input"/"output" key, iteratively.
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === "string" && ["text", "content", "input", "output", "arguments"].includes(k)) out.push(x);
        else if (typeof x === "object") stack.push(x);
      }
    }
  }
  return out;
}

function describe(api, n, headers, body) {
  let meta = {};
  try {
    meta = JSON.parse(headers["x-codex-turn-metadata"] ?? "{}");
  } catch {
    meta = {};
  }
  const system = Array.isArray(body.system) ? body.system.map((b) => b.text ?? "").join("\n") : String(body.system ?? "");
  const child =
    api === "responses" ? headers["x-openai-subagent"] !== undefined : system.includes("cc_is_subagent=true");
  const text = texts(api === "responses" ? body.input : body.messages).join("\n");
  return { api, n, child, agent: meta.agent_name ?? null, meta, system, text, body, headers };
}

/** Starts the model server; resolves to { url, port, requests, close() }. */
export async function startModel(script, { model = "claude-sonnet-4-5" } = {}) {
  const requests = [];
  let n = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (c) => chunks.push(c));
    request.on("end", async () => {
      const url = request.url ?? "";
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        body = {};
      }
      if (request.method !== "POST") {
        response.writeHead(404).end();
        return;
      }
      if (url.includes("/messages/count_tokens")) {
        response.writeHead(200, { "content-type": "application/json" }).end('{"input_tokens":10}');
        return;
      }
      const api = url.includes("/responses") ? "responses" : url.includes("/messages") ? "messages" : null;
      if (!api) {
        response.writeHead(404).end();
        return;
      }
      n += 1;
      const req = describe(api, n, request.headers, body);
      requests.push(req);
      let reply;
      try {
        reply = (await script(req)) ?? { text: "ok" };
      } catch (e) {
        reply = { fail: String(e) };
      }
      if (reply.status !== undefined) {
        // An HTTP error answer (e.g. 400 invalid_request_error, which is not retried).
        response.writeHead(reply.status, { "content-type": "application/json" });
        response.end(JSON.stringify({ type: "error", error: { type: reply.errorType ?? "invalid_request_error", message: reply.fail ?? "error" } }));
        return;
      }
      if (api === "messages" && body.stream === false && reply.fail !== undefined) {
        // Claude Code retries a failed stream without streaming: fail that call too (a
        // 400 is not retried), or the failure would turn into a success.
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: reply.fail } }));
        return;
      }
      if (api === "messages" && body.stream === false) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            id: `msg_${n}`,
            type: "message",
            role: "assistant",
            model,
            content: [{ type: "text", text: reply.text ?? "ok" }],
            stop_reason: "end_turn",
            usage: { input_tokens: 10, output_tokens: 5 },
          }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.end(api === "responses" ? responsesStream(reply, n) : messagesStream(reply, n, model));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.address().port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
