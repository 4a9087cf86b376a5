// Compiled (not run) by test/types.test.js: the API as a TypeScript host uses it.
import { Engine, replay, changes, check, convert, LineageError } from '..';
import type { Change, Finding, ReplayDocument } from '..';

const engine = new Engine({ format: 'acp', spec: 'final', transcripts: false });
const out = engine.push({ from: 'client', message: { jsonrpc: '2.0', id: 1, method: 'session/new', params: {} } }, 1000);
const first: Change | undefined = out.changes[0];
if (first && first.type === 'acp_session_learned') {
  const session: string = first.session;
  void session;
}
const findings: Finding[] = out.findings;
const deadline: number | null = engine.pollTimeout();
const doc: ReplayDocument = engine.snapshot();
if (doc.format === 'acp' && 'connection' in doc) void doc.connection;
const end = engine.finish();
const all: ReplayDocument = end.snapshot;
const json = check('trace.jsonl');
const errors: number = json.summary.errors;
const junit: string = check(['a.jsonl', 'b.jsonl'], { format: 'junit' });
const converted = convert('trace.jsonl', { to: 'acp-v2' });
const text: string = converted.text;
try {
  replay('trace.jsonl', { session: 'R' });
  changes(new Uint8Array([123, 125]));
} catch (e) {
  if (e instanceof LineageError && e.code === 'unknown-format') void e.message;
}
void [findings, deadline, all, errors, junit, text];
