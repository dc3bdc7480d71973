import type { ListedTool } from "../client.ts";
import { type AttackCase, type AttackEra, handshake, request } from "./_case.ts";
import { classify } from "./_classes.ts";
import type { Verdict } from "./_judge.ts";
import { prng, shuffled } from "../../internal/prng.ts";
import { beforeInitialize, protocolCases } from "./_protocol_cases.ts";
import { settingsFor, type Watching } from "./_settings.ts";
import { shrinkAll } from "./_shrink.ts";
import { Surface } from "./_surface.ts";
import { hostileArgs, passingArgs, toolCases } from "./_tool_cases.ts";
import { createWorld, type World } from "./_world.ts";
import { ATTACK_VALUES } from "./attack_values.ts";
import type { AttackValue } from "./corpus.ts";
import { type AttackFinding, type AttackReport, type KnownFailure, matchesKnown } from "./report.ts";
import type { AttackTarget } from "./target.ts";

/** Options of {@linkcode attack}. */
export interface AttackOptions {
  /**
   * Decides the order of the cases and which probes are sent; a report names it so a run can be repeated.
   * @default {FORGE_ATTACK_SEED, else a random seed}
   */
  seed?: number;
  /**
   * `default` is sized for a test gate (seconds per server); `large` sends every value to every argument,
   * bigger sizes and floods.
   * @default {"large" when FORGE_ATTACK=large, else "default"}
   */
  corpus?: "default" | "large";
  /**
   * The protocol eras to attack, each on a fresh server.
   * @default {["2026-07-28", "2025-11-25"]}
   */
  eras?: AttackEra[];
  /**
   * Send the protocol cases (ids, frames, batches, methods, floods, slow reading); `false` attacks the tools only.
   * @default {true}
   */
  protocol?: boolean;
  /**
   * The most argument cases per tool in each era, picked by the seed across the values' categories; probes and
   * protocol cases are not counted. For servers whose calls are slow (a program per call), so the gate stays fast;
   * each run's seed picks others, and the large corpus ignores it.
   * @default {Infinity}
   */
  maxCasesPerTool?: number;
  /** More hostile values, sent with the built-in ones. */
  values?: readonly AttackValue[];
  /**
   * Per tool, arguments that pass its checks and reach deep into its handler (a repository name that exists);
   * each case changes one argument from these.
   * @default {built from each schema's defaults, examples, enums and bounds}
   */
  valid?: Readonly<Record<string, Record<string, unknown>>>;
  /**
   * Only these tools.
   * @default {every tool listed}
   */
  tools?: readonly string[];
  /** More paths to watch beyond the server's scope (a database file, the folder around the roots). */
  watch?: readonly string[];
  /** More places the server may change beyond its scope's `write`. */
  writable?: readonly string[];
  /**
   * How long each request may take to be answered.
   * @default {10000}
   */
  deadlineMs?: number;
  /**
   * The most resident memory the server may use, in bytes (a subprocess's from /proc; in memory, this process's).
   * @default {536870912}
   */
  maxRssBytes?: number;
  /**
   * The server's message size limit: the large corpus sends one byte more.
   * @default {67108864}
   */
  maxMessageBytes?: number;
  /** Findings to accept for now; see {@linkcode KnownFailure}. */
  knownFailures?: readonly KnownFailure[];
  /**
   * How many fresh servers the kit may start to replay findings alone and shrink them.
   * @default {6}
   */
  shrinkReplays?: number;
  /**
   * Plant a sibling folder beside each root and links inside it.
   * @default {true}
   */
  plant?: boolean;
  /**
   * Git repositories the server works in: the kit adds settings that make git run a program (`core.fsmonitor`,
   * `core.hooksPath`, `diff.external`, …) to each `.git/config`, and restores it at the end.
   * @default {[]}
   */
  repositories?: readonly string[];
  /**
   * Log and audit files the server writes (an `audit_file`): the lines each case adds are judged as stderr is, for
   * the canary secret and forged lines. Stderr is always read.
   * @default {[]}
   */
  logs?: readonly string[];
  /**
   * The most entries the watched paths may hold.
   * @default {10000}
   */
  maxWatchedEntries?: number;
  /**
   * How long the server may take to exit once its input ends.
   * @default {10000}
   */
  closeGraceMs?: number;
}

function fromEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
  return Deno.env.get(name);
}

/** The options a surface and a replay depend on. */
export function watching(options: AttackOptions): Watching {
  return {
    deadlineMs: options.deadlineMs ?? 10_000,
    maxRssBytes: options.maxRssBytes ?? 512 << 20,
    watch: options.watch ?? [],
    writable: options.writable ?? [],
    maxWatchedEntries: options.maxWatchedEntries ?? 10_000,
    plant: options.plant ?? true,
    repositories: options.repositories ?? [],
    logs: options.logs ?? [],
  };
}

/** Turns a verdict on a case into a finding. */
export function findingOf(v: Verdict, c: AttackCase, era: AttackEra, seed: number): AttackFinding {
  return {
    ...v,
    era,
    seed,
    case: c.title,
    category: c.category,
    ...(c.tool === undefined ? {} : { tool: c.tool }),
    ...(c.argument === undefined ? {} : { argument: c.argument }),
    ...(c.passes === undefined ? {} : { passes: c.passes }),
    ...classify(v.check, c),
    transcript: {
      era,
      title: c.title,
      steps: c.steps,
      expect: c.expect,
      ...(c.batch ? { batch: c.batch } : {}),
      ...(c.pause ? { pause: c.pause } : {}),
      ...(c.inert ? { inert: true } : {}),
      ...(c.refuse ? { refuse: c.refuse } : {}),
    },
    reproduced: "not replayed",
  };
}

interface Run {
  target: AttackTarget;
  eras: readonly AttackEra[];
  world: World;
  options: AttackOptions;
  seed: number;
  large: boolean;
  notes: string[];
  findings: { finding: AttackFinding; case: AttackCase }[];
  tools: Map<string, { cases: number; reachHandler: number; ms: number }>;
  cases: number;
  known: ListedTool[];
}

async function attackEra(run: Run, era: AttackEra, index: number): Promise<void> {
  let [n, id] = [0, 100];
  const random = prng(run.seed + index);
  const ctx = {
    era,
    large: run.large,
    maxMessageBytes: run.options.maxMessageBytes ?? 64 << 20,
    nextId: () => String(++id),
    nextTag: () => `e${index}c${++n}`,
  };
  const w = watching(run.options);
  const settings = (scope: Parameters<typeof settingsFor>[1]) =>
    settingsFor(run.world, scope, w, run.target.inProcess === true, run.notes);
  const pick = (tools: ListedTool[]) => tools.filter((t) => !run.options.tools || run.options.tools.includes(t.name));
  const valid = run.options.valid ?? {};
  const protocolTool = (tools: ListedTool[]) => {
    const tool = tools.find((t) => t.annotations?.readOnlyHint !== true) ?? tools[0];
    return tool && { name: tool.name, hostile: hostileArgs(tool, valid[tool.name]) };
  };
  if (run.known.length === 0 && era !== "2026-07-28" && run.options.protocol !== false) {
    // The call before initialize needs a tool's name: learn them from a server of their own.
    const { surface } = await Surface.open(run.target, run.world, era, settings);
    run.known = surface.tools;
    await surface.connection.close(run.options.closeGraceMs ?? 10_000);
  }
  const first = run.options.protocol === false
    ? undefined
    : beforeInitialize({ ...ctx, tool: protocolTool(pick(run.known)), tools: [] });
  let { surface, verdicts } = await Surface.open(run.target, run.world, era, settings, first);
  const record = (list: Verdict[], c: AttackCase) => {
    for (const v of list) run.findings.push({ finding: findingOf(v, c, era, run.seed), case: c });
  };
  const opening: AttackCase = {
    tag: "open",
    kind: "protocol",
    category: "protocol",
    title: "initialize and tools/list",
    steps: [...handshake(era), { line: request(era, '"forge-tools"', "tools/list") }],
    expect: ['"forge-tools"'],
  };
  if (first) record(verdicts.filter((v) => v.check !== "not-json"), first);
  record(verdicts.filter((v) => v.check === "not-json"), opening);
  const tools = pick(surface.tools);
  if (run.known.length === 0) run.known = surface.tools;
  const values = [...ATTACK_VALUES, ...(run.options.values ?? [])];
  const max = run.large ? Infinity : run.options.maxCasesPerTool;
  const cases = [
    ...(run.options.protocol === false ? [] : protocolCases({
      ...ctx,
      tool: protocolTool(tools),
      tools: tools.map((t) => ({ name: t.name, args: passingArgs(t, valid[t.name]) })),
    })),
    ...tools.flatMap((tool) => {
      const mine = toolCases(tool, { ...ctx, values, valid, random })
        .filter((c) => run.large || c.kind !== "argument" || ownEra(c, run.seed, run.eras) === index);
      return capped(mine, max, random);
    }),
  ];
  let restarts = 0;
  for (const c of cases) {
    const started = performance.now();
    verdicts = await surface.run(c);
    record(verdicts, c);
    run.cases++;
    if (c.tool !== undefined) {
      const stats = run.tools.get(c.tool) ?? { cases: 0, reachHandler: 0, ms: 0 };
      stats.cases++;
      if (c.passes && c.kind === "argument") stats.reachHandler++;
      stats.ms += performance.now() - started;
      run.tools.set(c.tool, stats);
    }
    if (verdicts.some((v) => v.check === "dead")) {
      await surface.connection.close(0);
      if (++restarts > 5) {
        run.notes.push(`Stopped the ${era} surface after 5 restarts: the server keeps dying`);
        return;
      }
      ({ surface, verdicts } = await Surface.open(run.target, run.world, era, settings));
      record(verdicts, opening);
    }
  }
  const last = cases.at(-1) ?? first;
  const closing = await surface.close(run.options.closeGraceMs ?? 10_000);
  if (last) record(closing, { ...last, title: "end of input", kind: "protocol", category: "protocol" });
}

/**
 * At most `max` of one tool's argument cases, taken in turn from each
 * category (shuffled by the seed), so that every kind of value keeps a share.
 */
export function capped(cases: AttackCase[], max: number | undefined, random: () => number): AttackCase[] {
  const args = cases.filter((c) => c.kind === "argument");
  if (max === undefined || args.length <= max) return cases;
  const groups = [...new Set(args.map((c) => c.category))]
    .map((category) => shuffled(args.filter((c) => c.category === category), random));
  const kept = new Set<AttackCase>();
  for (let round = 0; kept.size < max; round++) {
    for (const group of groups) if (group[round] && kept.size < max) kept.add(group[round]);
  }
  return cases.filter((c) => c.kind !== "argument" || kept.has(c));
}

/**
 * The era that sends an argument case in the default corpus: a handler's code
 * is the same in every era, so each argument case goes to one era, chosen by
 * the seed; protocol cases and probes, which differ by era, go to every era.
 * The large corpus sends everything everywhere.
 */
function ownEra(c: AttackCase, seed: number, eras: readonly AttackEra[]): number {
  let hash = 2166136261 ^ seed;
  for (const ch of `${c.tool}\u0000${c.argument}\u0000${c.title}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619);
  return (hash >>> 0) % eras.length;
}

function dedupe(findings: Run["findings"]): Run["findings"] {
  const seen = new Set<string>();
  return findings.filter(({ finding: f }) => {
    // A hostile config runs whatever case calls git first: one finding per program it ran.
    const key = f.check === "config-ran"
      ? [f.era, f.check, f.what].join("\u0000")
      : [f.era, f.check, f.tool, f.argument, f.case].join("\u0000");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Attacks every tool a server lists, in each protocol era as its own
 * surface: arguments derived from each tool's input schema (values that pass
 * it, so they reach the handler, and values that break it) and protocol
 * abuse. Each case is judged by ground truth the kit planted: a canary
 * secret that must never come back or reach stderr, a folder outside the
 * policy and the server's own roots watched before and after every case, a
 * loopback listener that records every connection, a marker that shows a
 * forged log line; and every request must get its own id back in time, the
 * server must stay up, within its memory bound, and exit cleanly at the end.
 * Findings are replayed alone on a fresh server and shrunk.
 *
 * @param target What to attack: {@linkcode inMemoryTarget} or {@linkcode subprocessTarget}.
 * @param options See {@linkcode AttackOptions}.
 * @returns The report; {@linkcode assertNoFindings} fails a test on it.
 * @throws {Error} When the server does not start or does not answer `initialize` and `tools/list`.
 *
 * @example Attack a server started under its own flags
 * ```ts ignore
 * import { printedPermissions } from "@forge/toolkit/permissions";
 * import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";
 *
 * const flags = await printedPermissions({ script: "main.ts", config: "config.json" });
 * const report = await attack(subprocessTarget({ args: [...flags, "main.ts", "-config", "config.json"] }));
 * assertNoFindings(report);
 * ```
 */
export async function attack(target: AttackTarget, options: AttackOptions = {}): Promise<AttackReport> {
  const started = performance.now();
  const envSeed = Number(fromEnv("FORGE_ATTACK_SEED"));
  const seed = options.seed ??
    (Number.isSafeInteger(envSeed) && envSeed > 0 ? envSeed : (Math.random() * 2 ** 31) >>> 0);
  const large = (options.corpus ?? (fromEnv("FORGE_ATTACK") === "large" ? "large" : "default")) === "large";
  const eras = options.eras ?? ["2026-07-28", "2025-11-25"];
  const run: Run = {
    target,
    eras,
    world: await createWorld(),
    options,
    seed,
    large,
    notes: [],
    findings: [],
    tools: new Map(),
    cases: 0,
    known: [],
  };
  try {
    for (const [index, era] of eras.entries()) await attackEra(run, era, index);
  } finally {
    await run.world.dispose();
  }
  const all = dedupe(run.findings);
  const entries = options.knownFailures ?? [];
  const isKnown = (f: AttackFinding) => entries.find((e) => matchesKnown(f, e));
  await shrinkAll(target, all.filter(({ finding }) => !isKnown(finding)), options, options.shrinkReplays ?? 6);
  const findings: AttackFinding[] = [];
  const known: AttackFinding[] = [];
  for (const { finding } of all) {
    const entry = isKnown(finding);
    if (entry) known.push({ ...finding, known: entry.note });
    else findings.push(finding);
  }
  return {
    target: target.name,
    seed,
    eras,
    corpus: large ? "large" : "default",
    tools: [...run.tools].map(([name, s]) => ({ name, ...s, ms: Math.round(s.ms) })),
    cases: run.cases,
    ms: Math.round(performance.now() - started),
    findings,
    known,
    stale: entries.filter((e) => !all.some(({ finding }) => matchesKnown(finding, e))),
    notes: run.notes,
  };
}
