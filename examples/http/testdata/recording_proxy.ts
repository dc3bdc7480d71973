// A stand-in for a proxy that an MCP host passes in the server's environment: it records the first line of every
// request it is sent (`GET http://host:port/path HTTP/1.1`, or `CONNECT host:port …`) and answers each with
// `proxied`. A test that expects the server to connect directly asserts that it recorded nothing.

/** The running recorder. */
export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`, for `HTTP_PROXY` and the like. */
  url: string;
  /** The first line of each request, in order. */
  lines: string[];
  /** Stops listening and waits for the answers in flight. */
  close(): Promise<void>;
}

/**
 * Starts a recorder on 127.0.0.1.
 *
 * @returns The recorder.
 *
 * @example Point a child's proxy variables at it
 * ```ts ignore
 * const proxy = startRecordingProxy();
 * const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, ALL_PROXY: proxy.url };
 * // … start the server with env, fetch …
 * await proxy.close();
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
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    lines,
    async close() {
      listener.close();
      await accepting;
      await Promise.all(answered);
    },
  };
}
