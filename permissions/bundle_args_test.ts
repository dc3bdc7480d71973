import assert from "node:assert/strict";
import { bundleArgs } from "./bundle_args.ts";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

Deno.test("bundleArgs() runs the entry's chunk with exactly the given flags, --no-prompt and the config", () => {
  assert.deepEqual(
    bundleArgs({
      entry: "examples/x/main.ts",
      flags: ["--allow-read=/a", "--deny-net=10.0.0.0/8"],
      outdir: "/opt/x",
      config: "/c.json",
    }),
    {
      bundle: ["bundle", "--code-splitting", "--minify", "--outdir", "/opt/x", "examples/x/main.ts"],
      run: [
        "run",
        "--no-prompt",
        ...RUNTIME_FLAGS,
        "--allow-read=/a",
        "--deny-net=10.0.0.0/8",
        "/opt/x/main.js",
        "-config",
        "/c.json",
      ],
    },
  );
  assert.deepEqual(bundleArgs({ entry: "server.mts", flags: [], outdir: "/o" }).run, [
    "run",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=8,--no-lazy",
    "/o/server.js",
  ]);
});

Deno.test("bundleArgs() refuses an unscoped flag and a relative config, in one line each", () => {
  for (const flag of ["-A", "--allow-read", "--allow-run", "--unstable-sloppy-imports"]) {
    assert.throws(
      () => bundleArgs({ entry: "m.ts", flags: ["--allow-env=A", flag], outdir: "/o" }),
      (err) =>
        err instanceof TypeError &&
        err.message === `Cannot bundle: ${JSON.stringify(flag)} is not a scoped permission flag`,
    );
  }
  assert.throws(
    () => bundleArgs({ entry: "m.ts", flags: [], outdir: "/o", config: "sample/config.json" }),
    (err) =>
      err instanceof TypeError && err.message === 'Cannot bundle: the config path "sample/config.json" is not absolute',
  );
});
