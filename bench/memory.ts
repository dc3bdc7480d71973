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
  /** The id of the case's one request, when it is the case's own (a long string id), not the driver's next number. */
  id?: string;
}

/** A peak reading with the target it is judged against. */
export interface PeakCell {
  cell: Cell;
  /** 4 × N + 64 MiB, in MiB; undefined when the case is informative. */
  limitMiB: number | undefined;
}

/** The toolkit server's maxContainers and maxValues: its defaults, which the bench server keeps. */
const MAX_CONTAINERS = 100_000;
const MAX_VALUES = 150_000;
/** The toolkit server's maxKeyBytes, its default. */
const MAX_KEY_BYTES = 16_383;

/** The 2026-07-28 envelope, for the case that carries a `requestState`. */
const MODERN_META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
});

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** A 2026-07-28 request of `method` with `params` and the tasks extension declared. */
function modernRequest(id: string, method: string, params: Record<string, unknown>): string {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  return `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })}\n`;
}

const answered = (m: Message) => m.result !== undefined || m.error !== undefined;
const refused = (m: Message) => (m.error as { code?: number } | undefined)?.code === -32600;

/** A line of `ping` whose params hold `pad` (JSON text), with `ID` for the id. */
const pingWith = (pad: string) => `{"jsonrpc":"2.0","id":ID,"method":"ping","params":{"pad":${pad}}}\n`;

/** `count` comma-separated items made by `item`, built in one pass. */
function items(count: number, item: (i: number) => string): string {
  const parts: string[] = new Array(count);
  for (let i = 0; i < count; i++) parts[i] = item(i);
  return parts.join(",");
}

/** How many items of about `each` bytes fill `bytes`. */
const fill = (bytes: number, each: number) => Math.max(1, Math.floor(bytes / each));

/** A ping whose pad holds `count` distinct strings of six characters. */
const stringsLine = (count: number) => pingWith(`[${items(count, (i) => `"s${i.toString(36).padStart(5, "0")}"`)}]`);
/** A ping whose pad is an object of `count` distinct keys. */
const keysLine = (count: number) => pingWith(`{${items(count, (i) => `"k${i.toString(36).padStart(6, "0")}":0`)}}`);
const withId = (line: string) => (id: number) => [line.replace("ID", String(id))];
/**
 * The case of a ping whose pad holds `count` distinct strings of `length`
 * bytes as sent, each with a € (two-byte): as an array of them, or as an
 * object's keys; answered.
 */
function wideCase(count: number, length: number, as: "strings" | "keys"): PeakCase {
  const filler = "a".repeat(length - 9);
  const item = (i: number) => `"€${i.toString(36).padStart(6, "0")}${filler}"${as === "keys" ? ":0" : ""}`;
  const pad = items(count, item);
  const line = pingWith(as === "keys" ? `{${pad}}` : `[${pad}]`);
  const bytes = new TextEncoder().encode(line).length;
  return {
    label: `one ${formatBytes(bytes)} message of ${
      count.toLocaleString("en-US")
    } ${as} of ${length} bytes, each with a € (answered)`,
    lines: withId(line),
    bytes,
    check: answered,
    judged: true,
  };
}
// The most of each a ping may hold: its own eight commas and colons, then one per string, two per key.
const mostStrings = MAX_VALUES - 8;
const mostKeys = Math.floor((MAX_VALUES - 7) / 2);

/** The cases that scale with the message: one set per size of the plan. */
function sizedCases(bytes: number): PeakCase[] {
  const size = formatBytes(bytes);
  const text = "x".repeat(bytes - echoLine(1, "").length);
  // One character outside Latin-1 makes every string of the message two bytes per character in V8.
  const wide = "€" + text.slice(3);
  const longId = "€" + "a".repeat(bytes - echoLine(1, "x").length - 5);
  const taskGet = modernRequest(longId, "tasks/get", { taskId: "none" });
  const listen = modernRequest(longId, "subscriptions/listen", { notifications: {} });
  // Text as a file holds it: a line break every 80 characters, escaped as \n in JSON, and one €.
  const row = "x".repeat(79) + "\n";
  const lines = "€" + row.repeat(Math.floor((bytes - echoLine(1, "").length - 3) / 81));
  // Distinct short strings, numbers and keys: each is a few bytes of text and a heap object or slot once parsed.
  const strings = stringsLine(fill(bytes, 9));
  const numbers = pingWith(`[${items(fill(bytes, 8), (i) => String(1_000_000 + i))}]`);
  const keyCount = fill(bytes, 13);
  // As many strings as a message may hold, each starting with a two-byte character, as long as the size asks:
  // just over the length the large-line parser once decoded apart (64 bytes), where each cost an object.
  const mediumCount = Math.max(1, Math.min(mostStrings, Math.floor(bytes / 69)));
  const mediumLength = Math.max(66, Math.floor(bytes / mediumCount) - 3);
  const medium = pingWith(`[${items(mediumCount, () => `"é${"a".repeat(mediumLength - 2)}"`)}]`);
  const mediumAscii = pingWith(`[${items(mediumCount, () => `"${"a".repeat(mediumLength)}"`)}]`);
  const keys = `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"echo","arguments":{${
    items(keyCount, (i) => `"k${i.toString(36).padStart(6, "0")}":0`)
  }},"requestState":"junk","_meta":${MODERN_META}}}\n`;
  // One argument key as long as the message, with a €: past maxKeyBytes (16,383), so refused before V8 copies it.
  const keyLength = bytes - echoLine(1, "x").length - 6;
  const longKey = (id: number) => echoLine(id, "x").replace('"x"}', `"x","€${"a".repeat(keyLength - 3)}":1}`);
  // As many argument keys as a message may hold, each with a € (two-byte), as long as the size asks.
  const wideKeys = wideCase(mostKeys, Math.max(10, Math.floor(bytes / mostKeys) - 4), "keys");
  // Each item is a value, and the rest of a ping line holds eight commas and colons.
  const refusal = (count: number) => count + 8 > MAX_VALUES ? "refused: -32600 naming maxValues" : "answered";
  const answer = (count: number) => count + 8 > MAX_VALUES ? refused : answered;
  return [
    {
      label: `one ${size} message of ASCII (echo: the reply is as large)`,
      lines: (id) => [echoLine(id, text)],
      bytes,
      check: (m) => echoed(m, text),
      judged: true,
    },
    {
      label: `one ${size} message of ASCII and one € (echo: the strings are two-byte)`,
      lines: (id) => [echoLine(id, wide)],
      bytes,
      check: (m) => echoed(m, wide),
      judged: true,
    },
    {
      // The reply carries the id: a long one is written as a large string is, never quoted whole.
      label: `one ${size} message whose id is ASCII and one € (the reply carries it)`,
      id: longId,
      lines: () => [echoLine(longId, "x")],
      bytes,
      check: (m) => echoed(m, "x"),
      judged: true,
    },
    {
      // 2026-07-28 requests that carry the id into their replies and notifications through other builders than a
      // call's: tasks/get's, and subscriptions/listen's acknowledgement and completion (the id twice: over
      // maxMessageBytes at 60 MiB, so answered by the error that names the limit, under the id).
      label: `one ${size} 2026-07-28 tasks/get whose id is ASCII and one € (answered: Task not found)`,
      id: longId,
      lines: () => [taskGet],
      bytes: utf8Bytes(taskGet),
      check: (m) => (m.error as { code?: number } | undefined)?.code === -32602,
      judged: true,
    },
    {
      label:
        `one ${size} 2026-07-28 subscriptions/listen whose id is ASCII and one € (answered: complete, or the error naming maxMessageBytes)`,
      id: longId,
      lines: () => [listen],
      bytes: utf8Bytes(listen),
      check: (m) =>
        (m.result as { resultType?: unknown } | undefined)?.resultType === "complete" || m.error !== undefined,
      judged: true,
    },
    {
      label: `one ${size} message of lines of text and one € (echo: escaped, two-byte)`,
      lines: (id) => [echoLine(id, lines)],
      bytes,
      check: (m) => echoed(m, lines),
      judged: true,
    },
    {
      label: `one ${size} message of ${fill(bytes, 9).toLocaleString("en-US")} short strings (${
        refusal(fill(bytes, 9))
      })`,
      lines: withId(strings),
      bytes: strings.length,
      check: answer(fill(bytes, 9)),
      judged: true,
    },
    {
      label: `one ${size} message of ${
        mostStrings.toLocaleString("en-US")
      } ASCII strings of ${mediumLength} bytes (answered)`,
      lines: withId(mediumAscii),
      bytes: mediumAscii.length,
      check: (m) => m.result !== undefined,
      judged: true,
    },
    {
      label: `one ${size} message of ${
        mediumCount.toLocaleString("en-US")
      } strings of ${mediumLength} bytes, each with an é (answered)`,
      lines: withId(medium),
      bytes: new TextEncoder().encode(medium).length,
      check: (m) => m.result !== undefined,
      judged: true,
    },
    {
      label: `one ${size} message whose one argument key is that long, with a € (${
        keyLength > MAX_KEY_BYTES ? "refused: -32600 naming maxKeyBytes" : "answered"
      })`,
      lines: (id) => [longKey(id)],
      bytes,
      check: keyLength > MAX_KEY_BYTES ? refused : answered,
      judged: true,
    },
    { ...wideKeys, check: (m) => m.result !== undefined },
    {
      label: `one ${size} message of ${fill(bytes, 8).toLocaleString("en-US")} numbers (${refusal(fill(bytes, 8))})`,
      lines: withId(numbers),
      bytes: numbers.length,
      check: answer(fill(bytes, 8)),
      judged: true,
    },
    {
      label: `one ${size} 2026-07-28 call of ${
        keyCount.toLocaleString("en-US")
      } argument keys and a junk requestState (${refusal(2 * keyCount)})`,
      lines: withId(keys),
      bytes: keys.length,
      check: answer(2 * keyCount),
      judged: true,
    },
  ];
}

function cases(plan: Plan): PeakCase[] {
  const { messageSizes, depth, replyBytes, replies } = plan.peaks;
  const largest = Math.max(...messageSizes);
  const deep = "[".repeat(depth) + "]".repeat(depth);
  const deepLine = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","pad":${deep}}}}\n`;
  // Three bytes of text per empty array, tens of bytes each once parsed. Past
  // the server's maxContainers the message is refused before it is parsed.
  const empties = Math.floor(largest / 3);
  const emptiesLine = (count: number) => {
    const line = pingWith(`[${"[],".repeat(count - 1)}[]]`);
    return (id: number) => line.replace("ID", String(id));
  };
  const many = emptiesLine(empties);
  const refusesEmpties = empties + 3 > MAX_CONTAINERS;
  // The most a message may hold: the message, params and pad, and the rest empty arrays.
  const mostEmpties = Math.min(empties, MAX_CONTAINERS - 3);
  // As many as a message may hold, or as the plan's largest message holds (the smoke plan's is 1 MiB).
  const wideStringCount = Math.min(mostStrings, fill(largest, 254));
  const shortWideKeyCount = Math.min(mostKeys, fill(largest, 505));
  const atLimit = emptiesLine(mostEmpties);
  // A control character is escaped to six bytes in JSON: the reply is ~6 × its text.
  const escaped = 6 * replyBytes;
  const blobLine = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"blob","arguments":{"bytes":${replyBytes}}}}\n`;
  const blobReply = (m: Message) => {
    const content = (m.result as { content?: { text?: string }[] } | undefined)?.content;
    return content?.[0]?.text?.length === replyBytes;
  };
  return [
    ...messageSizes.flatMap(sizedCases),
    {
      label: `one message nested ${depth.toLocaleString("en-US")} deep (refused: -32600 naming maxDepth)`,
      lines: (id) => [deepLine(id)],
      bytes: deepLine(1).length,
      check: refused,
      judged: true,
    },
    {
      label: `one ${formatBytes(largest)} message of ${empties.toLocaleString("en-US")} empty arrays (${
        refusesEmpties ? "refused: -32600 naming maxContainers" : "answered"
      })`,
      lines: (id) => [many(id)],
      bytes: many(1).length,
      check: (m) => refusesEmpties ? refused(m) : m.result !== undefined,
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
      label: `one message of ${
        mostStrings.toLocaleString("en-US")
      } distinct short strings (answered: just within maxValues)`,
      lines: withId(stringsLine(mostStrings)),
      bytes: stringsLine(mostStrings).length,
      check: answered,
      judged: true,
    },
    {
      label: `one message of ${mostKeys.toLocaleString("en-US")} keys (answered: just within maxValues)`,
      lines: withId(keysLine(mostKeys)),
      bytes: keysLine(mostKeys).length,
      check: answered,
      judged: true,
    },
    // Strings short enough to stay in the large-line parser's skeleton (256 bytes), each with a €: the skeleton is
    // written as ASCII with escapes, and the values are two-byte. Just over the target today (docs/reliability.md,
    // "Many short two-byte values").
    wideCase(wideStringCount, 250, "strings"),
    // Keys short enough to stay in the skeleton (512 bytes), each with a €: the same, with V8's copy of each key.
    wideCase(shortWideKeyCount, 500, "keys"),
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
    const ids = c.id === undefined ? lines.map((_, i) => first + i) : [c.id];
    const outcomes = await Promise.all(lines.map((line, i) => server.requestLine(ids[i], line, timeoutMs)));
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
