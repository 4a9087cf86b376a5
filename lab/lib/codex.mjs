// What the Codex drivers (app-server and codex-acp) share: the CODEX_HOME config that
// points Codex at the scripted model, and reading a Responses API request.

/** `config.toml` for the scripted model at `url`; options add approvals, a sandbox mode,
 *  multi-agent v2 and a nesting depth. */
export function codexConfig({ url, approval = "never", sandbox = "read-only", v2 = false, maxDepth }) {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = "${approval}"`,
    `sandbox_mode = "${sandbox}"`,
    "check_for_update_on_startup = false",
    "[model_providers.mock]",
    'name = "Mock"',
    `base_url = "${url}/v1"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "[analytics]",
    "enabled = false",
    ...(v2 ? ["[features]", "multi_agent_v2 = true"] : []),
    ...(maxDepth ? ["[agents]", `max_depth = ${maxDepth}`] : []),
    "",
  ].join("\n");
}

/** The function call outputs this request carries (what the agent's tools answered so far). */
export function outputs(req) {
  return (req.body.input ?? []).filter((i) => i.type === "function_call_output");
}

/** The agent ids the spawn calls returned, in order (v1 answers `{"agent_id": …}`). */
export function spawnedIds(req) {
  const ids = [];
  for (const o of outputs(req)) {
    const text = typeof o.output === "string" ? o.output : JSON.stringify(o.output ?? "");
    const m = /"agent_id"\s*:\s*"([^"]+)"/.exec(text);
    if (m) ids.push(m[1]);
  }
  return ids;
}

/** The `[task:X]` marker of a child's own task (its first user message), or null. */
export function taskMarker(req) {
  for (const item of req.body.input ?? []) {
    if (item.role !== "user") continue;
    const m = /\[task:(\w+)\]/.exec(JSON.stringify(item.content ?? ""));
    if (m) return m[1];
  }
  return null;
}
