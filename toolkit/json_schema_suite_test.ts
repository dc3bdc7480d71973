// test-permissions: --allow-read --allow-env=FORGE_JSON_SCHEMA_SUITE
// The official JSON Schema Test Suite (json-schema-org/JSON-Schema-Test-Suite,
// MIT licence), tests/draft2020-12, run through the public API as a user
// would meet it: each group's schema is one property of an object-rooted tool,
// each case is a tools/call over the real framer, once against inputSchema
// and once against outputSchema. The files used are vendored unchanged at
// SUITE_COMMIT in testdata/json_schema_test_suite (with the suite's licence);
// FORGE_JSON_SCHEMA_SUITE may point at another checkout instead.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { addTool, json, type ObjectSchema, schema, Server, text } from "@forge/toolkit";
import { serveRaw } from "@forge/toolkit/testing";
import { SUBSCHEMA_KEYWORDS } from "../jsonschema/subschema_keywords.ts";

/** The commit of the suite these figures and refusals were checked against (docs/typed-tools.md). */
const SUITE_COMMIT = "44401e0c046704b476ec9d2e2fccdaee618f259d";
const REMOTE = /remote references are refused, never fetched/;
const DIALECT = /only JSON Schema 2020-12 is validated/;

/**
 * The groups refused at registration, and why. Remote: the suite serves these
 * schemas from http://localhost:1234 (its remotes/ folder) or names the
 * official meta-schema by URL; the toolkit never fetches a schema. Dialect:
 * `$schema` names a custom meta-schema (from remotes/) that changes the
 * vocabularies, and only plain 2020-12 is validated.
 */
const REFUSED: [file: string, group: string, reason: RegExp][] = [
  ["defs.json", "validate definition against metaschema", REMOTE],
  ["dynamicRef.json", "strict-tree schema, guards against misspelled properties", REMOTE],
  ["dynamicRef.json", "tests for implementation dynamic anchor and reference link", REMOTE],
  ["dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first", REMOTE],
  ["dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first", REMOTE],
  ["dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor", REMOTE],
  ["ref.json", "remote ref, containing refs itself", REMOTE],
  ["refRemote.json", "*", REMOTE],
  ["vocabulary.json", "*", DIALECT],
];

interface Group {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

/** Per file: cases whose verdict agreed on both sides, cases refused at registration, cases with a wrong verdict. */
interface Tally {
  agree: number;
  refused: number;
  wrong: string[];
  refusals: { group: string; message: string }[];
}

const { single: SUBSCHEMA, maps: MAPS, lists: LISTS } = SUBSCHEMA_KEYWORDS;

/**
 * The group's schema as the `value` property of a tool's schema. JSON
 * Pointers in `$ref` are relative to the document's root, which is now the
 * tool's: where no `$id` intervenes they gain the `/properties/value` prefix,
 * as a user moving a schema into a tool would write them.
 */
function relocate(node: unknown): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const schema = { ...node as Record<string, unknown> };
  // Below an $id, pointers are relative to that resource, which moved with them.
  if (typeof schema.$id === "string") return schema;
  for (const keyword of ["$ref", "$dynamicRef"]) {
    const ref = schema[keyword];
    if (typeof ref === "string" && (ref === "#" || ref.startsWith("#/"))) {
      schema[keyword] = `#/properties/value${ref.slice(1)}`;
    }
  }
  for (const keyword of SUBSCHEMA) if (keyword in schema) schema[keyword] = relocate(schema[keyword]);
  for (const keyword of MAPS) {
    const map = schema[keyword];
    if (map !== null && typeof map === "object" && !Array.isArray(map)) {
      schema[keyword] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, relocate(v)]));
    }
  }
  for (const keyword of LISTS) {
    if (Array.isArray(schema[keyword])) schema[keyword] = (schema[keyword] as unknown[]).map((v) => relocate(v));
  }
  return schema;
}

function toolSchema(group: unknown): ObjectSchema {
  return {
    type: "object",
    properties: { value: relocate(group) as ObjectSchema },
    required: ["value"],
    additionalProperties: false,
  };
}

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

async function runFile(groups: Group[]): Promise<Tally> {
  const tally: Tally = { agree: 0, refused: 0, wrong: [], refusals: [] };
  const server = new Server({ name: "suite" });
  const usable: number[] = [];
  for (const [i, group] of groups.entries()) {
    try {
      addTool(
        server,
        { name: `in_${i}`, description: "d", inputSchema: toolSchema(group.schema), annotations: RO },
        () => text("ok"),
      );
      addTool(server, {
        name: `out_${i}`,
        description: "d",
        inputSchema: schema({}, [], { additionalProperties: true }),
        outputSchema: toolSchema(group.schema),
        annotations: RO,
      }, (req) => json(req.arguments));
      usable.push(i);
    } catch (err) {
      tally.refused += group.tests.length;
      tally.refusals.push({ group: group.description, message: (err as Error).message });
    }
  }
  const session = serveRaw(server);
  await session.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "suite", version: "1" } },
  }));
  await session.next();
  let id = 1;
  const call = async (name: string, value: unknown) => {
    await session.send(JSON.stringify({
      jsonrpc: "2.0",
      id: id++,
      method: "tools/call",
      params: { name, arguments: { value } },
    }));
    return await session.next();
  };
  for (const i of usable) {
    for (const test of groups[i].tests) {
      const input = await call(`in_${i}`, test.data);
      const result = input.result as { isError?: boolean; content: { text: string }[] };
      assert.ok(result !== undefined, JSON.stringify(input));
      if (result.isError) assert.match(result.content[0].text, /^Invalid argument/);
      const inputValid = result.isError !== true;
      const output = await call(`out_${i}`, test.data);
      if (output.error !== undefined) assert.equal((output.error as { code: number }).code, -32603);
      const outputValid = output.error === undefined;
      if (inputValid === test.valid && outputValid === test.valid) {
        tally.agree++;
      } else {
        tally.wrong.push(
          `${
            groups[i].description
          } / ${test.description}: expected ${test.valid}, input ${inputValid}, output ${outputValid}`,
        );
      }
    }
  }
  await session.close();
  return tally;
}

function suiteDir(): string | undefined {
  const fromEnv = Deno.env.get("FORGE_JSON_SCHEMA_SUITE");
  const dir = fromEnv ?? fileURLToPath(new URL("./testdata/json_schema_test_suite", import.meta.url));
  try {
    return Deno.statSync(`${dir}/tests/draft2020-12`).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

const dir = suiteDir();

Deno.test({
  name: dir === undefined
    ? "JSON Schema Test Suite draft2020-12 — NOT RUN: the suite was not found; set FORGE_JSON_SCHEMA_SUITE to a " +
      `checkout of ${SUITE_COMMIT.slice(0, 12)} (testdata/json_schema_test_suite holds one)`
    : "JSON Schema Test Suite draft2020-12 through tools/call: ≥ 99 % of applicable cases agree on input and output, " +
      "none is wrong, and only the listed groups are refused, for the listed reason",
  ignore: dir === undefined,
  async fn() {
    const folder = `${dir}/tests/draft2020-12`;
    // Every required file, and the optional one on the ECMA-262 dialect `pattern` is written in.
    const files = [...Deno.readDirSync(folder)].filter((e) => e.isFile && e.name.endsWith(".json")).map((e) => e.name)
      .sort().concat("optional/ecmascript-regex.json");
    const rows: string[] = [];
    const wrong: string[] = [];
    let agree = 0;
    let refused = 0;
    const refusedGroups = new Set<string>();
    for (const file of files) {
      const tally = await runFile(JSON.parse(await Deno.readTextFile(`${folder}/${file}`)));
      agree += tally.agree;
      refused += tally.refused;
      wrong.push(...tally.wrong.map((w) => `${file}: ${w}`));
      for (const { group, message } of tally.refusals) {
        const listed = REFUSED.find(([f, g]) => f === file && (g === "*" || g === group));
        assert.ok(listed !== undefined, `${file}: "${group}" is refused but not listed: ${message}`);
        assert.match(message, listed[2], `${file}: "${group}"`);
        refusedGroups.add(`${file}|${listed[1] === "*" ? "*" : group}`);
      }
      rows.push(`| ${file} | ${tally.agree} | ${tally.refused} | ${tally.wrong.length} |`);
    }
    console.log(
      `suite ${SUITE_COMMIT}\n| file | agree | refused | wrong |\n| --- | --- | --- | --- |\n${rows.join("\n")}\n` +
        `| total | ${agree} | ${refused} | ${wrong.length} |`,
    );
    assert.deepEqual(wrong, [], "no verdict is wrong");
    for (const [file, group] of REFUSED) {
      assert.ok(refusedGroups.has(`${file}|${group}`), `${file}: "${group}" is listed as refused but registered`);
    }
    assert.ok(agree / (agree + wrong.length) >= 0.99, `${agree} of ${agree + wrong.length} applicable cases agree`);
  },
});
