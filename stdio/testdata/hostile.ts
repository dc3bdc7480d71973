// Hostile clients for the tests that drive a real server subprocess over real
// pipes: a process whose stdout is read only when the test asks (so the test
// can stop reading it), whose stderr is read, left unread or closed, and which
// is written raw bytes where a real client would refuse to send them. Every
// wait has a generous deadline that only turns a hang into a failure.
import assert from "node:assert/strict";
import { StreamText } from "@forge/toolkit/testing";
import { concatBytes } from "../../internal/concat_bytes.ts";

/** The stream server (see its flags), the default script. */
export const STREAM_SERVER = new URL("./stream_server.ts", import.meta.url).pathname;
const repo = new URL("../..", import.meta.url).pathname;
/** What a test needs to spawn a fixture server of this folder. */
export const hostilePerms: Deno.PermissionOptions = { run: true, read: [repo] };
const HANG = 60_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A server process whose stdout is read only when the test asks, and whose stderr is read, ignored or closed. */
export interface Hostile {
  child: Deno.ChildProcess;
  send(message: unknown): Promise<void>;
  /** Writes text as it is (for numbers JavaScript cannot hold). */
  sendRaw(text: string): Promise<void>;
  /** Reads until the next complete line and returns it parsed. */
  next(): Promise<Record<string, unknown>>;
  /** Reads until the next complete line and returns it as sent. */
  nextLine(): Promise<string>;
  closeInput(): Promise<void>;
  /** Starts reading stderr now (when it was left unread). */
  readStderr(): void;
  stderr(): string;
  /** Resolves once the stderr read so far holds `marker` `times` times (see StreamText.waitFor). */
  waitForStderr(marker: string, times?: number): Promise<void>;
  /** Waits for exit, then releases every pipe. */
  status(): Promise<Deno.CommandStatus>;
}

/** Spawns `script` (the stream server unless told) with `args`, its stderr read, left unread or closed. */
export function spawnHostile(
  args: string[],
  stderrMode: "read" | "unread" | "closed",
  script: string = STREAM_SERVER,
): Hostile {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", script, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const stdout = child.stdout.getReader();
  let pending = new Uint8Array(0);
  let stderr: StreamText | undefined;
  const err = () => stderr?.text ?? "";
  const readStderr = () => void (stderr = new StreamText(child.stderr));
  if (stderrMode === "read") readStderr();
  const closed = stderrMode === "closed" ? child.stderr.cancel() : Promise.resolve();
  let inputOpen = true;
  return {
    child,
    send: (message) => stdin.write(encoder.encode(JSON.stringify(message) + "\n")),
    sendRaw: (text) => stdin.write(encoder.encode(text)),
    async next() {
      return JSON.parse(await this.nextLine());
    },
    async nextLine() {
      // Chunks of the line so far; only each new chunk is scanned, so a 16 MiB line costs linear time.
      const parts: Uint8Array[] = [];
      for (;;) {
        const nl = pending.indexOf(0x0a);
        if (nl !== -1) {
          parts.push(pending.subarray(0, nl));
          pending = pending.subarray(nl + 1);
          return decoder.decode(concatBytes(parts));
        }
        parts.push(pending);
        const { value, done } = await stdout.read();
        if (done) throw new Error(`Cannot read a reply: stdout ended; stderr: ${err().slice(0, 500)}`);
        pending = value;
      }
    },
    async closeInput() {
      if (!inputOpen) return;
      inputOpen = false;
      await stdin.close();
    },
    readStderr,
    stderr: err,
    waitForStderr: (marker, times) =>
      stderr === undefined
        ? Promise.reject(new Error("Cannot wait for a marker on stderr: it is not read"))
        : stderr.waitFor(marker, times),
    async status() {
      const status = await deadline(child.status, "the server to exit");
      if (inputOpen) await stdin.close().catch(() => {});
      await stdout.cancel();
      await closed;
      // Read to its end if it was read at all; an unread one is released here.
      if (stderr !== undefined) await stderr.done;
      else if (stderrMode === "unread") await child.stderr.cancel();
      return status;
    },
  };
}

/** Rejects when `promise` has not settled within HANG ms: a hang becomes a failure, not a stuck suite. */
export async function deadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((
        _,
        reject,
      ) => (timer = setTimeout(() => reject(new Error(`Hung waiting for ${what}`)), HANG))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Completes `initialize` (protocol `version`, the newest unless told) and checks its reply. */
export async function initialize(server: Hostile, version = "2025-11-25"): Promise<void> {
  await server.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "hostile", version: "1" } },
  });
  const reply = await deadline(server.next(), "the initialize reply");
  assert.equal(reply.id, 0);
}

/** A `tools/call` request. */
export const call = (id: unknown, name: string, args: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The text of a reply's first content item. */
export const textOf = (reply: Record<string, unknown>): string =>
  (reply.result as { content: { text: string }[] }).content[0].text;
