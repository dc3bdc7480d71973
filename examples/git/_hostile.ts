// Setup for the red-team tests over real stdio: a 0700 temp folder with a
// private repository and a secret file outside every configured path (both
// holding a canary), repositories made by real git, and what the tests need
// that Deno's API would need wider permissions for (`ln -s`, `chown`).
// Imported only by *_test.ts files in this folder.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Served, serveUnderPrintedFlags } from "../served.ts";
import { copyTree, type Fixture, fixture } from "./domain/fixture.ts";

/** A tree for one red-team test. */
export interface HostileTree {
  /** The fixture: `git` runs plain git, `repo` makes a repository. */
  readonly f: Fixture;
  /** Text that must never reach a tool's result (one for the process: every tree's private repository is a copy). */
  readonly canary: string;
  /** A private repository outside every configured path; its last commit's message and a file hold the canary. */
  readonly private: string;
  /** The private repository's last commit. */
  readonly privateHead: string;
  /** A file outside every configured path, larger than the output cap the tests set, full of the canary. */
  readonly secret: string;
  /** Writes `git.json` with `body` and returns its path. */
  config(body: Record<string, unknown>): Promise<string>;
}

/** The private repository, made by git once for this process; each tree gets a copy of its own. */
interface PrivateRepo {
  /** Its work tree. */
  readonly dir: string;
  /** The canary its last commit's message and `secret.txt` hold. */
  readonly canary: string;
  /** Its last commit. */
  readonly head: string;
}

let made: Promise<PrivateRepo> | undefined;

/** Makes the private repository once (its folder is removed when the process ends). */
function privateRepo(): Promise<PrivateRepo> {
  made ??= (async () => {
    const f = await fixture();
    globalThis.addEventListener("unload", () => Deno.removeSync(f.base, { recursive: true }));
    const canary = `CANARY-${crypto.randomUUID()}`;
    const dir = await f.repo("private", { "secret.txt": `${canary}\n` });
    await f.git(dir, "commit", "-q", "--allow-empty", "-m", `private ${canary}`);
    return { dir, canary, head: (await f.git(dir, "rev-parse", "HEAD")).trim() };
  })();
  return made;
}

/** Makes the tree. */
export async function hostileTree(): Promise<HostileTree> {
  const f = await fixture();
  await Deno.chmod(f.base, 0o700);
  const template = await privateRepo();
  const { canary, head: privateHead } = template;
  const priv = join(f.base, "private");
  await copyTree(template.dir, priv);
  await Deno.mkdir(join(f.base, "outside"));
  const secret = join(f.base, "outside", "secret");
  await Deno.writeTextFile(secret, `${canary}\n`.repeat(256));
  return {
    f,
    canary,
    private: priv,
    privateHead,
    secret,
    async config(body) {
      const path = join(f.base, "git.json");
      await Deno.writeTextFile(path, JSON.stringify(body), { mode: 0o600 });
      return path;
    },
  };
}

/** Runs plain git (no hardening) and returns its stdout whatever its exit code: what an unguarded server would show. */
export async function plainGit(cwd: string, ...args: string[]): Promise<string> {
  const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const out = await new Deno.Command("/usr/bin/git", { args, cwd, env, clearEnv: true, stdin: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Runs a system tool (`ln`, `chown`) and throws when it fails. */
export async function system(program: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${program} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A shared tree and the one server started for all of its repositories. */
export interface SharedServer {
  /** The tree. */
  readonly t: HostileTree;
  /** The server, started under the flags `script` prints for the tree's config. */
  readonly served: Served;
}

/**
 * For the tests of one file that run under the default config: each registers its repositories (their names, what
 * makes them, whether they are writable) as the file loads, and the first test to ask makes all of them in one tree
 * before one server starts for all, under the flags `script` prints for that tree. One printed-flags run and one
 * server start for the file instead of one of each per test, where each test calls and changes only its own
 * repositories. The server outlives the test that starts it (those tests turn the op and resource checks off), so a
 * last test closes it; the tree is removed when the process unloads.
 */
export function sharedServer(
  script: string,
): (
  names: readonly string[],
  make: (t: HostileTree) => Promise<void>,
  writable?: boolean,
) => () => Promise<SharedServer> {
  const makers: ((t: HostileTree) => Promise<void>)[] = [];
  const repos: Record<string, unknown>[] = [];
  let shared: Promise<SharedServer> | undefined;
  return (names, make, writable = false) => {
    for (const name of names) {
      if (repos.some((repo) => repo.name === name)) throw new Error(`Two shared repositories are named ${name}`);
      repos.push({ name, path: name, ...(writable ? { writable: true } : {}) });
    }
    makers.push(make);
    return () => {
      shared ??= (async () => {
        const t = await hostileTree();
        globalThis.addEventListener("unload", () => Deno.removeSync(t.f.base, { recursive: true }));
        for (const made of makers) await made(t);
        return { t, served: await serveUnderPrintedFlags(script, await t.config({ repos })) };
      })();
      return shared;
    };
  };
}

/**
 * Registers, after the tests of a file that share a server, the test that
 * closes it: the server must end with exit code 0 when its input ends.
 */
export function closeSharedServer(shared: () => Promise<SharedServer>, options: Partial<Deno.TestDefinition>): void {
  Deno.test({
    name: "the server the tests above share ends with exit code 0 when its input ends",
    ...options,
    async fn() {
      // The tree is removed when the file's tests end (the process unloads).
      const { served } = await shared();
      assert.equal((await served.server.close()).code, 0);
    },
  });
}
