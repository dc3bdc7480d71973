import assert from "node:assert/strict";
import { schema, strProp } from "@forge/toolkit";
import { prng } from "../../internal/prng.ts";
import { hostileArgs, toolCases } from "./_tool_cases.ts";
import { ATTACK_VALUES } from "./attack_values.ts";

const tool = {
  name: "write_file",
  inputSchema: schema({ path: strProp("The file"), content: strProp("Text") }, ["path", "content"]),
  annotations: { readOnlyHint: false },
};

Deno.test("toolCases() calls the tool with each derived argument, then probes that must run nothing", () => {
  let [id, tag] = [0, 0];
  const cases = toolCases(tool, {
    era: "2026-07-28",
    large: false,
    values: ATTACK_VALUES,
    valid: {},
    random: prng(1),
    nextId: () => String(++id),
    nextTag: () => `t${++tag}`,
  });
  const probes = cases.filter((c) => c.kind === "probe");
  assert.ok(probes.length >= 2 && probes.length <= 7, String(probes.length));
  assert.ok(
    probes.every((c) => c.inert && c.call?.probe && c.steps[0].line.includes('"forge.permission_patterns":true')),
  );
  assert.ok(probes.some((c) => c.title === "probe: the arguments that should pass"));
  assert.ok(cases.every((c) => c.tool === "write_file" && c.expect.length === 1));
});

Deno.test("hostileArgs() aims the first string argument at the canary and keeps the others passing", () => {
  assert.equal(hostileArgs(tool), '{"content":"forge","path":"@@up@@@@canary_file@@"}');
  assert.equal(hostileArgs(tool, { path: "a", content: "b" }), '{"content":"b","path":"@@up@@@@canary_file@@"}');
});
