// lineage for Node.js. The change, finding and document types are generated from the
// committed JSON Schemas (types/changes.d.ts from docs/changes.schema.json,
// types/replay.d.ts from docs/replay.schema.json).
import type { Change, Finding, StreamLine } from './types/changes';
import type { ReplayDocument } from './types/replay';

export type { Change, Finding, StreamLine, ReplayDocument };
export type { TreeDocument, ViewDocument } from './types/replay';

/** A trace format. */
export type Format = 'acp' | 'codex-app-server' | 'claude-sdk' | 'canonical';
/** A Subagent Sessions RFD revision. */
export type Spec = '2026-09-24' | '2026-10-05' | 'final';

/** The stable codes of a LineageError. */
export type ErrorCode =
  | 'usage'
  | 'unreadable'
  | 'unknown-format'
  | 'empty-input'
  | 'encoding'
  | 'output'
  | 'finished'
  | 'internal';

/** Every error lineage throws: `code` is stable. */
export declare class LineageError extends Error {
  readonly code: ErrorCode;
}

export interface EngineOptions {
  /** The format of a trace without a header (detected from content otherwise). */
  format?: Format;
  /** ACP: the RFD revision to check against. */
  spec?: Spec;
  /** ACP: keep message content in the Client view (default true). */
  transcripts?: boolean;
  /** Codex: the root thread id. */
  rootThread?: string;
}

/** What one push (or timeout, or the end) caused: the items of `replay --format changes`. */
export interface Output {
  changes: Change[];
  findings: Finding[];
}

/** The end of the trace: its last output and the final `replay --format json` document. */
export interface Finished extends Output {
  snapshot: ReplayDocument;
}

/** A trace record as an object: `{from, message, at?}`, `{event, at?}`, a header, … */
export type TraceRecord = { [key: string]: unknown };

/** The engine: push records as they pass, read what each changed. One thread's. */
export declare class Engine {
  constructor(options?: EngineOptions);
  /** The next physical line (string or bytes) or record; `at` (ms) is its time when it has none. */
  push(record: string | Uint8Array | TraceRecord, at?: number): Output;
  /** The next deadline of a time rule (ms), or null. */
  pollTimeout(): number | null;
  /** Time reached `now` (ms): the rules due fire. */
  handleTimeout(now: number): Output;
  /** The `replay --format json` document of the trace so far (cut here). */
  snapshot(): ReplayDocument;
  /** The trace ended. The engine throws `finished` after it. */
  finish(): Finished;
}

/** A path (a file, `-`, a native source folder) or a trace's text: a string holding a
 * line break or starting with `{` is text, a Buffer is text, any other string a path. */
export type PathOrText = string | Uint8Array;

export interface ReplayOptions {
  format?: Format;
  spec?: Spec;
  /** A native source with several session trees: the root to show. */
  session?: string;
  rootThread?: string;
  /** Cut after this physical line (no end-of-trace findings). */
  at?: number;
}

/** `lineage replay --format json`. */
export declare function replay(trace: PathOrText, options?: ReplayOptions): ReplayDocument;
/** `lineage replay --format changes`: every line. */
export declare function changes(trace: PathOrText, options?: ReplayOptions): StreamLine[];

export interface CheckOptions {
  format?: 'json' | 'sarif' | 'junit' | 'github' | 'human';
  denyWarnings?: boolean;
  spec?: Spec;
  /** The name a text is reported under (default `-`). */
  name?: string;
}

/** `lineage check --format json`. */
export interface CheckDocument {
  files: Array<{
    path: string;
    format: Format | null;
    findings: Finding[];
    error?: string;
    [key: string]: unknown;
  }>;
  summary: { files: number; errors: number; warnings: number; [key: string]: unknown };
}

/** `lineage check` (paths: an array of them): the document, parsed for json and sarif. */
export declare function check(trace: PathOrText | string[], options?: CheckOptions & { format?: 'json' }): CheckDocument;
export declare function check(trace: PathOrText | string[], options: CheckOptions & { format: 'sarif' }): Record<string, unknown>;
export declare function check(trace: PathOrText | string[], options: CheckOptions & { format: 'junit' | 'github' | 'human' }): string;

export interface ConvertOptions {
  to: 'acp-v1' | 'acp-v2' | 'canonical' | 'otlp-json';
  clientCaps?: 'subagents' | 'none';
  promptResponse?: 'settlement' | 'provider-end';
  reconnect?: boolean;
  format?: Format;
  session?: string;
}

/** `lineage convert`: the trace it writes and the input's findings (each with its file). */
export declare function convert(trace: PathOrText, options: ConvertOptions): {
  text: string;
  findings: Array<Finding & { file: string }>;
  errors: boolean;
};
