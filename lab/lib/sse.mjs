// Server-sent event bodies of the two model APIs the real programs call, built from a
// scripted reply. Only what the programs read is sent; ids are deterministic per reply.
//
// A reply is one of:
//   { text: "…" }                                   an assistant message
//   { calls: [{ name, namespace?, input }] }        tool calls (Responses: function_call;
//                                                    Messages: tool_use blocks)
//   { text: "…", calls: [...] }                     both (text first)
//   { fail: "…" }                                   the model call fails (Responses:
//                                                    response.failed; Messages: an error event)

/** One SSE frame. */
export function frame(event, data) {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The Responses API stream (Codex: `POST /v1/responses`). */
export function responsesStream(reply, n) {
  const id = `resp_${n}`;
  const out = [frame("response.created", { type: "response.created", response: { id } })];
  const items = [];
  if (reply.text !== undefined) {
    items.push({
      type: "message",
      id: `msg_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  (reply.calls ?? []).forEach((call, i) => {
    items.push({
      type: "function_call",
      id: `fc_${n}_${i}`,
      call_id: call.callId ?? `call_${n}_${i}`,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: JSON.stringify(call.input ?? {}),
    });
  });
  if (reply.fail !== undefined) {
    out.push(
      frame("response.failed", {
        type: "response.failed",
        response: { id, error: { code: "server_error", message: reply.fail } },
      }),
    );
    return out.join("");
  }
  items.forEach((item, output_index) => {
    const added = item.type === "message" ? { ...item, content: [], status: "in_progress" } : item;
    out.push(frame("response.output_item.added", { type: "response.output_item.added", output_index, item: added }));
    if (item.type === "message") {
      out.push(
        frame("response.output_text.delta", {
          type: "response.output_text.delta",
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: item.content[0].text,
        }),
      );
    } else {
      out.push(
        frame("response.function_call_arguments.delta", {
          type: "response.function_call_arguments.delta",
          item_id: item.id,
          output_index,
          delta: item.arguments,
        }),
      );
    }
    out.push(frame("response.output_item.done", { type: "response.output_item.done", output_index, item }));
  });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  out.push(frame("response.completed", { type: "response.completed", response: { id, usage } }));
  return out.join("");
}

/** The Messages API stream (Claude Code: `POST /v1/messages`). */
export function messagesStream(reply, n, model) {
  if (reply.fail !== undefined) {
    return frame("error", { type: "error", error: { type: "api_error", message: reply.fail } });
  }
  const out = [
    frame("message_start", {
      type: "message_start",
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
    frame("ping", { type: "ping" }),
  ];
  let index = 0;
  if (reply.text !== undefined) {
    out.push(frame("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    out.push(frame("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: reply.text } }));
    out.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index += 1;
  }
  const calls = reply.calls ?? [];
  calls.forEach((call, i) => {
    const id = call.callId ?? `toolu_${String(n).padStart(4, "0")}_${i}`;
    out.push(
      frame("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: call.name, input: {} },
      }),
    );
    out.push(
      frame("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input ?? {}) },
      }),
    );
    out.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index += 1;
  });
  out.push(
    frame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: calls.length ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
  );
  out.push(frame("message_stop", { type: "message_stop" }));
  return out.join("");
}
