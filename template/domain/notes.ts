// The Manager: one per process. It reads the current config on every call,
// so an edited config applies at the next call, and it owns nothing that
// needs closing beyond that (a real server would own pools here).
import { PathJail, type Policy, PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { rootPolicy, rootsOf } from "./policy.ts";

// Lower case only: where the file system folds case (macOS, Windows), "TODO.md" is "todo.md", and
// write:note/TODO would replace the note todo. One spelling per file keeps each pattern one note.
const NOTE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// Windows keeps these names for devices, whatever the extension: there "con.md" opens the console, "nul.md" discards
// what is written to it, and "aux.md" cannot be created at all, so no note may be named so.
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
// Atomic: a reader sees the old note or the new one, never a mix, and a failed write keeps the old one.
const REPLACE = Object.freeze({ atomic: true });
const CHECK = Object.freeze({ atomic: true, dryRun: true });

/** What the Manager takes of the loaded config: the `LoadedConfig` runWithConfig gives `manager` fits it. */
export interface LoadedConfig {
  /** Returns the current config (the loader's `get`). */
  readonly get: () => Promise<Config>;
  /** The config file: relative paths in it start at its directory. */
  readonly path: string | undefined;
  /**
   * The policy of a config version, the one the Deno flags come from. It
   * lists the server's own files (the config file, the tenant file looked for
   * at start, the audit file) as its `readFiles` and `writeFiles`, which no
   * jail serves: no tool can write the config the next start loads, even in a
   * writable folder that holds it.
   */
  readonly policyOf: (config: Config) => Policy;
}

/** Reads and writes notes, and opens the config's folders, each as a jail of its own. */
export class Manager {
  readonly #loaded: LoadedConfig;
  #cache: { config: Config; jails: Map<string, PathJail> } | undefined;

  /** @param loaded The loaded config (runWithConfig's `LoadedConfig`). */
  constructor(loaded: LoadedConfig) {
    this.#loaded = loaded;
  }

  /** Reads one note; one that is not UTF-8 (written by another program) is refused, never read lossily. */
  async read(name: string, signal?: AbortSignal): Promise<string> {
    const { config, jail } = await this.#open("notes");
    const bytes = await jail.readFile(fileOf(name), { maxBytes: config.max_bytes, signal }).catch(async (err) => {
      // "no such file" names the file, not the note, and says nothing of what to do. When the notes directory itself
      // is missing, the jail's own message says so (the config is at fault, not the name): keep that one.
      const noNote = err instanceof PolicyError && err.code === "not-found" &&
        await jail.stat(".").then(() => true, () => false);
      if (!noNote) throw err;
      throw new PolicyError("not-found", `Cannot read note "${name}": there is no such note; write it first`, {
        cause: err,
      });
    });
    try {
      // A leading byte-order mark stays: the text written back is the text read.
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new PolicyError(
        "invalid-input",
        `Cannot read note "${name}": it is not UTF-8 text; convert the file to UTF-8 (read as text, it would change)`,
      );
    }
  }

  /** Writes (creates or replaces, atomically) one note. */
  async write(name: string, content: string, signal?: AbortSignal): Promise<void> {
    const { jail, file, bytes } = await this.#prepare(name, content);
    await jail.writeFile(file, bytes, { ...REPLACE, signal });
  }

  /**
   * Refuses what {@linkcode Manager.write} would refuse — a bad name, content
   * over `max_bytes` or not Unicode text, a link, folder or FIFO at the note's
   * place — and writes nothing: a probe offers no pattern for a write that fails.
   */
  async check(name: string, content: string, signal?: AbortSignal): Promise<void> {
    const { jail, file } = await this.#prepare(name, content);
    await jail.writeFile(file, new Uint8Array(), { ...CHECK, signal });
  }

  async #prepare(name: string, content: string): Promise<{ jail: PathJail; file: string; bytes: Uint8Array }> {
    const file = fileOf(name);
    const { config, jail } = await this.#open("notes");
    if (!content.isWellFormed()) {
      // TextEncoder would store U+FFFD for it: the note would not read back as written.
      throw new PolicyError(
        "invalid-input",
        `Cannot write note "${name}": its content holds a lone UTF-16 surrogate at index ${
          loneSurrogate(content)
        }, which UTF-8 cannot store; send whole characters`,
      );
    }
    const bytes = new TextEncoder().encode(content);
    if (bytes.length > config.max_bytes) {
      throw new PolicyError(
        "invalid-input",
        `Cannot write note "${name}": ${bytes.length} bytes is over the limit of ${config.max_bytes}`,
      );
    }
    return { jail, file, bytes };
  }

  /**
   * The jail of one root by name — `notes`, or a folder of the config's
   * `folders` — for the config of this call. Its only root is that folder:
   * relative paths start there, and no path reaches another root. Reads are
   * capped at `max_bytes`.
   */
  async folder(name: string): Promise<PathJail> {
    return (await this.#open(name)).jail;
  }

  /** Nothing to release in this template; a real Manager closes pools here. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #open(name: string): Promise<{ config: Config; jail: PathJail }> {
    const config = await this.#loaded.get();
    if (this.#cache?.config !== config) this.#cache = { config, jails: new Map() };
    let jail = this.#cache.jails.get(name);
    if (jail === undefined) {
      const root = rootsOf(config, this.#loaded.path).get(name);
      if (root === undefined) {
        throw new PolicyError(
          "outside-roots",
          name === "notes"
            ? "Cannot use notes: no notes directory is configured"
            : `Cannot open folder "${name.slice(0, 32)}": the config has no such folder`,
        );
      }
      jail = new PathJail(rootPolicy(this.#loaded.policyOf(config), root));
      this.#cache.jails.set(name, jail);
    }
    return { config, jail };
  }
}

/** The file of a note, checked to be a plain name. */
export function fileOf(name: string): string {
  if (!NOTE_NAME.test(name)) {
    throw new PolicyError(
      "invalid-input",
      `Cannot use note "${
        name.slice(0, 64)
      }": a name is 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
  if (DEVICE_NAME.test(name)) {
    throw new PolicyError(
      "invalid-input",
      `Cannot use note "${name}": Windows keeps the name for a device (con, prn, aux, nul, com0-9, lpt0-9); choose another`,
    );
  }
  return `${name}.md`;
}

/** The index of the first UTF-16 unit of `text` that is half of no pair. */
function loneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return i;
  }
  return -1;
}
