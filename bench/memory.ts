// Peak memory of one toolkit process for one large or deep message: the
// target is peak RSS ≤ 4 × N + 64 MiB, N the message's size in bytes. Each
// case runs on a fresh process, and the kernel's high-water mark (VmHWM) is
// read after the answer, so a transient peak is not missed.

import type { Message } from "./driver.ts";
import { type Cell, echoed, echoLine, type Env, start } from "./measure.ts";
import { formatBytes, type Plan } from "./plan.ts";
import type { Target } from "./report.ts";
import type { ServerSpec } from "./servers.ts";

const MiB = 1024 * 1024;

/** One memory case: what is sent, and what answer proves it was handled. */
interface PeakCase {
  label: string;
  /** The request lines (one each); N is the largest message in or out. */
  lines: (id: number) => string[];
  /** The size N the target is computed from, in bytes. */
  bytes: number;
  check: (message: Message) => boolean;
  /** Whether the 4 × N + 64 MiB target applies (false: informative). */
  judged: boolean;
}

/** A peak reading with the target it is judged against. */
export interface PeakCell {
  cell: Cell;
  /** 4 × N + 64 MiB, in MiB; undefined when the case is informative. */
  limitMiB: number | undefined;
}

/** The toolkit server's maxContainers: its default, which the bench server keeps. */
const MAX_CONTAINERS = 100_000;

function cases(plan: Plan): PeakCase[] {
  const { messageBytes, depth, replyBytes, replies } = plan.peaks;
  const deep = "[".repeat(depth) + "]".repeat(depth);
  const deepLine = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","pad":${deep}}}}\n`;
  // Three bytes of text per empty array, tens of bytes each once parsed. Past the server's
  // the server's maxContainers the message is refused before it is parsed.
  const empties = Math.floor(messageBytes / 3);
  const emptiesLine = (count: number) => {
    const line = `{"jsonrpc":"2.0","id":ID,"method":"ping","params":{"pad":[${"[],".repeat(count - 1)}[]]}}\n`;
    return (id: number) => line.replace("ID", String(id));
  };
  const many = emptiesLine(empties);
  const refusesEmpties = empties + 3 > MAX_CONTAINERS;
  // The most a message may hold: the message, params and pad, and the rest empty arrays.
  const mostEmpties = Math.min(empties, MAX_CONTAINERS - 3);
  const atLimit = emptiesLine(mostEmpties);
  // A control character is escaped to six bytes in JSON: the reply is ~6 × its text.
  const escaped = 6 * replyBytes;
  const blobLine = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"blob","arguments":{"bytes":${replyBytes}}}}\n`;
  const blobReply = (m: Message) => {
    const content = (m.result as { content?: { text?: string }[] } | undefined)?.content;
    return content?.[0]?.text?.length === replyBytes;
  };
  const text = "x".repeat(messageBytes - echoLine(1, "").length);
  // One character outside Latin-1 makes every string of the message two bytes per character in V8.
  const wide = "€" + text.slice(3);
  return [
    {
      label: `one ${formatBytes(messageBytes)} message (echo: the reply is as large)`,
      lines: (id) => [echoLine(id, text)],
      bytes: messageBytes,
      check: (m) => echoed(m, text),
      judged: true,
    },
    {
      label: `one ${formatBytes(messageBytes)} message of ASCII and one € (echo: the strings are two-byte)`,
      lines: (id) => [echoLine(id, wide)],
      bytes: messageBytes,
      check: (m) => echoed(m, wide),
      judged: true,
    },
    {
      label: `one message nested ${depth.toLocaleString("en-US")} deep (refused: -32600 naming maxDepth)`,
      lines: (id) => [deepLine(id)],
      bytes: deepLine(1).length,
      check: (m) => (m.error as { code?: number } | undefined)?.code === -32600,
      judged: true,
    },
    {
      label: `one ${formatBytes(messageBytes)} message of ${empties.toLocaleString("en-US")} empty arrays (${
        refusesEmpties ? "refused: -32600 naming maxContainers" : "answered"
      })`,
      lines: (id) => [many(id)],
      bytes: many(1).length,
      check: (m) =>
        refusesEmpties ? (m.error as { code?: number } | undefined)?.code === -32600 : m.result !== undefined,
      judged: true,
    },
    {
      label: `one message of ${mostEmpties.toLocaleString("en-US")} empty arrays (answered: ${
        refusesEmpties ? "just within maxContainers" : "the whole message"
      })`,
      lines: (id) => [atLimit(id)],
      bytes: atLimit(1).length,
      check: (m) => m.result !== undefined,
      judged: true,
    },
    {
      label: `one reply of ${formatBytes(replyBytes)} of control characters (~${formatBytes(escaped)} escaped)`,
      lines: (id) => [blobLine(id)],
      bytes: escaped,
      check: blobReply,
      judged: true,
    },
    {
      label: `${replies} such replies requested at once (informative: ${replies} messages, not one)`,
      lines: (id) => Array.from({ length: replies }, (_, i) => blobLine(id + i)),
      bytes: escaped,
      check: blobReply,
      judged: false,
    },
  ];
}

/** Runs every case on a fresh toolkit process; keyed by the case's label. */
export async function peakRuns(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<Record<string, PeakCell>> {
  const toolkit = servers.find((s) => s.name === "toolkit");
  if (!toolkit) return {};
  const out: Record<string, PeakCell> = {};
  for (const c of cases(plan)) {
    const limitMiB = c.judged ? (4 * c.bytes) / MiB + 64 : undefined;
    out[c.label] = { cell: await peakOf(env, toolkit, c, plan.peaks.timeoutMs).catch(failure), limitMiB };
  }
  return out;
}

async function peakOf(env: Env, spec: ServerSpec, c: PeakCase, timeoutMs: number): Promise<Cell> {
  const server = await start(env, spec);
  try {
    const first = server.nextId();
    const lines = c.lines(first);
    for (let i = 1; i < lines.length; i++) server.nextId();
    const outcomes = await Promise.all(lines.map((line, i) => server.requestLine(first + i, line, timeoutMs)));
    for (const outcome of outcomes) {
      if (outcome.kind !== "reply") return { failed: outcome.reason };
      if (!c.check(outcome.message)) {
        return { failed: `wrong answer: ${JSON.stringify(outcome.message).slice(0, 160)}` };
      }
    }
    const memory = await server.memoryKiB();
    if (memory?.peak === undefined) return { failed: "VmHWM unreadable" };
    return { value: memory.peak / 1024, detail: `N = ${formatBytes(c.bytes)}` };
  } finally {
    await server.close();
  }
}

function failure(err: unknown): Cell {
  return { failed: err instanceof Error ? err.message : String(err) };
}

/** One target line per judged case: peak RSS ≤ 4 × N + 64 MiB. */
export function peakTargets(peaks: Record<string, PeakCell>): Target[] {
  const out: Target[] = [];
  for (const [label, { cell, limitMiB }] of Object.entries(peaks)) {
    if (limitMiB === undefined) continue;
    const name = `peak RSS ≤ 4 × N + 64 MiB: ${label}`;
    out.push(
      "value" in cell
        ? {
          name,
          measured: `${cell.value.toFixed(0)} MiB (limit ${limitMiB.toFixed(0)} MiB, ${cell.detail})`,
          pass: cell.value <= limitMiB,
        }
        : { name, measured: cell.failed, pass: false },
    );
  }
  return out;
}
