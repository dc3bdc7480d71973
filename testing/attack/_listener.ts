// Two loopback HTTP servers that record every request they get. The canary
// listener stands for every address a server must not reach: any hit on it is
// a finding, and its body is the canary secret, so a server that returns what
// it fetched also leaks the secret. The allowed listener, on another port, is
// one an author may put in the server's allow-list: it answers, and its
// `/allowed/<tag>/redirect-*` paths send a client that follows redirects to
// the canary listener, to a metadata address or to a file.

/** One request a listener received. */
export interface Hit {
  method: string;
  path: string;
  /** Whether it reached the allowed listener. */
  allowed: boolean;
  /** Where it was redirected, if it was: the server learned that address from the kit, not from its host. */
  location?: string;
}

/** A running listener. */
export interface Listener {
  port: number;
  close(): Promise<void>;
}

/** Where `/allowed/<tag>/redirect-*` sends a client. */
function redirect(kind: string, canaryPort: number, tag: string, canaryFile: string): string | undefined {
  if (kind === "redirect-loopback") return `http://[::ffff:7f00:1]:${canaryPort}/c/${tag}/redirected`;
  if (kind === "redirect-metadata") return "http://169.254.169.254/latest/meta-data/";
  if (kind === "redirect-file") return `file://${canaryFile}`;
  return undefined;
}

/**
 * Starts a listener on 127.0.0.1 on a free port, recording into `hits`: the
 * canary listener without `canaryPort`, the allowed one with it.
 */
export function startListener(
  hits: Hit[],
  secret: string,
  canaryFile: string,
  canaryPort?: number,
): Promise<Listener> {
  const allowed = canaryPort !== undefined;
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) }, (req) => {
    const url = new URL(req.url);
    const hit: Hit = { method: req.method, path: url.pathname, allowed };
    hits.push(hit);
    if (!allowed) return new Response(secret, { headers: { "content-type": "text/plain" } });
    const [, , tag, kind] = url.pathname.split("/");
    const location = redirect(kind ?? "", canaryPort, tag ?? "", canaryFile);
    if (location) {
      hit.location = location;
      return new Response(null, { status: 302, headers: { location } });
    }
    return new Response("ok", { headers: { "content-type": "text/plain" } });
  });
  return promise.then((port) => ({ port, close: () => server.shutdown() }));
}
