/**
 * What the kit places outside the server's policy before it starts the
 * server, so that a target can be built around it (a config that allows the
 * listener's `allowedUrl` as a host, for redirect bait).
 */
export interface AttackWorld {
  /** A folder outside every root: anything created or changed here is a finding. */
  readonly dir: string;
  /** A file in `dir` holding `secret`. */
  readonly canaryFile: string;
  /** An SQLite file in `dir` whose table `secrets` holds `secret`. */
  readonly canaryDb: string;
  /** The token inside every canary; no request ever carries it, so it must never come back. */
  readonly secret: string;
  /** The port of the canary listener on 127.0.0.1: every hit on it is a finding. */
  readonly port: number;
  /**
   * The URL (ending in `/`) of a second listener, on another port of 127.0.0.1, whose hits are expected: allow
   * its host and port (never all of 127.0.0.1) in the server's config, and the kit's redirect bait starts there.
   */
  readonly allowedUrl: string;
}

/** The places a started server may touch, as its flags or its author state them. */
export interface AttackScope {
  /** Files and folders the server may read (its roots, its config). */
  readonly read: readonly string[];
  /** Files and folders the server may change. */
  readonly write: readonly string[];
}

/**
 * One running server, spoken to in raw lines. The kit's own targets
 * implement it; implement it yourself to attack something else (a compiled
 * binary, a server behind a wrapper).
 */
export interface AttackConnection {
  /** Where the server may read and write. */
  readonly scope: AttackScope;
  /** Writes bytes to the server's input. */
  send(bytes: Uint8Array): Promise<void>;
  /** Every complete line the server wrote to its output so far. */
  readonly lines: readonly string[];
  /** Every complete line the server wrote to its diagnostics (stderr) so far. */
  readonly stderr: readonly string[];
  /** Resolves when a new line arrives on either stream, the output ends, or `ms` pass. */
  wait(ms: number): Promise<void>;
  /** Stops (`false`) or resumes (`true`) reading the server's output, or its stderr. */
  reading(stream: "stdout" | "stderr", on: boolean): void;
  /** The server's resident memory in bytes, when it can be read (the kit asks every few cases). */
  rss(): Promise<number | undefined>;
  /** Set once the server's output ended (it exited or closed it), with its exit code when known. */
  readonly ended: { code: number | undefined } | undefined;
  /** Ends the input and waits up to `graceMs` for the server to finish; kills it after. */
  close(graceMs: number): Promise<{ code: number | undefined; killed: boolean }>;
}

/**
 * A server the kit can start afresh: once per protocol era, and again to
 * replay a finding alone.
 *
 * @example A target of your own around a spawned binary
 * ```ts ignore
 * import type { AttackTarget } from "@forge/toolkit/testing";
 *
 * const target: AttackTarget = {
 *   name: "my-binary",
 *   start: (world) => startMyBinary(world), // returns an AttackConnection
 * };
 * ```
 */
export interface AttackTarget {
  /** A name for reports and for the printed test of a finding. */
  readonly name: string;
  /** True when the server runs in this process, so the kit can see its `Object.prototype`. */
  readonly inProcess?: boolean;
  /** Starts one fresh server. */
  start(world: AttackWorld): Promise<AttackConnection>;
}
