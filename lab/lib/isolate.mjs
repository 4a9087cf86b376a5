// Every provider process runs in its own network namespace with only loopback up, so it
// can reach nothing but the scripted model on 127.0.0.1. `isolate()` re-executes the
// calling script under `unshare -n` (as root) once, and checks the namespace after.

import { execFileSync, spawnSync } from "node:child_process";

/** Re-runs this script in a fresh loopback-only network namespace; returns inside it. */
export function isolate() {
  if (process.env.LINEAGE_LAB_ISOLATED !== "1") {
    const run = spawnSync(
      "unshare",
      ["-n", "--", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)],
      { stdio: "inherit", env: { ...process.env, LINEAGE_LAB_ISOLATED: "1" } },
    );
    if (run.error) {
      console.error(`cannot isolate the network (unshare -n needs root): ${run.error.message}`);
      process.exit(2);
    }
    process.exit(run.status ?? 1);
  }
  const links = execFileSync("ip", ["-o", "link"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => l.split(":")[1]?.trim());
  if (links.some((name) => name !== "lo")) {
    console.error(`not isolated: links ${links.join(", ")}`);
    process.exit(2);
  }
}
