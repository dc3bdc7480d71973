import assert from "node:assert/strict";
import { compileArgs } from "./compile_args.ts";

Deno.test("compileArgs() bakes exactly the given flags, embeds the config and passes it as -config", () => {
  assert.deepEqual(
    compileArgs({
      entry: "m.ts",
      flags: ["--allow-read=/a", "--deny-net=10.0.0.0/8"],
      output: "out/x",
      config: "/c.json",
      target: "x86_64-unknown-linux-gnu",
    }),
    [
      "compile",
      "--no-prompt",
      "--v8-flags=--max-semi-space-size=8,--no-lazy",
      "--allow-read=/a",
      "--deny-net=10.0.0.0/8",
      "--include",
      "/c.json",
      "--target",
      "x86_64-unknown-linux-gnu",
      "--output",
      "out/x",
      "m.ts",
      "-config",
      "/c.json",
    ],
  );
  assert.deepEqual(compileArgs({ entry: "m.ts", flags: [], output: "o" }), [
    "compile",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=8,--no-lazy",
    "--output",
    "o",
    "m.ts",
  ]);
});

Deno.test("compileArgs() refuses unscoped or non-permission flags and a relative config", () => {
  for (const flag of ["-A", "--allow-all", "--allow-read", "--allow-net=", "--unstable", "--v8-flags=--x"]) {
    assert.throws(() => compileArgs({ entry: "m.ts", flags: [flag], output: "o" }), /is not a scoped permission flag/);
  }
  assert.throws(() => compileArgs({ entry: "m.ts", flags: [], output: "o", config: "c.json" }), /is not absolute/);
});
