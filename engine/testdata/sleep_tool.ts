// The `sleep` tool the lifecycle and hostile-client servers share: it waits
// `ms` and honours its call's signal, so a test can hold a call open and see
// a deadline, a cancellation or a shutdown reach it. It prints
// `SLEEP_STARTED <ms>` on stderr as it starts: a test that must act while the
// call is in flight waits for that line (waitForStderr), not for time.
import { addTool, getInt, intProp, schema, type Server, text } from "../../mod.ts";

/** Read-only, idempotent and closed-world: the annotations of every fixture tool. */
export const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Adds `sleep {ms}` (default 100) to `server`. */
export function addSleepTool(server: Server): void {
  addTool(server, {
    name: "sleep",
    description: "Sleeps ms, honouring its signal",
    inputSchema: schema({ ms: intProp("ms") }),
    annotations: RO,
  }, (req) => {
    const ms = getInt(req.arguments, "ms", 100);
    console.error(`SLEEP_STARTED ${ms}`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(text(`slept ${ms}`)), ms);
      req.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(req.signal.reason);
      });
    });
  });
}
