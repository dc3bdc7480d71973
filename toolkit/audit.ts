import type { CallContext, Middleware } from "./middleware.ts";
import type { ToolResult } from "./result.ts";

/** How an audited call ended. */
export type AuditOutcome = "ok" | "isError" | "error" | "timeout" | "aborted" | "probe";

/** One line of the audit trail. Argument values never appear: only their digest. */
export interface AuditRecord {
  /** When the call started, ISO 8601 UTC. */
  time: string;
  /** The server's name. */
  server: string;
  /** The tool. */
  tool: string;
  /** The JSON-RPC id of the call. */
  id: string | number;
  /** The call's permission patterns (`[]` for a tool without them). */
  patterns: string[];
  /** How it ended. */
  outcome: AuditOutcome;
  /** How long it took, in milliseconds. */
  duration_ms: number;
  /** sha256 (hex) of the arguments as canonical JSON (keys sorted). */
  args_sha256: string;
  /** The client's declared name and version. */
  client: string;
}

/** Options of {@linkcode auditTrail}. */
export interface AuditOptions {
  /** The server's name, written in every record. */
  server: string;
  /**
   * An append-only file for the records. It is opened with `append` and
   * `create`, so the process needs `--allow-write` for exactly this file
   * (the permissions module derives it when the file is in the policy).
   * @default {undefined: records go to stderr}
   */
  file?: string;
  /**
   * Record every tool, not only pattern tools (those with side effects).
   * @default {false}
   */
  all?: boolean;
  /**
   * Where records go instead of stderr or the file (for tests and log shippers).
   * @default {undefined}
   */
  sink?: (line: string) => void;
}

/** The audit trail middleware, with a way to close its file. */
export interface AuditTrail extends Middleware {
  /** Flushes and closes the audit file, if any. Call it from `onClose`. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * A middleware that records one JSON line per call of a pattern tool (every
 * tool with `all: true`): time, tool, patterns, outcome, duration and a
 * sha256 of the canonical arguments — never the argument values themselves,
 * so secrets and file contents cannot land in the log. Probes are recorded
 * with outcome `probe`. Lines go to stderr unless a `file` is given.
 *
 * @param options See {@linkcode AuditOptions}.
 * @returns The middleware (put it first in `run()`'s `middleware` to time everything).
 *
 * @example Audit every side-effecting call to stderr
 * ```ts
 * import { auditTrail, type RunOptions } from "@forge/toolkit";
 *
 * const audit = auditTrail({ server: "files" });
 * const options: RunOptions = { middleware: [audit], onClose: () => audit.close() };
 * ```
 */
export function auditTrail(options: AuditOptions): AuditTrail {
  let file: Promise<Deno.FsFile> | undefined;
  let pending: Promise<unknown> = Promise.resolve();
  const write = (line: string): void => {
    if (options.sink) return options.sink(line);
    if (options.file === undefined) {
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
      return;
    }
    file ??= Deno.open(options.file, { append: true, create: true, mode: 0o600 });
    const opened = file;
    // Appends are chained so lines never interleave, whatever the call order.
    pending = pending.then(async () => {
      const handle = await opened;
      const bytes = encoder.encode(line + "\n");
      for (let offset = 0; offset < bytes.length;) offset += await handle.write(bytes.subarray(offset));
    }).catch((err) => console.error(`${options.server}: cannot write the audit file: ${err?.message ?? err}`));
  };

  const middleware = async (ctx: CallContext, next: () => Promise<ToolResult>): Promise<ToolResult> => {
    if (!ctx.patternTool && !options.all) return await next();
    const started = performance.now();
    const time = new Date().toISOString();
    const digest = sha256Hex(canonicalJson(ctx.arguments));
    const record = async (outcome: AuditOutcome) => {
      const entry: AuditRecord = {
        time,
        server: options.server,
        tool: ctx.tool.name,
        id: ctx.requestId,
        patterns: ctx.patterns?.patterns ?? [],
        outcome,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        args_sha256: await digest,
        client: `${ctx.client.name} ${ctx.client.version}`.trim(),
      };
      write(JSON.stringify(entry));
    };
    try {
      const result = await next();
      // A probe refused by patterns() is an isError like any refusal; an answered probe is "probe".
      await record(result.isError ? "isError" : ctx.probe ? "probe" : "ok");
      return result;
    } catch (err) {
      const name = (err as { name?: string })?.name;
      await record(name === "TimeoutError" ? "timeout" : name === "AbortError" ? "aborted" : "error");
      throw err;
    }
  };
  return Object.assign(middleware, {
    async close() {
      await pending;
      if (file) (await file).close();
      file = undefined;
    },
  });
}

/** A piece of punctuation on the serializer's stack, told apart from values. */
class Token {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted at every level, so equal arguments digest
 * equally: the audit trail's `args_sha256` is the sha256 of this text.
 * Iterative: hostile arguments nested 100k deep cannot overflow the stack
 * (JSON.stringify with a replacer would).
 *
 * @param value A JSON value.
 * @returns Its canonical JSON text.
 *
 * @example Key order does not matter
 * ```ts
 * import { canonicalJson } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }));
 * ```
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Token) {
      out.push(item.text);
    } else if (item === null || typeof item !== "object") {
      out.push(JSON.stringify(item) ?? "null");
    } else if (Array.isArray(item)) {
      stack.push(new Token("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("["));
    } else {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
      stack.push(new Token("}"));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(record[keys[i]], new Token(`${JSON.stringify(keys[i])}:`));
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("{"));
    }
  }
  return out.join("");
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
