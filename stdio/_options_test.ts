// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import * as defaults from "./_options.ts";

const DEFAULT_OF: Record<string, number> = {
  timeoutMs: defaults.DEFAULT_TIMEOUT_MS,
  maxInFlight: defaults.DEFAULT_MAX_IN_FLIGHT,
  maxInFlightBytes: defaults.DEFAULT_MAX_IN_FLIGHT_BYTES,
  maxMessageBytes: defaults.DEFAULT_MAX_MESSAGE_BYTES,
  maxQueuedBytes: defaults.WRITE_HIGH_WATER,
  maxDepth: defaults.DEFAULT_MAX_DEPTH,
  maxContainers: defaults.DEFAULT_MAX_CONTAINERS,
  maxValues: defaults.DEFAULT_MAX_VALUES,
  maxKeyBytes: defaults.DEFAULT_MAX_KEY_BYTES,
  shutdownGraceMs: defaults.DEFAULT_SHUTDOWN_GRACE_MS,
  maxTasks: defaults.DEFAULT_MAX_TASKS,
  maxTaskBytes: defaults.DEFAULT_MAX_MESSAGE_BYTES,
  taskTtlMs: defaults.DEFAULT_TASK_TTL_MS,
  taskPollIntervalMs: defaults.DEFAULT_TASK_POLL_INTERVAL_MS,
};

Deno.test("every numeric @default ServeOptions documents is the value of _options.ts that serve() applies", async () => {
  const text = await Deno.readTextFile(new URL("./serve_core.ts", import.meta.url));
  const options = text.slice(
    text.indexOf("export interface ServeOptions"),
    text.indexOf("export interface Connection"),
  );
  const documented = new Map(
    [...options.matchAll(/@default \{(\d+)\}\s*\*\/\s*(\w+)\?:/g)].map(([, value, name]) => [name, Number(value)]),
  );
  documented.delete("listTtlMs"); // 0: no caching, not a limit
  assert.deepEqual(Object.fromEntries(documented), DEFAULT_OF);
});
