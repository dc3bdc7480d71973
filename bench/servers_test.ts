import assert from "node:assert/strict";
import { RUNTIME_FLAGS } from "../permissions/runtime_flags.ts";
import { BUNDLED, denoArgs, SERVERS, TYPED_SERVERS } from "./servers.ts";

Deno.test("denoArgs() starts the toolkit's servers with RUNTIME_FLAGS, as its launch lines do, and the others with Deno's defaults", () => {
  const ours = ["toolkit", BUNDLED.name, ...TYPED_SERVERS.map((s) => s.name)];
  for (const spec of [...SERVERS, { ...BUNDLED, file: "b.js" }, ...TYPED_SERVERS]) {
    const args = denoArgs(spec, ["--health"]);
    const expected = ours.includes(spec.name) ? RUNTIME_FLAGS : [];
    assert.deepEqual(args.slice(0, 3), ["run", "--quiet", "--no-lock"]);
    assert.deepEqual(args.slice(3, 3 + expected.length), [...expected], spec.name);
    assert.deepEqual(args.slice(3 + expected.length), [...spec.permissions, spec.file, "--health"], spec.name);
  }
});
