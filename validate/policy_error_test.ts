// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { ToolError } from "../internal/tool_error.ts";
import { PolicyError } from "./policy_error.ts";

Deno.test("PolicyError is a ToolError with a code, and keeps its cause off the message", () => {
  const cause = new Error("/real/host/path");
  const err = new PolicyError("symlink-escape", 'Cannot read "x": it leaves the allowed folders', { cause });
  assert.ok(err instanceof ToolError);
  assert.equal(err.name, "PolicyError");
  assert.equal(err.code, "symlink-escape");
  assert.equal(err.cause, cause);
  assert.ok(!err.message.includes("/real/host/path"));
});

const SOURCE = new URL("./policy_error.ts", import.meta.url);
const SECURITY = new URL("../docs/security.md", import.meta.url);

Deno.test({
  name: "every PolicyErrorCode is explained in its JSDoc and in docs/security.md's path jail section",
  permissions: { read: [SOURCE, SECURITY] },
  async fn() {
    const source = await Deno.readTextFile(SOURCE);
    const start = source.indexOf("export type PolicyErrorCode");
    const codes = [...source.slice(start, source.indexOf(";", start)).matchAll(/"([a-z-]+)"/g)].map((m) => m[1]);
    assert.ok(codes.length > 10 && codes.includes("not-found"), codes.join());
    const jsdoc = source.slice(source.lastIndexOf("/**", start), start);
    const security = await Deno.readTextFile(SECURITY);
    const section = security.slice(security.indexOf("### Path jail"), security.indexOf("### The check-then-use"));
    for (const code of codes) {
      assert.ok(jsdoc.includes(`\`${code}\``), `the JSDoc of PolicyErrorCode does not explain ${code}`);
      assert.ok(section.includes(`\`${code}\``), `docs/security.md's path jail section does not name ${code}`);
    }
  },
});
