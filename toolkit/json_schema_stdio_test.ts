// test-permissions: --allow-run --allow-env --allow-read --allow-write
// Hand-written JSON Schema 2020-12 over real stdio: the official SDK client
// and the MCP Inspector CLI list and call the tools of
// testdata/json_schema_server.ts ($defs and $ref, and the conformance suite's
// json-schema-2020-12 tool).
import assert from "node:assert/strict";
import { childEnv, spawnServer } from "@forge/toolkit/testing";
import { inspector, texts } from "../examples/inspector.ts";

const fixture = new URL("./testdata/json_schema_server.ts", import.meta.url).pathname;

const textOf = (result: { content: unknown }) => (result.content as { text: string }[])[0].text;

Deno.test({
  name: "the SDK client over stdio: a $defs/$ref tool lists its schema whole and is enforced through its references",
  permissions: { run: true, read: true, env: true },
  async fn() {
    const server = await spawnServer({ args: [fixture] });
    try {
      const { tools } = await server.client.listTools();
      const schedule = tools.find((t) => t.name === "schedule")!;
      const input = schedule.inputSchema as Record<string, { range?: unknown; slot?: unknown }>;
      assert.deepEqual(input.properties.range, { $ref: "#/$defs/range" }, "sent as written, references and all");
      assert.deepEqual(input.$defs.slot, { type: "integer", minimum: 0, maximum: 10 });

      const ok = await server.client.callTool({
        name: "schedule",
        arguments: { range: { from: 2, to: 4 }, tags: ["a"] },
      });
      assert.deepEqual([ok.isError, ok.structuredContent], [undefined, { slots: [2, 3, 4] }]);

      const refused: [Record<string, unknown>, string][] = [
        [{ range: { from: 12 } }, 'Invalid argument "range.from": must be at most 10 (maximum), got 12'],
        [{ range: { from: 1, to: -1 } }, 'Invalid argument "range.to": must be at least 0 (minimum), got -1'],
        [
          { range: { from: 1, step: 2 } },
          'Invalid argument "range.step": is not an allowed property (additionalProperties); its properties are "from", "to"',
        ],
        [{ range: {} }, 'Invalid argument "range.from": is missing (required)'],
        [
          { range: { from: 1 }, tags: ["a", "B"] },
          'Invalid argument "tags[1]": must match the pattern "^[a-z]+$" (pattern)',
        ],
        [
          { range: { from: 1 }, tags: ["a", "a"] },
          'Invalid argument "tags": must hold unique items (uniqueItems), but items 0 and 1 are equal',
        ],
      ];
      for (const [args, message] of refused) {
        const result = await server.client.callTool({ name: "schedule", arguments: args });
        assert.deepEqual([result.isError, textOf(result)], [true, message], JSON.stringify(args));
      }

      const conformance = tools.find((t) => t.name === "json_schema_2020_12_tool")!;
      assert.equal(conformance.inputSchema.$schema, "https://json-schema.org/draft/2020-12/schema");
      const phoned = await server.client.callTool({
        name: "json_schema_2020_12_tool",
        arguments: { name: "Ada", contactMethod: "phone", phone: "555", address: { city: "London" } },
      });
      assert.deepEqual([phoned.isError, textOf(phoned)], [undefined, "ok: Ada"]);
      const missing = await server.client.callTool({
        name: "json_schema_2020_12_tool",
        arguments: { contactMethod: "phone", email: "a@b.c" },
      });
      assert.deepEqual([missing.isError, textOf(missing)], [true, 'Invalid argument "phone": is missing (required)']);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  // Without the linear matcher V8 backtracks on this value for far longer than any test runs (2^50,000 paths): the
  // call never answers, and this test hangs until the runner is stopped, rather than failing an assertion.
  name:
    "over stdio, a 50,001-character value against ^(a+)+$ with no maxLength is refused, and the next request is answered",
  permissions: { run: true, read: true, env: true },
  async fn() {
    const server = await spawnServer({ args: [fixture] });
    try {
      const result = await server.client.callTool({ name: "word", arguments: { word: "a".repeat(50_000) + "!" } });
      assert.deepEqual(
        [result.isError, textOf(result)],
        [true, 'Invalid argument "word": must match the pattern "^(a+)+$" (pattern)'],
      );
      // The read loop is free again: the next request is answered.
      assert.ok((await server.client.listTools()).tools.some((t) => t.name === "word"));
      const ok = await server.client.callTool({ name: "word", arguments: { word: "a".repeat(50_000) } });
      assert.equal(ok.isError, undefined);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name:
    "the MCP Inspector CLI lists the conformance scenario's json-schema-2020-12 tool whole and calls it, valid and not",
  permissions: { run: true, read: true, write: true, env: true },
  async fn() {
    const env = Object.entries(childEnv()).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
    const cli = [
      "@modelcontextprotocol/inspector@0.15.0",
      "--cli",
      ...env,
      Deno.execPath(),
      "run",
      "--no-prompt",
      fixture,
    ];

    const list = await inspector([...cli, "--method", "tools/list"]);
    assert.equal(list.code, 0, list.stderr);
    const tool = (list.json.tools as { name: string; inputSchema: Record<string, unknown> }[])
      .find((t) => t.name === "json_schema_2020_12_tool")!;
    const schema = tool.inputSchema;
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal((schema.$defs as { address: { $anchor: string } }).address.$anchor, "addressDef");
    assert.deepEqual((schema.properties as Record<string, unknown>).address, { $ref: "#/$defs/address" });
    assert.equal(schema.additionalProperties, false);
    assert.ok(Array.isArray(schema.allOf) && "if" in schema && "then" in schema && "else" in schema);

    const call = ["--method", "tools/call", "--tool-name", "json_schema_2020_12_tool"];
    const valid = await inspector([...cli, ...call, "--tool-arg", "name=Ada", "contactMethod=email", "email=a@b.c"]);
    assert.equal(valid.code, 0, valid.stderr);
    assert.deepEqual([valid.json.isError, texts(valid.json)], [undefined, ["ok: Ada"]]);

    const invalid = await inspector([...cli, ...call, "--tool-arg", "name=Ada", "extra=1", "email=a@b.c"]);
    assert.equal(invalid.json.isError, true);
    assert.match(
      texts(invalid.json)[0],
      /^Invalid argument "extra": is not an argument of this tool \(additionalProperties\)/,
    );

    const neither = await inspector([...cli, ...call, "--tool-arg", "name=Ada"]);
    assert.deepEqual(texts(neither.json), ['Invalid arguments: must have "phone" or "email" (anyOf)']);
  },
});
