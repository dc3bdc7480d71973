// A Streamable HTTP front for ONE stdio MCP server, so HTTP-only test suites
// (the official conformance suite) can drive a stdio server. It is a test
// instrument, not part of the package: each POST body goes to the child's
// stdin as one line, unchanged, and each line the child writes goes back
// unchanged, either as the POST's JSON body or as one SSE event on the POST's
// stream. What it adds is only what HTTP needs; docs/conformance.md lists
// every rule, so a fault of the bridge is never read as the server's.
//
//   deno run --allow-net=127.0.0.1 --allow-run scripts/conformance/bridge.ts --port 3000 -- deno run server.ts

import {
  classify,
  type IdKey,
  keyOf,
  META_SUBSCRIPTION,
  META_VERSION,
  metaOf,
  nameOf,
  parse,
  STATELESS_VERSION,
  statusOf,
} from "./_message.ts";

/** How to start the bridge. */
export interface BridgeOptions {
  /** The child's program and arguments. */
  command: string[];
  /** The port to listen on; 0 picks a free one. */
  port?: number;
  /** Where the bridge's own notes go (what it could not route). */
  log?: (line: string) => void;
  /** A file that takes the child's stderr; the bridge's own stderr when absent. */
  childStderr?: string;
}

/** A running bridge. */
export interface Bridge {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Ends the child (its stdin closes, so it shuts down gracefully) and the listener. */
  close(): Promise<void>;
  /** Resolves with the child's exit code when it ends. */
  exited: Promise<number>;
}

const PATH = "/mcp";
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** One client request awaiting the child's answer, on its own HTTP response. */
class Exchange {
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #resolve!: (response: Response) => void;
  readonly response: Promise<Response> = new Promise((resolve) => this.#resolve = resolve);
  done = false;

  constructor(
    readonly key: IdKey | undefined,
    readonly method: string,
    readonly stateless: boolean,
    readonly progressToken: IdKey | undefined,
  ) {}

  /** A message that is not this request's answer: it opens the SSE stream on first use. */
  event(line: string): void {
    if (this.done) return;
    if (this.#stream === undefined) {
      const body = new ReadableStream<Uint8Array>({ start: (controller) => this.#stream = controller });
      this.#resolve(
        new Response(body, {
          status: 200,
          headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
        }),
      );
    }
    this.#stream!.enqueue(sse(line));
  }

  /** The answer: the JSON body when nothing was streamed first, else the stream's last event. */
  answer(line: string, code: number | undefined): void {
    if (this.done) return;
    this.done = true;
    if (this.#stream === undefined) {
      this.#resolve(
        new Response(line, { status: statusOf(code, this.stateless), headers: { "content-type": "application/json" } }),
      );
      return;
    }
    this.#stream.enqueue(sse(line));
    this.#stream.close();
  }

  /** No answer will come (the child is gone, or the client left): the client gets a 502, or its stream ends. */
  fail(reason: string): void {
    if (this.done) return;
    this.done = true;
    if (this.#stream === undefined) this.#resolve(plain(502, reason));
    else {
      try {
        this.#stream.close();
      } catch {
        // The client already cancelled the stream.
      }
    }
  }
}

/** Starts the child and the HTTP listener. */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const log = options.log ?? ((line: string) => console.error(`bridge: ${line}`));
  const [program, ...args] = options.command;
  const stderr = options.childStderr === undefined ? "inherit" : "piped";
  const child = new Deno.Command(program, { args, stdin: "piped", stdout: "piped", stderr }).spawn();
  if (options.childStderr !== undefined) {
    child.stderr.pipeTo((await Deno.open(options.childStderr, { create: true, append: true })).writable);
  }
  const stdin = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let writing = Promise.resolve();
  const toChild = (line: string) => {
    writing = writing.then(() => stdin.write(encoder.encode(`${line}\n`))).catch((err) => {
      log(`cannot write to the child: ${err}`);
    });
  };

  const pending = new Map<IdKey, Exchange>();
  // Bodies whose answer carries no id the bridge could key (unparseable JSON, a batch, an invalid id): the
  // server answers them in the order it reads them, so the first such answer belongs to the oldest body.
  const unkeyed: Exchange[] = [];
  // Server-to-client requests, by their id, and the exchange whose stream carried each.
  const carried = new Map<IdKey, Exchange>();

  const route = (line: string) => {
    const message = classify(parse(line));
    switch (message.kind) {
      case "response": {
        const exchange = message.key === undefined ? undefined : pending.get(message.key);
        if (exchange !== undefined) {
          pending.delete(message.key!);
          exchange.answer(line, message.code);
        } else if (message.key === undefined && unkeyed.length > 0) unkeyed.shift()!.answer(line, message.code);
        else log(`dropped an answer nobody waits for: ${line.slice(0, 200)}`);
        return;
      }
      case "batch":
        if (unkeyed.length > 0) unkeyed.shift()!.answer(line, undefined);
        else log(`dropped a batch answer nobody waits for: ${line.slice(0, 200)}`);
        return;
      case "notification": {
        const target = notificationTarget(message.method, message.params);
        if (target !== undefined && !target.done) target.event(line);
        else log(`dropped a notification with no open stream: ${line.slice(0, 200)}`);
        return;
      }
      case "request": {
        // The initialize era has no way to say which call a server request belongs to: it rides on the
        // newest tools/call still open (the suite runs one at a time).
        const target = [...pending.values()].reverse().find((e) => e.method === "tools/call" && !e.done);
        if (target === undefined) {
          log(`dropped a server request with no tools/call stream open: ${line.slice(0, 200)}`);
          return;
        }
        carried.set(message.key, target);
        target.event(line);
        return;
      }
      default:
        log(`the child wrote a line that is not JSON-RPC: ${line.slice(0, 200)}`);
    }
  };

  const notificationTarget = (method: string, params: Record<string, unknown> | undefined) => {
    const subscription = keyOf(metaOf(params)?.[META_SUBSCRIPTION]);
    if (subscription !== undefined) return pending.get(subscription);
    if (method === "notifications/progress") {
      const token = keyOf(params?.progressToken);
      return [...pending.values()].find((e) => token !== undefined && e.progressToken === token);
    }
    if (method === "notifications/cancelled") {
      const request = keyOf(params?.requestId);
      return request === undefined ? undefined : carried.get(request);
    }
    return undefined;
  };

  const reading = readLines(child.stdout, route).then(() => {
    for (const exchange of [...pending.values(), ...unkeyed]) exchange.fail("the server's stdout closed");
    pending.clear();
    unkeyed.length = 0;
  });

  const handle = async (request: Request): Promise<Response> => {
    const refused = refuseHeaders(request);
    if (refused !== undefined) return refused;
    const body = await request.text();
    // Raw line breaks in JSON text can only be whitespace (inside strings they must be escaped), so
    // turning them into spaces keeps the message and makes it one line.
    const line = body.replace(/[\r\n]/g, " ");
    const value = parse(body);
    const message = classify(value);
    const headerVersion = request.headers.get("mcp-protocol-version");
    if (message.kind === "notification" || message.kind === "response") {
      toChild(line);
      return new Response(null, { status: 202 });
    }
    if (message.kind === "batch" && message.allNotifications) {
      toChild(line);
      return new Response(null, { status: 202 });
    }
    if (message.kind !== "request") {
      const exchange = new Exchange(undefined, "", headerVersion === STATELESS_VERSION, undefined);
      unkeyed.push(exchange);
      toChild(line);
      return exchange.response;
    }
    const meta = metaOf(message.params);
    const stateless = headerVersion === STATELESS_VERSION || (meta !== undefined && META_VERSION in meta);
    if (stateless) {
      const mismatch = headerMismatch(request.headers, message.method, message.params, meta);
      if (mismatch !== undefined) return rpcError(value, 400, -32020, mismatch);
    }
    if (pending.has(message.key)) {
      return rpcError(value, 409, -32600, "Bridge: this id already waits for an answer on another HTTP request");
    }
    const exchange = new Exchange(message.key, message.method, stateless, keyOf(meta?.progressToken));
    pending.set(message.key, exchange);
    request.signal.addEventListener("abort", () => {
      if (exchange.done) return;
      // Settled, so the listener's shutdown does not wait for a response nobody will read.
      exchange.fail("the client closed the stream");
      pending.delete(message.key);
      // In the stateless version closing a request's stream is how a client cancels it.
      if (stateless) {
        const id = (value as { id: unknown }).id;
        toChild(JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: "the HTTP client closed the stream" },
        }));
      }
    });
    toChild(line);
    return exchange.response;
  };

  let resolveListening!: (port: number) => void;
  const listening = new Promise<number>((resolve) => resolveListening = resolve);
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: ({ port }) => resolveListening(port),
  }, (request) => {
    const path = new URL(request.url).pathname;
    if (path !== PATH) return plain(404, "Not found: the endpoint is /mcp");
    // The child serves one stream and opens none of its own: there is no standalone GET stream, no session to delete.
    if (request.method !== "POST") return plain(405, "Method not allowed: POST only", { allow: "POST" });
    return handle(request);
  });
  const port = await listening;
  const exited = child.status.then((s) => s.code);

  return {
    url: `http://127.0.0.1:${port}${PATH}`,
    exited,
    async close() {
      await writing;
      await stdin.close().catch(() => {});
      await exited;
      await reading;
      await server.shutdown();
    },
  };
}

/** The HTTP-level refusals: a foreign Host or Origin (DNS rebinding), and the wrong body or accepted types. */
function refuseHeaders(request: Request): Response | undefined {
  const host = request.headers.get("host");
  if (host !== null && !LOCAL_HOSTS.has(hostname(host))) return plain(403, "Forbidden: Host is not local");
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let local = false;
    try {
      local = LOCAL_HOSTS.has(new URL(origin).hostname) || LOCAL_HOSTS.has(`[${new URL(origin).hostname}]`);
    } catch {
      local = false;
    }
    if (!local) return plain(403, "Forbidden: Origin is not local");
  }
  if (request.method !== "POST") return undefined;
  if (!(request.headers.get("content-type") ?? "").includes("application/json")) {
    return plain(415, "Unsupported media type: the body must be application/json");
  }
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return plain(406, "Not acceptable: Accept must list application/json and text/event-stream");
  }
  return undefined;
}

/** SEP-2243: the routing headers of a stateless request must say what its body says. */
function headerMismatch(
  headers: Headers,
  method: string,
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
): string | undefined {
  const version = headers.get("mcp-protocol-version");
  const bodyVersion = meta?.[META_VERSION];
  if (version === null) return "Header mismatch: MCP-Protocol-Version is missing";
  if (bodyVersion !== undefined && version !== bodyVersion) {
    return "Header mismatch: MCP-Protocol-Version differs from _meta's protocol version";
  }
  if (headers.get("mcp-method") !== method) return "Header mismatch: Mcp-Method is missing or differs from method";
  const name = nameOf(method, params);
  if (name !== undefined && headers.get("mcp-name") !== name) {
    return "Header mismatch: Mcp-Name is missing or differs from the body";
  }
  return undefined;
}

function hostname(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
}

function rpcError(value: unknown, status: number, code: number, message: string): Response {
  const id = (value as { id?: unknown }).id ?? null;
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain", ...headers } });
}

const encoder = new TextEncoder();

function sse(line: string): Uint8Array {
  return encoder.encode(`event: message\ndata: ${line}\n\n`);
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    let end: number;
    while ((end = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, end).replace(/\r$/, "");
      rest = rest.slice(end + 1);
      if (line.trim() !== "") onLine(line);
    }
  }
  if (rest.trim() !== "") onLine(rest);
}

if (import.meta.main) {
  const split = Deno.args.indexOf("--");
  const portAt = Deno.args.indexOf("--port");
  if (split < 0 || split === Deno.args.length - 1) {
    console.error("usage: bridge.ts [--port N] -- <server command…>");
    Deno.exit(2);
  }
  const bridge = await startBridge({
    command: Deno.args.slice(split + 1),
    port: portAt >= 0 && portAt < split ? Number(Deno.args[portAt + 1]) : 0,
  });
  console.log(`bridge listening on ${bridge.url}`);
  Deno.addSignalListener("SIGTERM", () => bridge.close());
  Deno.addSignalListener("SIGINT", () => bridge.close());
  Deno.exit(await bridge.exited);
}
