// Every case for one tool in one era: its derived arguments, and probes that
// must run nothing, in an order the seed decides.
import type { ListedTool } from "../client.ts";
import { argsWith, argumentCases, baseline } from "./_arguments.ts";
import { type AttackCase, type AttackEra, callLine } from "./_case.ts";
import { shuffled } from "../../internal/prng.ts";
import type { AttackValue } from "./corpus.ts";

/** What the tool cases of a surface need. */
export interface ToolContext {
  era: AttackEra;
  large: boolean;
  values: readonly AttackValue[];
  valid: Readonly<Record<string, Record<string, unknown>>>;
  random: () => number;
  nextId(): string;
  nextTag(): string;
}

const PROBED = new Set(["path", "link", "url", "sql", "option", "command"]);

function readOnly(tool: ListedTool): boolean {
  return tool.annotations?.readOnlyHint === true;
}

/** Arguments for `tool` that should pass, with its first string argument aimed at the canary. */
export function hostileArgs(tool: ListedTool, valid?: Record<string, unknown>): string {
  const base = valid ?? baseline(tool.inputSchema, readOnly(tool));
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const first = Object.entries(properties).find(([, s]) => s.type === "string")?.[0];
  return first === undefined ? JSON.stringify(base) : argsWith(base, first, '"@@up@@@@canary_file@@"');
}

/** Arguments for `tool` that should pass. */
export function passingArgs(tool: ListedTool, valid?: Record<string, unknown>): string {
  return JSON.stringify(valid ?? baseline(tool.inputSchema, readOnly(tool)));
}

/** The cases of one tool. */
export function toolCases(tool: ListedTool, c: ToolContext): AttackCase[] {
  const derived = argumentCases(tool.inputSchema, c.values, {
    large: c.large,
    readOnly: readOnly(tool),
    valid: c.valid[tool.name],
  });
  const probes = [
    derived.find((d) => d.argument === undefined && d.passes)!,
    ...shuffled(derived.filter((d) => d.passes && PROBED.has(d.category)), c.random).slice(0, c.large ? undefined : 6),
  ].filter(Boolean);
  const out: AttackCase[] = [];
  for (const [kind, list] of [["argument", derived], ["probe", probes]] as const) {
    for (const d of list) {
      const id = c.nextId();
      const probe = kind === "probe";
      out.push({
        tag: c.nextTag(),
        kind,
        title: probe ? `probe: ${d.title}` : d.title,
        category: d.category,
        tool: tool.name,
        ...(d.argument === undefined ? {} : { argument: d.argument }),
        ...(d.passes === undefined ? {} : { passes: d.passes }),
        steps: [{ line: callLine(c.era, id, tool.name, d.args, probe) }],
        expect: [id],
        ...(probe ? { inert: true } : {}),
        call: { tool: tool.name, args: d.args, argument: d.argument, value: d.value, probe },
      });
    }
  }
  return shuffled(out, c.random);
}
