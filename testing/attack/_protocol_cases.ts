// Protocol abuse, the same for every server: ids JSON cannot hold, frames too
// deep, too large or not UTF-8, batches, unknown and case-variant methods,
// cancellations of ids never sent, floods of notifications, a client that
// stops reading, and calls that must run nothing.
import { type AttackCase, type AttackEra, type AttackStep as Step, callLine, envelope, request } from "./_case.ts";

/** What protocol cases need to know about the run. */
export interface ProtocolContext {
  era: AttackEra;
  large: boolean;
  /** The server's message size limit, when a case may send one byte more. */
  maxMessageBytes: number;
  /** A tool to call, with arguments that reach its handler and touch the canary if they can. */
  tool: { name: string; hostile: string } | undefined;
  /** Every tool, with arguments that should pass. */
  tools: { name: string; args: string }[];
  nextId(): string;
  nextTag(): string;
}

type Draft = Omit<AttackCase, "tag" | "kind" | "category">;

function idCases(c: ProtocolContext): Draft[] {
  const ids: [string, string][] = [
    ["id 1e400", "1e400"],
    ["id 2^53+1", "9007199254740993"],
    ["id of 30 digits", "123456789012345678901234567890"],
    ["id -0", "-0"],
    ["id 1.50", "1.50"],
    ["id with a newline", '"forge\\nid"'],
    ["id with a line separator", '"forge\\u2028id"'],
  ];
  const out: Draft[] = ids.map(([title, id]) => ({
    title,
    steps: [{ line: request(c.era, id, "tools/list") }],
    expect: [id],
  }));
  for (const [title, id] of [["id true", "true"], ["id an object", "{}"], ["id an array", "[1]"]]) {
    out.push({ title, steps: [{ line: request(c.era, id, "tools/list") }], expect: ["null"] });
  }
  return out;
}

function frameCases(c: ProtocolContext): Draft[] {
  const list = (title: string, params: string, large = false): Draft[] => {
    if (large && !c.large) return [];
    const id = c.nextId();
    return [{ title, steps: [{ line: request(c.era, id, "tools/list", `{"x":${params}}`) }], expect: [`${id}|null`] }];
  };
  const out = [
    ...list("frame nested 100 000 deep", "@@repeat:100000:[@@@@repeat:100000:]@@"),
    ...list("frame of 200 000 empty arrays", "[@@repeat:199999:[],@@[]]"),
    ...list("frame with invalid UTF-8", '"@@bytes:ff fe fd@@"'),
    ...list("frame with an overlong UTF-8 slash", '"..@@bytes:c0 af@@.."'),
    ...list("frame with a UTF-8 surrogate", '"@@bytes:ed a0 80@@"'),
    ...list("frame one byte over the limit", `"@@repeat:${c.maxMessageBytes}:A@@"`, c.maxMessageBytes > 8 << 20),
  ];
  const cut = c.nextId();
  out.push({
    title: "frame cut short",
    steps: [{ line: `{"jsonrpc":"2.0","id":${cut},"method":"tools/list"` }],
    expect: [`${cut}|null`],
  });
  out.push({ title: "frame not JSON", steps: [{ line: "forge attack" }], expect: ["null"] });
  return out;
}

function batchCases(c: ProtocolContext): Draft[] {
  const [a, b] = [c.nextId(), c.nextId()];
  const out: Draft[] = [{
    title: "batch of two",
    steps: [{ line: `[${request(c.era, a, "tools/list")},${request(c.era, b, "tools/list")}]` }],
    expect: [],
    batch: [a, b],
  }, { title: "empty batch", steps: [{ line: "[]" }], expect: ["null"] }];
  if (c.large) {
    const from = Number(c.nextId());
    for (let i = 1; i < 1025; i++) c.nextId();
    const items = Array.from({ length: 1025 }, (_, i) => request(c.era, String(from + i), "tools/list"));
    out.push({
      title: "batch of 1025",
      steps: [{ line: `[${items.join(",")}]` }],
      expect: [],
      batch: items.map((_, i) => String(from + i)),
    });
  }
  return out;
}

function methodCases(c: ProtocolContext): Draft[] {
  const out: Draft[] = [];
  for (
    const method of ["resources/read", "Tools/List", "TOOLS/LIST", "tools/list ", "tools/list\u0000", "tools//list"]
  ) {
    const id = c.nextId();
    out.push({
      title: `method ${JSON.stringify(method)}`,
      steps: [{ line: request(c.era, id, method) }],
      expect: [id],
      refuse: method === "resources/read"
        ? "the server has no such method"
        : "the name differs from tools/list in case or spacing",
    });
  }
  if (c.tool) {
    for (const method of ["Tools/Call", "TOOLS/CALL", "tools/call "]) {
      const id = c.nextId();
      const params = `{"name":${JSON.stringify(c.tool.name)},"arguments":${c.tool.hostile}}`;
      out.push({
        title: `method ${JSON.stringify(method)}`,
        steps: [{ line: request(c.era, id, method, params) }],
        expect: [id],
        refuse: "the name differs from tools/call in case or spacing",
        inert: true,
      });
    }
    const unknown = c.nextId();
    out.push({
      title: "a tool that does not exist",
      steps: [{ line: callLine(c.era, unknown, "../forge-attack", "{}") }],
      expect: [unknown],
      refuse: "the tool does not exist",
    });
    const dup = c.nextId();
    const line = callLine(c.era, dup, c.tool.name, c.tool.hostile);
    out.push({ title: "one id twice at once", steps: [{ line }, { line }], expect: [dup, dup] });
  }
  return out;
}

function notificationCases(c: ProtocolContext): Draft[] {
  const meta = envelope(c.era) ? `,"_meta":{${envelope(c.era)}}` : "";
  const cancels = ['"requestId":999999', '"requestId":"forge-never-sent"', '"requestId":null', '"requestId":1e400', ""];
  const steps: Step[] = cancels.map((p) => ({
    line: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{${p}${p && meta ? meta : meta.slice(1)}}}`,
  }));
  const flood = c.large ? 100_000 : 2_000;
  return [
    { title: "cancellation of ids never sent", steps, expect: [] },
    {
      title: `${flood} notifications at once`,
      steps: [{
        line: '{"jsonrpc":"2.0","method":"notifications/forge-attack","params":{"n":@@n@@}}',
        repeat: flood,
        from: 0,
      }],
      expect: [],
    },
  ];
}

/** Arguments with a 32 KiB extra one: a server that logs what it refuses has that much to write to stderr. */
function withNoise(args: string): string {
  const noise = '"forge_attack_noise":"@@repeat:32768:N@@"';
  return args === "{}" ? `{${noise}}` : `{${noise},${args.slice(1)}`;
}

function slowReaderCases(c: ProtocolContext): Draft[] {
  const count = c.large ? 20_000 : 500;
  const from = Number(c.nextId());
  for (let i = 1; i < count; i++) c.nextId();
  const expect = Array.from({ length: count }, (_, i) => String(from + i));
  const out: Draft[] = [{
    title: `${count} requests while stdout is not read`,
    steps: [{ line: request(c.era, "@@n@@", "tools/list"), repeat: count, from }],
    expect,
    pause: "stdout",
  }];
  const steps: Step[] = [];
  const ids: string[] = [];
  for (const tool of c.tools) {
    for (let i = 0; i < 4; i++) {
      const id = c.nextId();
      ids.push(id);
      steps.push({
        line: callLine(c.era, id, tool.name, withNoise(tool.args)),
      });
    }
  }
  out.push({ title: "calls while stderr is not read", steps, expect: ids, pause: "stderr" });
  return out;
}

/** Every protocol case of a surface. */
export function protocolCases(c: ProtocolContext): AttackCase[] {
  const drafts = [
    ...idCases(c),
    ...frameCases(c),
    ...batchCases(c),
    ...methodCases(c),
    ...notificationCases(c),
    ...slowReaderCases(c),
  ];
  if (c.era === "2026-07-28" && c.tool) {
    const params = `{"name":${JSON.stringify(c.tool.name)},"arguments":${c.tool.hostile}}`;
    const broken: [string, string][] = [
      ["envelope without clientCapabilities", '"io.modelcontextprotocol/protocolVersion":"2026-07-28"'],
      [
        "envelope of an unknown version",
        '"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}',
      ],
      [
        "envelope version with a space",
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28 ","io.modelcontextprotocol/clientCapabilities":{}',
      ],
    ];
    for (const [title, meta] of broken) {
      const id = c.nextId();
      const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${
        params.slice(0, -1)
      },"_meta":{${meta}}}}`;
      drafts.push({
        title,
        steps: [{ line }],
        expect: [id],
        refuse: `the _meta envelope is broken (${title})`,
        inert: true,
      });
    }
  }
  return drafts.map((d) => ({ ...d, tag: c.nextTag(), kind: "protocol", category: "protocol" }));
}

/** The legacy era's first case: a call before `initialize`, which must run nothing. */
export function beforeInitialize(c: ProtocolContext): AttackCase | undefined {
  if (c.era === "2026-07-28" || !c.tool) return undefined;
  const id = c.nextId();
  return {
    tag: c.nextTag(),
    kind: "protocol",
    category: "protocol",
    title: "a call before initialize",
    steps: [{ line: callLine(c.era, id, c.tool.name, c.tool.hostile) }],
    expect: [id],
    refuse: "it came before initialize",
    inert: true,
  };
}
