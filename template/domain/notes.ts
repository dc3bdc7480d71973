// The Manager: one per process. It reads the current config on every call,
// so an edited config applies at the next call, and it owns nothing that
// needs closing beyond that (a real server would own pools here).
import { PathJail, type Policy, PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

const NOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Reads and writes notes inside the configured directory. */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #policyFor: (config: Config) => Policy;
  #cache: { config: Config; jail: PathJail; maxBytes: number } | undefined;

  /**
   * @param config Returns the current config (the loader's `get`).
   * @param policyFor Turns a config into its policy.
   */
  constructor(config: () => Promise<Config>, policyFor: (config: Config) => Policy) {
    this.#config = config;
    this.#policyFor = policyFor;
  }

  /** Reads one note. */
  async read(name: string, signal?: AbortSignal): Promise<string> {
    const { jail, maxBytes } = await this.#current();
    return await jail.readTextFile(fileOf(name), { maxBytes, signal });
  }

  /** Writes (creates or replaces) one note. */
  async write(name: string, content: string, signal?: AbortSignal): Promise<void> {
    const { jail, maxBytes } = await this.#current();
    const bytes = new TextEncoder().encode(content);
    if (bytes.length > maxBytes) {
      throw new PolicyError(
        "invalid-input",
        `Cannot write note "${name}": ${bytes.length} bytes is over the limit of ${maxBytes}`,
      );
    }
    await jail.writeFile(fileOf(name), bytes, { signal });
  }

  /** Nothing to release in this template; a real Manager closes pools here. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #current(): Promise<{ jail: PathJail; maxBytes: number }> {
    const config = await this.#config();
    if (this.#cache?.config !== config) {
      if (config.notes_dir === undefined) {
        throw new PolicyError("outside-roots", "Cannot use notes: no notes directory is configured");
      }
      this.#cache = { config, jail: new PathJail(this.#policyFor(config)), maxBytes: config.max_bytes };
    }
    return this.#cache;
  }
}

/** The file of a note, checked to be a plain name. */
export function fileOf(name: string): string {
  if (!NOTE_NAME.test(name)) {
    throw new PolicyError(
      "invalid-input",
      `Cannot use note "${
        name.slice(0, 64)
      }": a name is 1-64 letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
  return `${name}.md`;
}
