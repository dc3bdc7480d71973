import assert from "node:assert/strict";
import type { ConfigFiles } from "./config_includes.ts";
import { DriverCache } from "./driver_cache.ts";
import { parseDrivers } from "./hardening.ts";

const file = (text: string) => ({ bytes: Uint8Array.from(text, (c) => c.charCodeAt(0)), text });
const files = (common?: string, worktree?: string): ConfigFiles => ({
  common: common === undefined ? undefined : file(common),
  worktree: worktree === undefined ? undefined : file(worktree),
});

Deno.test("DriverCache gives the drivers kept for the same bytes of both config files, and nothing for any other", () => {
  const cache = new DriverCache();
  const drivers = parseDrivers("diff.x.textconv\ncat\0");
  assert.equal(cache.get("/r/.git", files("a")), undefined);
  assert.equal(cache.set("/r/.git", files("a"), drivers), drivers);
  assert.equal(cache.get("/r/.git", files("a")), drivers);
  assert.equal(cache.get("/other/.git", files("a")), undefined);
  for (const other of [files("b"), files("a", ""), files("a", "a"), files(), files("a\x81"), files("")]) {
    assert.equal(cache.get("/r/.git", other), undefined, JSON.stringify([other.common?.text, other.worktree?.text]));
  }
  const none = parseDrivers("");
  cache.set("/r/.git", files("a", "w"), none);
  assert.equal(cache.get("/r/.git", files("a")), undefined);
  assert.equal(cache.get("/r/.git", files("a", "w")), none);
});
