// A recorded trace: records are kept in memory with the wall-clock time they crossed the
// pipe (`at`, Unix ms) and written, header first, when the scenario ends; the header holds
// what the scenario expects, written from the seeds and from the ids the traffic showed.

import fs from "node:fs";
import path from "node:path";

export class Trace {
  constructor() {
    this.records = [];
  }

  /** Records one message as read or written on the wire. */
  record(from, message) {
    this.records.push({ from, message, at: Date.now() });
  }

  /** Records an ACP transport event (`connected` / `disconnected`). */
  transport(event) {
    this.records.push({ from: "transport", event, at: Date.now() });
  }

  /** Writes `file`: the header line, then one line per record. */
  write(file, header) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lines = [JSON.stringify({ lineage: "trace", version: 1, ...header })];
    for (const r of this.records) lines.push(JSON.stringify(r));
    fs.writeFileSync(file, lines.join("\n") + "\n");
  }
}
