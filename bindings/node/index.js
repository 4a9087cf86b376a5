'use strict';
// lineage for Node.js: the engine and the commands of `lineage`, through the napi-rs
// addon `lineage.node` (built by `npm run build`). The addon returns JSON text, parsed
// here; its errors carry their stable code in the message (`<code>\u001f<message>`),
// rethrown here as an `Error` with that `code`.

const native = require('./lineage.node');

const CODE_END = '\u001f';

/** A lineage error: `code` is stable (`usage`, `unreadable`, `unknown-format`, …). */
class LineageError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'LineageError';
    this.code = code;
  }
}

/** The addon's error as a LineageError (napi's own argument errors are `usage`). */
function rethrow(e) {
  const text = e && typeof e.message === 'string' ? e.message : String(e);
  const at = text.indexOf(CODE_END);
  if (at > 0) throw new LineageError(text.slice(0, at), text.slice(at + 1));
  throw new LineageError('usage', text);
}

function call(f) {
  try {
    return f();
  } catch (e) {
    rethrow(e);
  }
}

function usage(message) {
  return new LineageError('usage', message);
}

const isBytes = (v) => v instanceof Uint8Array;
const toBuffer = (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength));

/** A record as the addon takes it: a string, a Buffer, or an object as its JSON text. */
function asLine(record) {
  if (typeof record === 'string') return record;
  if (isBytes(record)) return toBuffer(record);
  if (record !== null && typeof record === 'object' && !Array.isArray(record)) {
    try {
      return JSON.stringify(record);
    } catch (e) {
      throw usage(`the record cannot be written as JSON: ${e.message}`);
    }
  }
  throw usage(`push takes a line (string or Buffer) or a record object, got ${describe(record)}`);
}

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

function asTime(at, name) {
  if (at === undefined || at === null) return undefined;
  if (typeof at !== 'number') throw usage(`${name} is a number of milliseconds, got ${describe(at)}`);
  return at;
}

function asOptions(options, name) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw usage(`${name} options are an object, got ${describe(options)}`);
  }
  return options;
}

/** The engine: push records as they pass, read what each changed. */
class Engine {
  constructor(options) {
    const o = asOptions(options, 'Engine');
    this._native = call(() => new native.NativeEngine(o));
  }

  /** Pushes the next line or record; returns `{changes, findings}`. */
  push(record, at) {
    const line = asLine(record);
    const time = asTime(at, 'at');
    return JSON.parse(call(() => this._native.push(line, time)));
  }

  /** The next deadline of a time rule (ms), or null. */
  pollTimeout() {
    return call(() => this._native.pollTimeout());
  }

  /** Time reached `now` (ms): the time rules due fire; returns `{changes, findings}`. */
  handleTimeout(now) {
    if (typeof now !== 'number') throw usage(`handleTimeout takes a number of milliseconds, got ${describe(now)}`);
    return JSON.parse(call(() => this._native.handleTimeout(now)));
  }

  /** The `replay --format json` document of the trace so far. */
  snapshot() {
    return JSON.parse(call(() => this._native.snapshot()));
  }

  /** The trace ended: `{changes, findings, snapshot}`; the engine is spent after it. */
  finish() {
    return JSON.parse(call(() => this._native.finish()));
  }
}

/** `[trace, isPath]`: a Buffer is text; a string is a trace's text when it holds a line
 * break or starts with `{`, a path otherwise. */
function asTrace(pathOrText) {
  if (isBytes(pathOrText)) return [toBuffer(pathOrText), false];
  if (typeof pathOrText !== 'string') {
    throw usage(`a trace is a path or a trace's text (string or Buffer), got ${describe(pathOrText)}`);
  }
  const text = pathOrText.includes('\n') || pathOrText.trimStart().startsWith('{');
  return [pathOrText, !text];
}

/** `lineage replay --format json`: the document. */
function replay(pathOrText, options) {
  const [trace, isPath] = asTrace(pathOrText);
  const o = asOptions(options, 'replay');
  return JSON.parse(call(() => native.replayJson(trace, isPath, o)));
}

/** `lineage replay --format changes`: every line of the stream, parsed. */
function changes(pathOrText, options) {
  const [trace, isPath] = asTrace(pathOrText);
  const o = asOptions(options, 'changes');
  return call(() => native.changesLines(trace, isPath, o)).map((line) => JSON.parse(line));
}

/** `lineage check --format F` (json by default): the document (parsed for json and
 * sarif, text otherwise). Several paths may be given as an array. */
function check(pathOrText, options) {
  const o = asOptions(options, 'check') || {};
  let traces;
  let isPath;
  if (Array.isArray(pathOrText)) {
    if (!pathOrText.every((p) => typeof p === 'string')) throw usage('check takes an array of paths (strings)');
    [traces, isPath] = [pathOrText, true];
  } else {
    const [trace, path] = asTrace(pathOrText);
    [traces, isPath] = [[isBytes(trace) ? trace.toString('utf8') : trace], path];
  }
  const [text] = call(() => native.check(traces, isPath, o));
  const format = o.format || 'json';
  return format === 'json' || format === 'sarif' ? JSON.parse(text) : text;
}

/** `lineage convert --to T`: `{text, findings, errors}` (each finding with its `file`). */
function convert(pathOrText, options) {
  const o = asOptions(options, 'convert');
  if (!o || typeof o.to !== 'string') throw usage('convert needs { to: "acp-v1" | "acp-v2" | "canonical" | "otlp-json" }');
  const [trace, isPath] = asTrace(pathOrText);
  return JSON.parse(call(() => native.convert(trace, isPath, o)));
}

module.exports = { Engine, LineageError, replay, changes, check, convert };
