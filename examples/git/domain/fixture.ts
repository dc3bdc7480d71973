// Test setup: real repositories in a temp folder, made by git itself with a
// clean environment, and a Manager over them. Imported only by *_test.ts files.
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { type Config, ConfigSchema } from "./config.ts";
import { Manager, type ManagerOptions } from "./manager.ts";

/** A temp folder with repositories. */
export interface Fixture {
  /** The temp folder (real path). */
  readonly base: string;
  /** Runs git (unhardened, clean environment) in `cwd`; throws on failure. */
  git(cwd: string, ...args: string[]): Promise<string>;
  /** Makes a repository with one commit of `files`; returns its path. */
  repo(name: string, files?: Record<string, string>): Promise<string>;
  /** A Manager over `repos` (name → path, `writable` when the name starts with `w`), with no config file. */
  manager(repos: Record<string, string>, extra?: Partial<Config>, options?: ManagerOptions): Manager;
  /** Removes the folder. */
  end(): Promise<void>;
}

const GIT = "/usr/bin/git";
/**
 * Settings every fixture git command runs with: `git commit` would otherwise start `git maintenance run --auto`
 * (a process more each time, which does nothing in repositories this small). The server's own git is not affected.
 */
const QUIET = ["-c", "maintenance.auto=false", "-c", "gc.auto=0"];

/** Makes the temp folder. */
export async function fixture(): Promise<Fixture> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "git-example-" }));
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: base,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  const git = async (cwd: string, ...args: string[]) => {
    const out = await new Deno.Command(GIT, { args: [...QUIET, ...args], cwd, env, clearEnv: true, stdin: "null" })
      .output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    return text;
  };
  return {
    base,
    git,
    async repo(name, files = { "README.md": "# hello\n" }) {
      const dir = join(base, name);
      await Deno.mkdir(dir, { recursive: true });
      await git(dir, "init", "-q", "-b", "main");
      for (const [path, content] of Object.entries(files)) {
        await Deno.mkdir(join(dir, path, ".."), { recursive: true });
        await Deno.writeTextFile(join(dir, path), content);
      }
      await git(dir, "add", "-A");
      await git(dir, "commit", "-q", "-m", "first");
      return dir;
    },
    manager(repos, extra = {}, options = {}) {
      const config = ConfigSchema.parse({
        repos: Object.entries(repos).map(([name, path]) => ({ name, path, writable: name.startsWith("w") })),
        ...extra,
      });
      return new Manager(() => Promise.resolve(config), undefined, options);
    },
    end: () => Deno.remove(base, { recursive: true }),
  };
}

/**
 * Copies the folder `from` to `to` (which must not exist) with Deno's API, keeping each file's and folder's mode and
 * each link as a link: a repository made once by git, copied for each test that needs a fresh one of its own.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to);
  for await (const entry of Deno.readDir(from)) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isSymlink) await Deno.symlink(await Deno.readLink(source), target);
    else if (entry.isDirectory) await copyTree(source, target);
    else await Deno.copyFile(source, target);
  }
  await Deno.chmod(to, (await Deno.stat(from)).mode! & 0o7777);
}

/**
 * Adds each setting to the repository's `.git/config` as `git config <key> <value>` would a key the file does not
 * hold yet (`git config --list` shows the same), in one write instead of a git process a key.
 */
export async function appendConfig(dir: string, settings: readonly (readonly [string, string])[]): Promise<void> {
  const quote = (text: string) => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  const lines = settings.map(([key, value]) => {
    const [section, name] = [key.slice(0, key.indexOf(".")), key.slice(key.lastIndexOf(".") + 1)];
    const sub = key.slice(section.length + 1, key.length - name.length - 1);
    return `[${section}${sub === "" ? "" : ` ${quote(sub)}`}]\n\t${name} = ${quote(value)}\n`;
  });
  await Deno.writeTextFile(join(dir, ".git", "config"), lines.join(""), { append: true });
}

/**
 * Writes `<gitDir>/index` (format v2) listing `names`, each the blob `blob`
 * with no stat data, checking nothing: an index git itself would not write
 * (`../x`, `.git/config`), as a hostile one is.
 */
export async function writeCraftedIndex(gitDir: string, blob: string, names: readonly string[]): Promise<void> {
  const encoder = new TextEncoder();
  const sorted = names.map((name) => encoder.encode(name)).sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  });
  const parts: Uint8Array[] = [];
  const header = new DataView(new ArrayBuffer(12));
  header.setUint32(0, 0x44495243); // "DIRC"
  header.setUint32(4, 2);
  header.setUint32(8, sorted.length);
  parts.push(new Uint8Array(header.buffer));
  const id = Uint8Array.from(blob.match(/../g)!.map((byte) => parseInt(byte, 16)));
  for (const name of sorted) {
    // 40 bytes of stat data (the mode at 24), the id, 2 bytes of flags (the name's length), the name, 1-8 NULs.
    const entry = new Uint8Array(Math.ceil((62 + name.length + 1) / 8) * 8);
    const view = new DataView(entry.buffer);
    view.setUint32(24, 0o100644);
    entry.set(id, 40);
    view.setUint16(60, Math.min(name.length, 0xfff));
    entry.set(name, 62);
    parts.push(entry);
  }
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (body.set(part, at), at + part.length), 0);
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-1", body));
  await Deno.writeFile(join(gitDir, "index"), new Uint8Array([...body, ...sum]));
}

/**
 * Writes `<gitDir>/index` (format v4) of `count` entries, each the blob
 * `blob`, entry i named by i + 1 bytes of `a`: each entry adds a byte to the
 * previous name, so the file takes 65 bytes an entry while git holds
 * count² / 2 bytes of names.
 */
export async function writeExpandingIndex(gitDir: string, blob: string, count: number): Promise<void> {
  const bytes = new Uint8Array(12 + count * 65 + 20);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x44495243); // "DIRC"
  view.setUint32(4, 4);
  view.setUint32(8, count);
  const id = Uint8Array.from(blob.match(/../g)!.map((byte) => parseInt(byte, 16)));
  for (let i = 0; i < count; i++) {
    // Stat data (the mode at 24), the id, the name's length (0xFFF past 4,094), 0 bytes stripped, "a", a NUL.
    const at = 12 + i * 65;
    view.setUint32(at + 24, 0o100644);
    bytes.set(id, at + 40);
    view.setUint16(at + 60, Math.min(i + 1, 0xfff));
    bytes[at + 63] = 0x61;
  }
  // The checksum, which git does not verify when it reads an index, is left as zeros.
  await Deno.writeFile(join(gitDir, "index"), bytes);
}

/**
 * A check for `assert.rejects`: the error is a refusal of code `code` whose message is `message` exactly.
 *
 * @param code The refusal's code.
 * @param message Its whole message.
 * @returns The check.
 */
export function refusal(code: PolicyError["code"], message: string): (err: unknown) => true {
  return (err) => {
    assert.ok(err instanceof PolicyError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(err.message, message);
    return true;
  };
}
