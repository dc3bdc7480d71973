import assert from "node:assert/strict";
import { Server } from "@forge/toolkit";
import { ConfigSchema } from "../domain/config.ts";
import { Manager } from "../domain/manager.ts";
import { registerAll } from "./register.ts";

Deno.test("registerAll() registers fetch_url and nothing else", () => {
  const server = new Server({ name: "http" });
  registerAll(server, new Manager(() => Promise.resolve(ConfigSchema.parse({})), { timeoutMs: 10_000 }));
  assert.deepEqual(server.toolNames, ["fetch_url"]);
});

Deno.test("registerAll() refuses to register the tools twice on one server", () => {
  const server = new Server({ name: "http" });
  const mgr = new Manager(() => Promise.resolve(ConfigSchema.parse({})), { timeoutMs: 10_000 });
  registerAll(server, mgr);
  assert.throws(() => registerAll(server, mgr), TypeError);
});
