// Real HTTP servers for the http example's tests: two allowed origins on
// 127.0.0.1 and a forbidden one on 127.0.0.2 whose canary body must never
// appear in any output. Every request the allowed servers get is recorded.

import assert from "node:assert/strict";
import { type Config, ConfigSchema } from "../domain/config.ts";

/** One request an allowed test server received. */
export interface SeenRequest {
  /** The origin the request was addressed to (from its Host header). */
  origin: string;
  /** Path and query. */
  path: string;
  /** The request headers, names lower-cased. */
  headers: Record<string, string>;
}

/** The running servers. */
export interface TestServers {
  /** `http://127.0.0.1:<port>`: every route below. */
  main: string;
  /** Its port. */
  mainPort: number;
  /** A second origin on 127.0.0.1 with the same routes. */
  other: string;
  /** Its port. */
  otherPort: number;
  /** `http://127.0.0.2:<port>`: answers every request with {@linkcode TestServers.canaryBody}. */
  canary: string;
  /** Its port. */
  canaryPort: number;
  /** The canary text; it must never appear in a result, an error, stdout or stderr. */
  canaryBody: string;
  /** How many requests reached the canary server (tests expect none). */
  canaryHits(): number;
  /** Requests received by `main` and `other`, in order. */
  requests: SeenRequest[];
  /** Paths whose request was aborted by the client while the server waited. */
  aborted: string[];
  /** Resolves once `requests` holds `times` requests to `path` (path and query). */
  requested(path: string, times: number): Promise<void>;
  /** Resolves once `aborted` holds `path` `times` times. */
  abortedTimes(path: string, times: number): Promise<void>;
  /** Stops all three servers. */
  close(): Promise<void>;
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/**
 * Starts the servers. Routes of `main` and `other`:
 * `/text`, `/latin1`, `/ends-mid-character?type=T`, `/json`, `/png`, `/untyped` (UTF-8, no type),
 * `/untyped-nul`, `/odd-charset`, `/big?bytes=N&char=é`, `/slow`,
 * `/slow-body`, `/status?code=N`, `/echo` (request headers as JSON),
 * `/chain?n=N` (N redirects, the last to `/text`), `/to?location=URL&code=N`,
 * `/loop`, `/to-token?location=URL` (a 302 to URL with `{token}` replaced by
 * the credentials of the request's Authorization, as a hostile origin
 * would), `/token-in?type=T&body=B` (a response of Content-Type T and body B,
 * `{token}` in each replaced by those credentials percent-encoded),
 * `/echo-as?charset=C&encoding=E` (`/echo`'s JSON in the bytes of E,
 * `utf-8`, `utf-16le` or `utf-16be`, declared as charset C).
 */
export function startTestServers(): TestServers {
  const requests: SeenRequest[] = [];
  const aborted: string[] = [];
  // What a test waits for is checked again each time a request arrives or goes away.
  const waiters = new Set<() => boolean>();
  const changed = () => waiters.forEach((done) => done() && waiters.delete(done));
  const until = (met: () => boolean) =>
    new Promise<void>((resolve) => {
      const done = () => met() && (resolve(), true);
      if (!done()) waiters.add(done);
    });
  const canaryBody = `CANARY-${crypto.randomUUID()}`;
  const quiet = { onListen() {} };
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    requests.push({ origin: url.origin, path: url.pathname + url.search, headers: Object.fromEntries(req.headers) });
    changed();
    return await route(url, req, (path) => (aborted.push(path), changed()));
  };
  const main = Deno.serve({ hostname: "127.0.0.1", port: 0, ...quiet }, handler);
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, ...quiet }, handler);
  let canaryHits = 0;
  const canary = Deno.serve({ hostname: "127.0.0.2", port: 0, ...quiet }, () => {
    canaryHits++;
    return new Response(canaryBody);
  });
  const mainOrigin = `http://127.0.0.1:${main.addr.port}`;
  const otherOrigin = `http://127.0.0.1:${other.addr.port}`;
  return {
    main: mainOrigin,
    mainPort: main.addr.port,
    other: otherOrigin,
    otherPort: other.addr.port,
    canary: `http://127.0.0.2:${canary.addr.port}`,
    canaryPort: canary.addr.port,
    canaryBody,
    canaryHits: () => canaryHits,
    requests,
    aborted,
    requested: (path, times) => until(() => requests.filter((r) => r.path === path).length >= times),
    abortedTimes: (path, times) => until(() => aborted.filter((p) => p === path).length >= times),
    async close() {
      await Promise.all([main.shutdown(), other.shutdown(), canary.shutdown()]);
    },
  };
}

async function route(url: URL, req: Request, onAbort: (path: string) => void): Promise<Response> {
  const q = url.searchParams;
  const text = (body: string | Uint8Array<ArrayBuffer>, type?: string, status = 200) =>
    new Response(body, { status, headers: type === undefined ? {} : { "content-type": type } });
  switch (url.pathname) {
    case "/text":
      return text("hello, world", "text/plain; charset=utf-8");
    case "/latin1":
      return text(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text/plain; charset=iso-8859-1");
    case "/ends-mid-character":
      // A whole body whose last character is cut: "abc" and two of the three bytes of "€".
      return text(new Uint8Array([0x61, 0x62, 0x63, 0xe2, 0x82]), q.get("type") ?? undefined);
    case "/json":
      return text(JSON.stringify({ ok: true, items: [1, 2] }), "application/json");
    case "/png":
      return text(PNG, "image/png");
    case "/untyped":
      return text(new TextEncoder().encode("plain ünïcode"));
    case "/untyped-nul":
      return text(new Uint8Array([0x61, 0x00, 0x62]));
    case "/odd-charset":
      return text("abc", "text/plain; charset=x-no-such-charset");
    case "/long-type":
      return text("x", `text/plain; ${"p=v; ".repeat(20_000)}charset=utf-8`);
    case "/deflated":
    case "/gzipped": {
      // Coded whatever the request asked for (it asks for identity): the body arrives as its coded bytes.
      const gzip = url.pathname === "/gzipped";
      const raw = await new Response(
        new Blob([new TextEncoder().encode("hello ".repeat(50))]).stream().pipeThrough(
          new CompressionStream(gzip ? "gzip" : "deflate-raw"),
        ),
      ).bytes();
      const headers = { "content-type": "text/plain", "content-encoding": gzip ? "gzip" : "deflate" };
      return new Response(raw, { headers });
    }
    case "/big": {
      const bytes = Number(q.get("bytes") ?? "100000");
      const char = q.get("char") ?? "a";
      const unit = new TextEncoder().encode(char).length;
      return text(char.repeat(Math.ceil(bytes / unit)), "text/plain; charset=utf-8");
    }
    case "/slow":
      await untilAborted(req, url, onAbort);
      return text("too late", "text/plain");
    case "/slow-body": {
      // The stream's cancel is how a server learns that a client left mid-body.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("first part "));
          timer = setTimeout(() => controller.close(), 20_000);
        },
        cancel() {
          clearTimeout(timer);
          onAbort(url.pathname);
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    }
    case "/status":
      return text(`status ${q.get("code")}`, "text/plain", Number(q.get("code") ?? "200"));
    case "/echo":
      return text(JSON.stringify({ method: req.method, headers: Object.fromEntries(req.headers) }), "application/json");
    case "/chain": {
      const n = Number(q.get("n") ?? "0");
      return n > 0 ? redirect(n > 1 ? `/chain?n=${n - 1}` : "/text", 302) : text("end of chain", "text/plain");
    }
    case "/to":
      return redirect(q.get("location") ?? "/text", Number(q.get("code") ?? "302"));
    case "/loop":
      return redirect("/loop", 302);
    case "/to-token": {
      const token = (req.headers.get("authorization") ?? "").split(" ").at(-1) ?? "";
      return redirect((q.get("location") ?? "/text").replaceAll("{token}", token), 302);
    }
    case "/token-in": {
      const token = encodeURIComponent((req.headers.get("authorization") ?? "").split(" ").at(-1) ?? "");
      const fill = (template: string) => template.replaceAll("{token}", token);
      return text(fill(q.get("body") ?? "ok"), fill(q.get("type") ?? "text/plain"));
    }
    case "/echo-as": {
      const json = JSON.stringify({ headers: Object.fromEntries(req.headers) });
      return text(encodeAs(json, q.get("encoding") ?? "utf-8"), `text/plain; charset=${q.get("charset")}`);
    }
    default:
      return text("no such route", "text/plain", 404);
  }
}

/** Text in UTF-8 or UTF-16 (which TextEncoder does not write). */
function encodeAs(text: string, encoding: string): Uint8Array<ArrayBuffer> {
  if (encoding === "utf-8") return new TextEncoder().encode(text);
  const bytes = new Uint8Array(text.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), encoding === "utf-16le");
  return bytes;
}

function redirect(location: string, status: number): Response {
  return new Response(null, { status, headers: { location } });
}

/** Waits until the client gives up (or 20 s), recording an abort. */
function untilAborted(req: Request, url: URL, onAbort: (path: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 20_000);
    req.signal.addEventListener("abort", () => {
      onAbort(url.pathname);
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * A config that allows plain HTTP to `main` (a private address, so it must be
 * allowed as one) with a 2 s timeout, then `init` on top.
 */
export function testConfig(servers: TestServers, init: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({
    allow_hosts: [`127.0.0.1:${servers.mainPort}`],
    allow_schemes: ["http"],
    allow_private_hosts: ["127.0.0.1"],
    timeout_ms: 2_000,
    ...init,
  });
}

/**
 * Starts the servers for one test file and stops them when its tests are
 * done (at unload): a module fixture, so that a run of a single test
 * (`--filter`) starts and stops them too. They start at import, under the
 * file's permissions, because a test may narrow its own below what starting
 * them needs.
 */
export function testServersForFile(): TestServers {
  const servers = startTestServers();
  globalThis.addEventListener("unload", () => void servers.close());
  return servers;
}

/** Asserts that no request has reached the canary server: each test checks it once it is done. */
export function assertCanaryUntouched(servers: TestServers): void {
  assert.equal(servers.canaryHits(), 0, "a request reached the canary server");
}
