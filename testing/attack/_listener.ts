// A loopback HTTP server that records every request it gets. A hit on a
// canary path proves the server under attack opened a connection it should
// not have; the body it serves is the canary secret, so a server that
// returns what it fetched also leaks the secret.

/** One request the listener received. */
export interface Hit {
  method: string;
  path: string;
  host: string;
}

/** The running listener. */
export interface Listener {
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

/** Where `/allowed/<tag>/redirect-*` sends a client that follows redirects. */
function redirect(kind: string, port: number, tag: string, canaryFile: string): string | undefined {
  if (kind === "redirect-loopback") return `http://[::ffff:7f00:1]:${port}/c/${tag}/redirected`;
  if (kind === "redirect-metadata") return "http://169.254.169.254/latest/meta-data/";
  if (kind === "redirect-file") return `file://${canaryFile}`;
  return undefined;
}

/** Starts the listener on 127.0.0.1 on a free port. */
export function startListener(secret: string, canaryFile: string): Promise<Listener> {
  const hits: Hit[] = [];
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) }, (req) => {
    const url = new URL(req.url);
    hits.push({ method: req.method, path: url.pathname, host: req.headers.get("host") ?? "" });
    const [, first, tag, kind] = url.pathname.split("/");
    const location = first === "allowed" ? redirect(kind ?? "", port, tag ?? "", canaryFile) : undefined;
    if (location) return new Response(null, { status: 302, headers: { location } });
    return new Response(first === "allowed" ? "ok" : secret, { headers: { "content-type": "text/plain" } });
  });
  let port = 0;
  return promise.then((p) => {
    port = p;
    return { port, hits, close: () => server.shutdown() };
  });
}
