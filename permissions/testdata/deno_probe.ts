// Does one thing under the flags it was started with and prints the outcome
// as JSON, so tests can pin down how Deno's permissions behave.
import { lookup } from "node:dns/promises";

const [action, ...args] = Deno.args;
const outcome = async (fn: () => Promise<unknown>) => {
  try {
    return { ok: await fn() };
  } catch (err) {
    const error = {
      error: err instanceof Error ? err.name : String(err),
      message: err instanceof Error ? err.message : "",
    };
    // fetch says why in the cause of its "fetch failed".
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
    return cause === undefined ? error : { ...error, cause };
  }
};

let result: unknown;
if (action === "query") {
  const descriptors: Deno.PermissionDescriptor[] = JSON.parse(args[0]);
  result = await Promise.all(descriptors.map(async (d) => (await Deno.permissions.query(d)).state));
} else if (action === "connect") {
  result = await outcome(async () => {
    const conn = await Deno.connect({ hostname: args[0], port: Number(args[1]) });
    const remote = (conn.remoteAddr as Deno.NetAddr).hostname;
    conn.close();
    return remote;
  });
} else if (action === "fetch") {
  result = await outcome(async () => (await fetch(args[0])).text());
} else if (action === "setNoProxyThenFetch") {
  // NO_PROXY set by the process itself before its first fetch, as run() does at start.
  Deno.env.set("NO_PROXY", args[1]);
  result = await outcome(async () => (await fetch(args[0])).text());
} else if (action === "fetchSetNoProxyFetch") {
  // One fetch, then NO_PROXY set, then a second fetch: what each answered.
  const first = await outcome(async () => (await fetch(args[0])).text());
  Deno.env.set("NO_PROXY", args[1]);
  result = [first, await outcome(async () => (await fetch(args[0])).text())];
} else if (action === "fetchOverTcp") {
  // Through createHttpClient's "tcp" transport, which sends every request to hostname:port.
  const client = Deno.createHttpClient({ proxy: { transport: "tcp", hostname: args[1], port: Number(args[2]) } });
  result = await outcome(async () => (await fetch(args[0], { client })).text());
  client.close();
} else if (action === "lookup") {
  result = await outcome(async () => (await lookup(args[0])).address);
} else if (action === "resolveDns") {
  const nameServer = { ipAddr: args[1], port: Number(args[2]) };
  result = await outcome(async () => await Deno.resolveDns(args[0], "A", { nameServer }));
} else if (action === "symlink") {
  result = await outcome(async () => await Deno.symlink(args[0], args[1]));
} else if (action === "realPath") {
  result = await outcome(async () => await Deno.realPath(args[0]));
} else if (action === "queryThenRead") {
  // What query() says of each path of args[0], then reading args[1].
  const paths: string[] = JSON.parse(args[0]);
  const states = paths.map((path) => Deno.permissions.querySync({ name: "read", path }).state);
  result = { states, read: await outcome(async () => await Deno.readTextFile(args[1])) };
}
console.log(JSON.stringify(result));
