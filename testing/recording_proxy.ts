// A stand-in for a proxy that an MCP host passes in a server's environment
// (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY): it records the first line of every
// request it is sent and answers each with `proxied`. A test that expects a
// server to connect directly asserts that it recorded nothing.

/** A running recording proxy on 127.0.0.1. */
export interface RecordingProxy extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, for `HTTP_PROXY` and the like. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /**
   * The first line of each request, in the order they came: `GET http://host:port/path HTTP/1.1` for a plain-HTTP
   * request sent through it, `CONNECT host:port HTTP/1.1` for a tunnel (which it answers as any request, so no TLS
   * follows).
   */
  readonly lines: readonly string[];
  /** Stops listening and waits for the answers in flight. */
  close(): Promise<void>;
}

/**
 * Starts a recording proxy on 127.0.0.1 (needs `--allow-net=127.0.0.1`).
 *
 * @returns The proxy; close it (or `await using` it) when done.
 *
 * @example A request sent through it is recorded and answered (needs `--allow-net`)
 * ```ts ignore
 * import { startRecordingProxy } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * await using proxy = startRecordingProxy();
 * const client = Deno.createHttpClient({ proxy: { url: proxy.url } });
 * const response = await fetch("http://example.com/", { client });
 * assert.equal(await response.text(), "proxied");
 * assert.deepEqual(proxy.lines, ["GET http://example.com/ HTTP/1.1"]);
 * client.close();
 * ```
 */
export function startRecordingProxy(): RecordingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const lines: string[] = [];
  const answered: Promise<void>[] = [];
  const answer = async (conn: Deno.Conn) => {
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer).catch(() => null);
    lines.push(new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0]);
    const response = "HTTP/1.1 200 OK\r\ncontent-length: 7\r\nconnection: close\r\n\r\nproxied";
    await conn.write(new TextEncoder().encode(response)).catch(() => {});
    conn.close();
  };
  const accepting = (async () => {
    for await (const conn of listener) answered.push(answer(conn));
  })();
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      listener.close();
      await accepting;
      await Promise.all(answered);
    })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    port: listener.addr.port,
    lines,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Runs `fn` with a recording proxy, and closes the proxy when `fn` settles.
 *
 * @param fn What to do with the proxy.
 * @returns What `fn` returns.
 *
 * @example Nothing reaches a proxy no one uses (needs `--allow-net=127.0.0.1`)
 * ```ts ignore
 * import { withRecordingProxy } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const seen = await withRecordingProxy((proxy) => Promise.resolve(proxy.lines.length));
 * assert.equal(seen, 0);
 * ```
 */
export async function withRecordingProxy<T>(fn: (proxy: RecordingProxy) => Promise<T>): Promise<T> {
  await using proxy = startRecordingProxy();
  return await fn(proxy);
}
