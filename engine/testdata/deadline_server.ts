// A server for the deadline tests: `held_<ms>` (100, 101 and 1001) has a
// deadline of that many ms and runs until its signal fires, noting how long
// after its handler started that was; `elapsed` answers those notes as JSON,
// by tool name. A handler starts before its call's deadline does (the call
// enters the table once its handler has returned a promise), so each note is
// at least the time from the deadline's start to its enforcement.
import { addTool, health, run, schema, text } from "../../mod.ts";
import { RO } from "./sleep_tool.ts";

const elapsed: Record<string, number> = {};

if (!health()) {
  await run("deadlines", (server) => {
    for (const ms of [100, 101, 1_001]) {
      const name = `held_${ms}`;
      addTool(server, {
        name,
        description: `Runs until its signal fires (deadline ${ms} ms)`,
        inputSchema: schema(),
        annotations: RO,
        timeoutMs: ms,
      }, ({ signal }) => {
        const started = performance.now();
        return new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            elapsed[name] = performance.now() - started;
            resolve(text("aborted"));
          }, { once: true });
        });
      });
    }
    addTool(server, {
      name: "elapsed",
      description: "How long each held_ call ran before its signal fired",
      inputSchema: schema(),
      annotations: RO,
    }, () => text(JSON.stringify(elapsed)));
  });
}
