// The one object per process. It reads the current config on every call, so
// an edited config applies at the very next call, without restart.
import { resolve } from "node:path";
import type { CutText } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { type PlanContent, planWrite, writeAtomic, type WriteOutcome } from "./atomic_write.ts";
import type { ClientRoots } from "./client_roots.ts";
import { listDir, type Listing, type PathInfo, readText, statPath } from "./files.ts";
import { auditFileOf, policyFor } from "./policy.ts";
import { anchorInUse } from "./file_access.ts";
import { SEARCH_DEFAULTS, searchFiles, type SearchOptions, type SearchResult } from "./search.ts";
import { MAX_BYTES_CEILING } from "./config.ts";
import { readReplyBytes, searchReplyBytes } from "./reply_bounds.ts";
import { type Mode, Workspace } from "./workspace.ts";

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * Bounds of `search` (tests lower them).
   * @default {SEARCH_DEFAULTS}
   */
  search?: Omit<SearchOptions, "signal">;
  /**
   * The config the server started with: what {@linkcode Manager.readReplyBytes} counts until a call has read one.
   * @default {the largest max_bytes a config may set}
   */
  initial?: Config;
  /**
   * More of the server's own files no tool may reach, beside the config file and the audit file (runWithConfig's
   * `ownFiles`: the tenant file looked for at start).
   * @default {[]}
   */
  ownFiles?: readonly string[];
}

/** Serves the file tools from the current config. */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #configPath: string | undefined;
  readonly #search: Omit<SearchOptions, "signal">;
  readonly #ownFiles: readonly string[];
  #current: { config: Config; workspace: Promise<Workspace>; roots: readonly string[] } | undefined;
  // The max_bytes of the config a call last read: what the next read's reply is counted by.
  #maxBytes: number;

  /**
   * @param config Returns the current config (the loader's `get`).
   * @param configPath The config file: relative paths in the config start at its folder.
   * @param options See {@linkcode ManagerOptions}.
   */
  constructor(config: () => Promise<Config>, configPath: string | undefined, options: ManagerOptions = {}) {
    this.#config = config;
    this.#configPath = configPath;
    this.#search = options.search ?? {};
    this.#ownFiles = options.ownFiles ?? [];
    this.#maxBytes = options.initial?.max_bytes ?? MAX_BYTES_CEILING;
  }

  /**
   * The most bytes a reply of `read` can take, as JSON, under the config a call last read (`read_file`'s
   * maxResultBytes). A reload that raises `max_bytes` is counted from the call after the first that reads it.
   */
  readReplyBytes(): number {
    return readReplyBytes(this.#maxBytes);
  }

  /** The most bytes a reply of `search` can take, as JSON, under its bounds (`search_files`'s maxResultBytes). */
  searchReplyBytes(): number {
    return searchReplyBytes({
      maxDepth: this.#search.maxDepth ?? SEARCH_DEFAULTS.maxDepth,
      maxResults: this.#search.maxResults ?? SEARCH_DEFAULTS.maxResults,
    });
  }

  /** Reads a text file, cut at `max_bytes` (the marker apart); `roots` (the client's) narrow where. */
  async read(path: string, signal?: AbortSignal, roots?: ClientRoots): Promise<CutText> {
    const { workspace, config, roots: configured } = await this.#now();
    return await readText(
      workspace,
      await narrow(workspace, path, "read", roots, configured),
      config.max_bytes,
      signal,
    );
  }

  /** Lists a folder. */
  async list(path: string, signal?: AbortSignal, roots?: ClientRoots): Promise<Listing> {
    const { workspace, roots: configured } = await this.#now();
    return await listDir(workspace, await narrow(workspace, path, "read", roots, configured), signal);
  }

  /** Describes a path. */
  async stat(path: string, roots?: ClientRoots): Promise<PathInfo> {
    const { workspace, roots: configured } = await this.#now();
    return await statPath(workspace, await narrow(workspace, path, "read", roots, configured));
  }

  /** Searches names under a folder, bounded. */
  async search(path: string, pattern: string, signal?: AbortSignal, roots?: ClientRoots): Promise<SearchResult> {
    const { workspace, roots: configured } = await this.#now();
    const where = await narrow(workspace, path, "read", roots, configured);
    return await searchFiles(workspace, where, pattern, { ...this.#search, signal });
  }

  /**
   * The normalised absolute path a write of `content` would replace or create (for its permission pattern);
   * refused as the write would be, so a refused write has no pattern.
   */
  async writeTarget(path: string, content: string, roots?: ClientRoots): Promise<string> {
    const { workspace, config, roots: configured } = await this.#now();
    const where = await narrow(workspace, path, "write", roots, configured);
    return (await planWrite(workspace, where, contentOf(content, config))).target;
  }

  /** Whether a write would replace an existing file: the question to ask first, or undefined for a new file. */
  async overwriteQuestion(path: string, content: string, roots?: ClientRoots): Promise<string | undefined> {
    const { workspace, config, roots: configured } = await this.#now();
    const where = await narrow(workspace, path, "write", roots, configured);
    const plan = await planWrite(workspace, where, contentOf(content, config));
    return plan.exists ? `Replace the existing file ${plan.target}?` : undefined;
  }

  /**
   * Writes a file atomically inside the writable roots. `signal` stops it
   * before it starts, `roots` are the client's roots, and with `createNew`
   * only a new file is made (a file at the name, also one that appears
   * meanwhile, is refused and left as it is); with `target` (the file the call's permission pattern named), a
   * write that would go elsewhere is refused.
   */
  async write(
    path: string,
    content: string,
    options: { signal?: AbortSignal; roots?: ClientRoots; createNew?: boolean; target?: string } = {},
  ): Promise<WriteOutcome> {
    const { workspace, config, roots: configured } = await this.#now();
    const where = await narrow(workspace, path, "write", options.roots, configured);
    return await writeAtomic(workspace, where, content, {
      maxBytes: config.max_bytes,
      signal: options.signal,
      createNew: options.createNew,
      target: options.target,
    });
  }

  /** Nothing to release: every call opens and closes its own files. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #now(): Promise<{ config: Config; workspace: Workspace; roots: readonly string[] }> {
    const config = await this.#config();
    this.#maxBytes = config.max_bytes;
    // This call's own version, held across its awaits: a call that reads the next version meanwhile replaces
    // this.#current, and this call must not take that one's workspace or roots with its own config's limits.
    let current = this.#current;
    // A workspace with a missing root is rebuilt each call, so a root created later is picked up.
    if (current?.config !== config || !(await current.workspace.catch(() => undefined))?.complete) {
      const policy = policyFor(config, this.#configPath);
      const configFile = this.#configPath === undefined ? undefined : resolve(this.#configPath);
      const own = [configFile, auditFileOf(config, this.#configPath), ...this.#ownFiles].filter((p) => p !== undefined);
      const workspace = Workspace.open(policy, own, {
        allowHardLinks: config.allow_hard_links,
        descriptorAnchor: anchorInUse(config, this.#configPath),
      });
      // A failed build is not cached: the next call tries again.
      workspace.catch(() => {
        if (this.#current?.workspace === workspace) this.#current = undefined;
      });
      current = { config, workspace, roots: [...policy.readRoots, ...policy.writeRoots] };
      this.#current = current;
    }
    return { config, workspace: await current.workspace, roots: current.roots };
  }
}

/** A write's content as its plan checks it: UTF-8 length and the config's cap. */
function contentOf(content: string, config: Config): PlanContent {
  return { bytes: new TextEncoder().encode(content).length, maxBytes: config.max_bytes };
}

/** The path to serve: narrowed to the client's roots when it declared any. */
function narrow(
  workspace: Workspace,
  path: string,
  mode: Mode,
  roots: ClientRoots | undefined,
  configured: readonly string[],
): Promise<string> {
  return roots === undefined ? Promise.resolve(path) : roots.narrow(workspace, path, mode, configured);
}
