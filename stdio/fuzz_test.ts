// test-permissions: --allow-run --allow-read={repo} --allow-env=FORGE_FUZZ_FRAMES,FORGE_FUZZ_SEED,{child-env}
// A seeded fuzzer: feeds a real server subprocess malformed frames and checks
// that it never crashes, never writes anything but JSON-RPC to stdout, and
// still answers a valid call afterwards. 5k frames in the gate;
// `deno task fuzz` runs 200k (FORGE_FUZZ_FRAMES, FORGE_FUZZ_SEED to replay).
import assert from "node:assert/strict";
import { spawnRaw } from "@forge/toolkit/testing";
import { concatBytes } from "../internal/concat_bytes.ts";
import { prng } from "../internal/prng.ts";

const fixture = new URL("../engine/testdata/fixture_server.ts", import.meta.url).pathname;
const FRAMES = Number(Deno.env.get("FORGE_FUZZ_FRAMES") ?? 5_000);
const SEED = Number(Deno.env.get("FORGE_FUZZ_SEED") ?? 20261202);

const enc = new TextEncoder();
const METHODS = ["tools/call", "tools/list", "initialize", "ping", "server/discover", "subscriptions/listen", "x", ""];
const TOOLS = ["echo", "sleep", "steps", "nope", "", "__proto__", "constructor"];

function generator(rand: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const int = (n: number) => Math.floor(rand() * n);
  const scalar = (): unknown =>
    pick([null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, "", "x".repeat(int(200)), "é😀\u0000\u2028", int(1e9)]);
  const value = (depth: number): unknown => {
    if (depth > 3 || rand() < 0.5) return scalar();
    if (rand() < 0.5) return Array.from({ length: int(4) }, () => value(depth + 1));
    const obj: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) {
      const key = pick(["__proto__", "constructor", "prototype", "text", "ms", "n", "_meta", "a"]);
      Object.defineProperty(obj, key, {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return obj;
  };
  const message = (): Record<string, unknown> => {
    const m: Record<string, unknown> = {};
    if (rand() < 0.9) m.jsonrpc = rand() < 0.9 ? "2.0" : pick(["1.0", 2, null]);
    if (rand() < 0.8) m.id = rand() < 0.8 ? pick([int(1e6), `s${int(1e6)}`]) : scalar();
    m.method = rand() < 0.9 ? pick(METHODS) : scalar();
    if (rand() < 0.8) {
      m.params = rand() < 0.8
        ? {
          name: rand() < 0.8 ? pick(TOOLS) : scalar(),
          arguments: rand() < 0.8
            ? { text: scalar(), ms: pick([0, 1, -5, 1.5, "2", "x"]), n: pick([0, 1, 2]) }
            : value(0),
          _meta: rand() < 0.3
            ? {
              "io.modelcontextprotocol/protocolVersion": pick(["2026-07-28", "2025-11-25", 5]),
              "io.modelcontextprotocol/clientCapabilities": pick([{}, null, "x"]),
              "forge.permission_patterns": pick([true, false, "true"]),
              progressToken: pick([1, "p", null]),
            }
            : value(0),
        }
        : value(0);
    }
    return m;
  };
  const serialize = (v: unknown): string => {
    // JSON.stringify keeps defineProperty'd "__proto__" keys as own data.
    return JSON.stringify(v);
  };
  // Each strategy returns one frame without "\n".
  const strategies: (() => Uint8Array)[] = [
    () => enc.encode(serialize(message())),
    () => {
      const text = serialize(message());
      return enc.encode(text.slice(0, int(text.length)));
    },
    () =>
      Uint8Array.from({ length: int(300) }, () => {
        const b = int(256);
        return b === 0x0a ? 0x20 : b;
      }),
    () => enc.encode(serialize(value(0))),
    () => enc.encode("[".repeat(int(100_000)) + "]".repeat(int(2) ? 0 : 1)),
    () => enc.encode(`[${serialize(message())},${serialize(message())}]`),
    () => new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    () => enc.encode(serialize(message()) + "\r"),
    () =>
      enc.encode(
        `{"jsonrpc":"2.0","id":${int(100)},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${
          "\\u0041".repeat(int(50))
        }"}}}`,
      ),
  ];
  return () => pick(strategies)();
}

function isJsonRpcLine(line: string): boolean {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return false;
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return false;
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return false;
  if ("method" in m) return typeof m.method === "string";
  return "id" in m && (("result" in m) !== ("error" in m));
}

Deno.test({
  name: `the server survives ${FRAMES} seeded malformed frames (seed ${SEED}) and still answers afterwards`,
  permissions: { run: true, read: [new URL("..", import.meta.url).pathname], env: "inherit" },
  async fn() {
    const server = await spawnRaw({ args: [fixture, "--timeout=200"] });
    const next = generator(prng(SEED));
    const init = {
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
    };
    await server.send(JSON.stringify(init));
    const batch: Uint8Array[] = [];
    let size = 0;
    for (let i = 0; i < FRAMES; i++) {
      const frame = next();
      batch.push(frame, new Uint8Array([0x0a]));
      size += frame.length + 1;
      if (size > 256 * 1024 || i === FRAMES - 1) {
        await server.send(concatBytes(batch));
        batch.length = 0;
        size = 0;
      }
    }
    await server.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "final",
        method: "tools/call",
        params: { name: "echo", arguments: { text: "alive" } },
      }),
    );
    let final: Record<string, unknown> | undefined;
    for (let i = 0; i < FRAMES * 2 + 10 && !final; i++) {
      const msg = await server.next(30_000);
      if (msg.id === "final") final = msg;
    }
    assert.deepEqual((final!.result as { content: unknown }).content, [{ type: "text", text: "alive" }]);
    const status = await server.status();
    assert.equal(status.code, 0, `exit code; stderr: ${server.stderr().slice(-2000)}`);
    const bad = server.lines.filter((l) => !isJsonRpcLine(l));
    assert.deepEqual(bad.slice(0, 3), [], "every stdout line is one JSON-RPC message");
    assert.ok(server.lines.length > FRAMES / 4, "most frames were answered");
  },
});
