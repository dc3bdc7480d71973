// The development loop behind `deno task dev`: serve on this process's stdio
// and restart the server whenever a .ts or .json file of the project changes.
//
// Not `deno run --watch`: after a restart, its old isolate's pending stdin
// read swallows the next line the client sends (often a whole request). Here
// the launcher owns stdin and stdout instead: lines that arrive during a
// restart, or while a broken edit keeps the server down, wait for the next
// server; once the client's `initialize` has been answered it is replayed to
// each new server (its answer dropped) and the client is told the tool list
// changed, so a connected client (the MCP Inspector) keeps its session.

/** What {@linkcode devLoop} needs. */
export interface DevOptions {
  /** The project folder, watched recursively. */
  root: string;
  /** The server's `deno run` arguments after its flags: the script and its own arguments. */
  server: string[];
  /**
   * The flags the server starts with: `RUNTIME_FLAGS` and the permission flags it prints, asked again on each
   * restart (the config may have changed).
   */
  flags: () => Promise<string[]>;
  /** Where one-line notes go. */
  log: (line: string) => void;
}

const REPLAY_ID = "forge-dev-replayed-initialize";
const IGNORED = /(^|\/)(\.git|node_modules|dist)(\/|$)/;

/**
 * Serves until stdin ends, restarting the server on each change.
 *
 * @param options See {@linkcode DevOptions}.
 * @returns The last server's exit code.
 */
export async function devLoop(options: DevOptions): Promise<number> {
  const encoder = new TextEncoder();
  let initialize: string | undefined;
  let initialized: string | undefined;
  let answered = false;
  const waiting: string[] = [];
  let child: Deno.ChildProcess | undefined;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let starting: Promise<void> = Promise.resolve();

  const start = async (replay: boolean): Promise<void> => {
    let flags: string[];
    try {
      flags = await options.flags();
    } catch (err) {
      options.log(`dev: not started: ${(err as Error).message.trim()}; fix it and save again`);
      return;
    }
    const proc = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", ...flags, ...options.server],
      cwd: options.root,
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    child = proc;
    writer = proc.stdin.getWriter();
    void forward(proc.stdout, replay);
    void proc.status.then((status) => {
      if (child !== proc) return; // stopped for a restart
      child = writer = undefined;
      options.log(`dev: the server exited (code ${status.code}); save a file to start it again`);
    });
    if (replay && answered && initialize !== undefined) {
      const request = JSON.parse(initialize);
      await writer.write(encoder.encode(`${JSON.stringify({ ...request, id: REPLAY_ID })}\n`));
      if (initialized !== undefined) await writer.write(encoder.encode(`${initialized}\n`));
    }
    for (const line of waiting.splice(0)) await writer.write(encoder.encode(`${line}\n`));
  };

  const forward = async (stdout: ReadableStream<Uint8Array>, replayed: boolean): Promise<void> => {
    for await (const line of lines(stdout)) {
      if (replayed && line.includes(REPLAY_ID)) {
        // The client's session goes on; its tool list may be stale now.
        const changed = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
        await Deno.stdout.write(encoder.encode(`${JSON.stringify(changed)}\n`));
        continue;
      }
      if (!answered && initialize !== undefined) answered = answers(line, JSON.parse(initialize).id);
      await Deno.stdout.write(encoder.encode(`${line}\n`));
    }
  };

  const restart = (path: string): void => {
    starting = starting.then(async () => {
      options.log(`dev: ${path} changed; restarting the server`);
      const old = child;
      child = undefined;
      await writer?.close().catch(() => {});
      writer = undefined;
      try {
        old?.kill("SIGTERM");
      } catch {
        // It had exited already.
      }
      await old?.status;
      await start(true);
    });
  };

  starting = start(false);
  const watcher = Deno.watchFs(options.root, { recursive: true });
  void (async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    for await (const event of watcher) {
      const path = event.paths.find((p) => /\.(ts|json|jsonc)$/.test(p) && !IGNORED.test(p));
      if (path === undefined || event.kind === "access") continue;
      clearTimeout(timer);
      // An editor's save is often several events: restart once, after the last.
      timer = setTimeout(() => restart(path.slice(options.root.length + 1)), 150);
    }
  })();

  for await (const line of lines(Deno.stdin.readable)) {
    if (initialize === undefined && /"method"\s*:\s*"initialize"/.test(line)) initialize = line;
    else if (initialized === undefined && /"method"\s*:\s*"notifications\/initialized"/.test(line)) {
      initialized = line;
    }
    await starting;
    if (writer === undefined) waiting.push(line);
    else await writer.write(encoder.encode(`${line}\n`)).catch(() => {});
  }
  watcher.close();
  await starting;
  await writer?.close().catch(() => {});
  return (await child?.status)?.code ?? 1;
}

function answers(line: string, id: unknown): boolean {
  try {
    const message = JSON.parse(line);
    return message.id === id && "result" in message;
  } catch {
    return false;
  }
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
    }
  }
  if (buffer !== "") yield buffer;
}
