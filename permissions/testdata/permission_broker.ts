// A Deno permission broker (DENO_PERMISSION_BROKER_PATH) that allows every
// check a process asks it about: it listens on the socket named by its first
// argument, answers each request line with "allow", and writes "ready" on
// stdout once it listens.
const path = Deno.args[0];
const listener = Deno.listen({ transport: "unix", path });
await Deno.stdout.write(new TextEncoder().encode("ready\n"));

async function answer(conn: Deno.Conn): Promise<void> {
  const encoder = new TextEncoder();
  let pending = "";
  for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      const request = JSON.parse(pending.slice(0, end)) as { id: number };
      pending = pending.slice(end + 1);
      await conn.write(encoder.encode(`${JSON.stringify({ id: request.id, result: "allow" })}\n`));
    }
  }
}

for await (const conn of listener) answer(conn).catch(() => conn.close());
