import type { Server } from "@forge/toolkit";
import { serve, type ServeOptions } from "@forge/toolkit/stdio";
import { oneLine } from "../../internal/stderr.ts";
import { memoryPipe } from "../memory_pipe.ts";
import { Bell, Gate, Lines } from "./_lines.ts";
import type { AttackConnection, AttackScope, AttackTarget, AttackWorld } from "./target.ts";

/** Options of {@linkcode inMemoryTarget}. */
export interface InMemoryTargetOptions {
  /** Options of the served side (limits, middleware); `log` is taken by the kit as the server's stderr. */
  serve?: ServeOptions;
  /**
   * Where the server may read and write: the kit watches these and allows changes only under `write`.
   * @default {{ read: [], write: [] }}
   */
  scope?: Partial<AttackScope>;
  /**
   * The name in reports.
   * @default {"in-memory"}
   */
  name?: string;
}

const CONSOLE = ["log", "info", "debug", "warn", "error"] as const;

/** Sends `console.*` into `lines` until the returned function restores it. */
function teeConsole(lines: Lines): () => void {
  const saved = CONSOLE.map((name) => console[name]);
  for (const name of CONSOLE) {
    console[name] = (...args: unknown[]) =>
      lines.push(args.map((a) => typeof a === "string" ? a : Deno.inspect(a)).join(" ") + "\n");
  }
  return () => CONSOLE.forEach((name, i) => (console[name] = saved[i]));
}

/**
 * A server served in this process for each surface the kit attacks, through
 * the toolkit's real framer over an in-memory pipe. Its diagnostics (the
 * serve log and `console.*` while it runs) are its stderr, and the test
 * process's memory is its memory. `server` is called once per start, so each
 * surface gets a fresh server.
 *
 * @param server Builds the server, given the kit's canaries.
 * @param options See {@linkcode InMemoryTargetOptions}.
 * @returns The target.
 *
 * @example Attack a server in memory
 * ```ts ignore
 * import { addTool, requireString, schema, Server, strProp, text } from "@forge/toolkit";
 * import { assertNoFindings, attack, inMemoryTarget } from "@forge/toolkit/testing";
 *
 * const target = inMemoryTarget(() => {
 *   const server = new Server({ name: "hello" });
 *   addTool(server, {
 *     name: "hello",
 *     description: "Greets someone",
 *     inputSchema: schema({ name: strProp("Who") }, ["name"]),
 *     annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *   }, (req) => text(`Hello, ${requireString(req.arguments, "name").length} characters`));
 *   return server;
 * });
 * assertNoFindings(await attack(target, { seed: 1 }));
 * ```
 */
export function inMemoryTarget(
  server: (world: AttackWorld) => Server | Promise<Server>,
  options: InMemoryTargetOptions = {},
): AttackTarget {
  const scope: AttackScope = { read: options.scope?.read ?? [], write: options.scope?.write ?? [] };
  return {
    name: options.name ?? "in-memory",
    inProcess: true,
    async start(world) {
      const built = await server(world);
      const bell = new Bell();
      const [out, err] = [new Lines(bell), new Lines(bell)];
      const gate = new Gate();
      const input = memoryPipe();
      const restore = teeConsole(err);
      const served = serve(built, {
        reader: input.reader,
        writer: {
          async write(bytes: Uint8Array): Promise<number> {
            await gate.pass();
            out.push(bytes);
            return bytes.length;
          },
        },
      }, {
        ...options.serve,
        // One call is one line, escaped as the default log escapes it on real stderr.
        log: (line) => err.push(oneLine(line) + "\n"),
      });
      const connection: AttackConnection & { ended: { code: number | undefined } | undefined } = {
        scope,
        lines: out.lines,
        stderr: err.lines,
        ended: undefined,
        send: (bytes) => input.writer.write(bytes).then(() => {}),
        wait: (ms) => bell.wait(ms),
        reading: (stream, on) => stream === "stdout" && gate.set(on),
        rss: () => Promise.resolve(Deno.memoryUsage().rss),
        async close(graceMs) {
          gate.set(true);
          input.close();
          let timer: ReturnType<typeof setTimeout> | undefined;
          const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
          const first = await Promise.race([served.closed.then(() => "done" as const), late]);
          clearTimeout(timer);
          restore();
          return { code: first === "late" ? undefined : 0, killed: first === "late" };
        },
      };
      served.closed.then(() => {
        out.end();
        connection.ended = { code: 0 };
        bell.ring();
      });
      return connection;
    },
  };
}
