// One protocol era against one running server: open it (the handshake, the
// tool list), run cases one at a time with everything observed around each,
// and close it (the server must exit cleanly at end of input).
import { concatBytes } from "../../internal/concat_bytes.ts";
import type { ListedTool } from "../client.ts";
import { type AttackCase, type AttackEra, type AttackStep as Step, handshake, request } from "./_case.ts";
import { encodeLine, fill } from "./_fill.ts";
import { type Ground, judge, type Observed, type Verdict } from "./_judge.ts";
import { rawId, sameId } from "./_raw_id.ts";
import { changes, type Snapshot, snapshot } from "./_snapshot.ts";
import type { World } from "./_world.ts";
import type { AttackConnection, AttackScope, AttackTarget } from "./target.ts";

/** How a surface watches its server. */
export interface SurfaceSettings {
  ground: Ground;
  /** Paths snapshotted around each case. */
  watch: readonly string[];
  maxWatchedEntries: number;
  /** Check Object.prototype after each case (the server runs in this process). */
  pollution: boolean;
  /** Log or audit files the server appends to: what a case adds is judged as stderr is. */
  logs: readonly string[];
}

/** How long a server may take to answer its first request. */
const START_MS = 60_000;

interface Reply {
  id: string | undefined;
  value: unknown;
}

function fillStep(step: Step, values: Record<string, string>): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < (step.repeat ?? 1); i++) {
    out.push(encodeLine(fill(step.line.replaceAll("@@n@@", String((step.from ?? 0) + i)), values)));
  }
  return out;
}

/** A server speaking one era, with the cursor of what was read from it. */
export class Surface {
  readonly era: AttackEra;
  readonly connection: AttackConnection;
  tools: ListedTool[] = [];
  readonly #world: World;
  readonly #settings: SurfaceSettings;
  #cursor = 0;
  #errCursor = 0;
  /** Ids sent and not yet answered → how many answers are due, and why a success would be a finding. */
  #pending = new Map<string, { count: number; refuse: string | undefined }>();
  #before: Snapshot | undefined;
  /** Lines that were not JSON, read outside a case (during the handshake): the next case reports them. */
  #noise: string[] = [];
  #overBound = false;
  /** How much of each log file was judged already. */
  #logOffsets = new Map<string, number>();
  #cases = 0;

  private constructor(era: AttackEra, connection: AttackConnection, world: World, settings: SurfaceSettings) {
    this.era = era;
    this.connection = connection;
    this.#world = world;
    this.#settings = settings;
  }

  /** Starts the server; `first` runs before the handshake (a call before initialize). */
  static async open(
    target: AttackTarget,
    world: World,
    era: AttackEra,
    settings: (scope: AttackScope) => SurfaceSettings,
    first?: AttackCase,
  ): Promise<{ surface: Surface; verdicts: Verdict[] }> {
    const connection = await target.start(world);
    const surface = new Surface(era, connection, world, settings(connection.scope));
    surface.#before = surface.#snap();
    // The first case meets a process that may still be starting, so it waits as the handshake does:
    // on a busy machine its reply would otherwise come after the case, and be lost in the handshake's.
    const verdicts = first ? await surface.run(first, Math.max(surface.#settings.ground.deadlineMs, START_MS)) : [];
    await surface.#call(handshake(era), "init");
    const listed = await surface.#call([{ line: request(era, '"forge-tools"', "tools/list") }], "forge-tools");
    surface.tools = (listed as { result?: { tools?: ListedTool[] } }).result?.tools ?? [];
    for (const line of surface.#noise.splice(0).slice(0, 1)) {
      verdicts.push({
        check: "not-json",
        what: `stdout held a line that is not JSON: ${JSON.stringify(line).slice(0, 80)}`,
      });
    }
    surface.#before = surface.#snap();
    surface.#logLines();
    return { surface, verdicts };
  }

  #snap(): Snapshot | undefined {
    return this.#settings.watch.length ? snapshot(this.#settings.watch, this.#settings.maxWatchedEntries) : undefined;
  }

  async #call(steps: Step[], id: string): Promise<unknown> {
    if (steps.length === 0) return undefined;
    await this.#send(steps.map((step) => concatBytes(fillStep(step, this.#world.values))));
    const want = JSON.stringify(id);
    // A process may take seconds to start on a loaded machine: the case deadline does not apply.
    const deadline = Date.now() + Math.max(this.#settings.ground.deadlineMs, START_MS);
    while (Date.now() < deadline) {
      for (const reply of this.#read(this.#noise)) if (reply.id === want) return reply.value;
      if (this.connection.ended) break;
      await this.connection.wait(deadline - Date.now());
    }
    const stderr = this.connection.stderr.slice(-5).join("\n").slice(0, 1000);
    throw new Error(`Cannot attack the server: it did not answer "${id}" in the ${this.era} era; stderr: ${stderr}`);
  }

  /** Parses the lines that arrived since the last read. */
  #read(notJson: string[]): Reply[] {
    const out: Reply[] = [];
    const lines = this.connection.lines;
    for (; this.#cursor < lines.length; this.#cursor++) {
      const line = lines[this.#cursor];
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        notJson.push(line);
        continue;
      }
      if (Array.isArray(value)) {
        const ids = value.map((item) => rawId(JSON.stringify(item)));
        out.push({ id: `[${ids.join(",")}]`, value });
      } else if (typeof value === "object" && value !== null && !("method" in value)) {
        out.push({ id: rawId(line), value });
      }
    }
    return out;
  }

  /** Runs one case and judges it; its replies are awaited `deadlineMs` (the case deadline unless told). */
  async run(c: AttackCase, deadlineMs: number = this.#settings.ground.deadlineMs): Promise<Verdict[]> {
    const values = { ...this.#world.values, tag: c.tag, allowed_url: `${this.#world.allowedUrl}${c.tag}/` };
    const { hits } = this.#world;
    const [lineStart, hitStart] = [this.connection.lines.length, hits.length];
    const notJson: string[] = this.#noise.splice(0);
    const unexpected: string[] = [];
    const served: string[] = [];
    const lateServed: [string, string][] = [];
    const want: string[] = [...c.expect];
    for (const id of [...c.expect, ...(c.batch ?? [])]) {
      this.#pending.set(id, { count: (this.#pending.get(id)?.count ?? 0) + 1, refuse: c.refuse });
    }
    let batchOpen = c.batch !== undefined;
    const batchMissing: string[] = [];
    const take = (replies: Reply[]) => {
      for (const reply of replies) {
        if (batchOpen && (reply.id === "null" || reply.id?.startsWith("["))) {
          batchOpen = false;
          const answered = Array.isArray(reply.value) ? reply.value.map((r) => rawId(JSON.stringify(r)) ?? "") : [];
          for (const id of c.batch!) {
            this.#pending.delete(id);
            if (Array.isArray(reply.value) && !answered.some((a) => sameId(id, a))) batchMissing.push(id);
          }
          continue;
        }
        const i = want.findIndex((w) => w.split("|").some((alt) => reply.id !== undefined && sameId(alt, reply.id)));
        if (i >= 0) {
          this.#settle(reply.id);
          want.splice(i, 1);
          if (c.refuse !== undefined && succeeded(reply.value)) served.push(reply.id!);
        } else {
          const late = this.#settle(reply.id);
          if (late === undefined) unexpected.push(reply.id ?? "(none)");
          // An answer that comes after its case's deadline is still judged, here.
          else if (late.refuse !== undefined && succeeded(reply.value)) lateServed.push([reply.id!, late.refuse]);
        }
      }
    };
    if (c.pause) this.connection.reading(c.pause, false);
    const sent = c.steps.map((step) => fill(step.line.replaceAll("@@n@@", String(step.from ?? 0)), values));
    // A server that stops reading its input (blocked on a full stderr) must not block the kit.
    await this.#send(c.steps.map((step) => concatBytes(fillStep(step, values))), deadlineMs);
    if (c.pause === "stdout") this.connection.reading("stdout", true);
    await this.#until(() => want.length === 0 && !batchOpen, take, notJson, deadlineMs);
    if (c.pause === "stderr") this.connection.reading("stderr", true);
    const missing = [...want, ...(batchOpen ? c.batch! : batchMissing)];
    const alive = await this.#alive(c.tag, take, notJson);
    const after = this.#snap();
    const polluted = this.#settings.pollution ? pollution() : undefined;
    const caseHits = hits.slice(hitStart);
    const observed: Observed = {
      case: c,
      // A redirect's target reached the server from the kit's listener, as the request's own text did.
      sent: [...sent, ...caseHits.flatMap((h) => h.location ?? [])],
      lines: this.connection.lines.slice(lineStart),
      stderr: [...this.connection.stderr.slice(this.#errCursor), ...this.#logLines()],
      hits: caseHits,
      changes: this.#before && after ? changes(this.#before, after) : [],
      missing,
      unexpected,
      served,
      notJson,
      alive,
      exitCode: this.connection.ended?.code,
      // Reading a process's memory costs a process of its own: every few cases, and after large ones.
      rss: ++this.#cases % 8 === 0 || c.steps.some((s) => /@@repeat:\d{5,}/.test(s.line) || (s.repeat ?? 1) > 100)
        ? await this.connection.rss()
        : undefined,
      polluted,
    };
    this.#errCursor = this.connection.stderr.length;
    this.#before = after;
    const verdicts = judge(observed, this.#settings.ground);
    for (const [id, reason] of lateServed.slice(0, 1)) {
      const check = reason.includes("case") ? "served-variant" : "served-invalid";
      verdicts.push({ check, what: `id ${JSON.stringify(id)} got a result, after its deadline, although ${reason}` });
    }
    // Memory only grows past the bound once worth telling: the first case that crossed it.
    if (this.#overBound) return verdicts.filter((v) => v.check !== "memory");
    this.#overBound = verdicts.some((v) => v.check === "memory");
    return verdicts;
  }

  /** The lines appended to the log files since the last case (a file not there yet has none). */
  #logLines(): string[] {
    const out: string[] = [];
    for (const path of this.#settings.logs) {
      let bytes: Uint8Array;
      try {
        bytes = Deno.readFileSync(path);
      } catch {
        continue;
      }
      const from = this.#logOffsets.get(path) ?? 0;
      this.#logOffsets.set(path, bytes.length);
      if (bytes.length > from) out.push(...new TextDecoder().decode(bytes.subarray(from)).split("\n").filter(Boolean));
    }
    return out;
  }

  /** Writes `chunks` in order; gives up waiting after the deadline (the writes stay queued). */
  async #send(chunks: Uint8Array[], deadlineMs: number = this.#settings.ground.deadlineMs): Promise<boolean> {
    const writes = (async () => {
      for (const chunk of chunks) await this.connection.send(chunk);
    })().then(() => true, () => false);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((
      resolve,
    ) => (timer = setTimeout(() => resolve(false), deadlineMs)));
    const done = await Promise.race([writes, late]);
    clearTimeout(timer);
    return done;
  }

  /** Counts down an answer to an id sent earlier; what was due for it, or undefined when nothing was. */
  #settle(id: string | undefined): { refuse: string | undefined } | undefined {
    for (const [pending, due] of this.#pending) {
      if (id === undefined || !pending.split("|").some((alt) => sameId(alt, id))) continue;
      if (due.count <= 1) this.#pending.delete(pending);
      else this.#pending.set(pending, { ...due, count: due.count - 1 });
      return due;
    }
    return undefined;
  }

  async #until(
    done: () => boolean,
    take: (r: Reply[]) => void,
    notJson: string[],
    deadlineMs: number = this.#settings.ground.deadlineMs,
  ): Promise<boolean> {
    const deadline = Date.now() + deadlineMs;
    while (true) {
      take(this.#read(notJson));
      if (done()) return true;
      if (this.connection.ended || Date.now() >= deadline) return false;
      await this.connection.wait(deadline - Date.now());
    }
  }

  /**
   * Whether the server answers one more `tools/list` within `deadlineMs`;
   * replies to other ids go to `take`.
   */
  async #alive(
    tag: string,
    take: (r: Reply[]) => void,
    notJson: string[],
    deadlineMs: number = this.#settings.ground.deadlineMs,
  ): Promise<Observed["alive"]> {
    if (this.connection.ended) return "ended";
    const id = JSON.stringify(`forge-alive-${tag}`);
    await this.#send([encodeLine(request(this.era, id, "tools/list"))]);
    let answered = false;
    const ok = await this.#until(
      () => answered,
      (replies) => {
        const rest = replies.filter((r) => !(r.id === id && (answered = true)));
        take(rest);
      },
      notJson,
      deadlineMs,
    );
    if (ok) return "yes";
    return this.connection.ended ? "ended" : "hung";
  }

  /**
   * Ends the input; the server must exit 0 within `graceMs`. Its memory is
   * read once more first: a sample taken at the end of a case may come before
   * the server read all of it (a busy machine), so the last sample waits for
   * the answer to one more request, which a server that reads its input in
   * order gives only after it has read every case before it.
   */
  async close(graceMs: number): Promise<Verdict[]> {
    const verdicts: Verdict[] = [];
    const bound = this.#settings.ground.maxRssBytes;
    if (bound !== undefined && !this.#overBound && !this.connection.ended) {
      // A server still working through earlier cases answers late; one that never answers costs this wait once.
      await this.#alive("caught-up", () => {}, [], Math.max(10 * this.#settings.ground.deadlineMs, 5_000));
      const rss = await this.connection.rss();
      if (rss !== undefined && rss > bound) {
        const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
        const what = `resident memory ${mib(rss)} MiB is above the bound of ${mib(bound)} MiB after the last case`;
        verdicts.push({ check: "memory", what });
      }
    }
    const { code, killed } = await this.connection.close(graceMs);
    if (killed) {
      verdicts.push({ check: "exit", what: `the server did not exit within ${graceMs} ms of the end of its input` });
    } else if (code !== undefined && code !== 0) {
      verdicts.push({ check: "exit", what: `the server exited with code ${code} at the end of its input` });
    }
    return verdicts;
  }
}

/** Whether a reply is a result that is not an `isError` one: the request was served. */
function succeeded(value: unknown): boolean {
  const result = (value as { result?: { isError?: unknown } } | null)?.result;
  return typeof result === "object" && result !== null && result.isError !== true;
}

/** Reads and removes a `polluted` key planted on Object.prototype. */
function pollution(): string | undefined {
  const proto = Object.prototype as Record<string, unknown>;
  if (!Object.hasOwn(proto, "polluted")) return undefined;
  const value = String(proto.polluted);
  delete proto.polluted;
  return value;
}
