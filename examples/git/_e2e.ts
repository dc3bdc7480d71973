// Setup for the end-to-end tests: two sample repositories in a 0700 temp
// folder, a 0600 config over them, and the paths of the server. Imported only
// by *_test.ts files in this folder.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyTree } from "./domain/fixture.ts";
import { makeSampleRepo } from "./make_sample.ts";

/** The server's entry point. */
export const SCRIPT: string = fileURLToPath(new URL("./main.ts", import.meta.url));
/** The checkout (where deno.json maps the toolkit's names). */
export const REPO: string = dirname(dirname(dirname(SCRIPT)));

/** A tree for one end-to-end test. */
export interface E2eTree {
  /** Everything lives here. */
  base: string;
  /** The config file. */
  config: string;
  /** The writable repository `app`. */
  app: string;
  /** The read-only repository `docs`. */
  docs: string;
  /** Removes everything. */
  end(): Promise<void>;
}

let sample: Promise<string> | undefined;

/** The sample repository, made by git once for this process (its folder is removed when the process ends). */
function sampleRepo(): Promise<string> {
  sample ??= (async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "git-e2e-sample-" }));
    globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
    await makeSampleRepo(join(base, "repo"));
    return join(base, "repo");
  })();
  return sample;
}

/** Makes the tree: repositories `app` (writable) and `docs`, each a copy of the sample, and the config `git.json`. */
export async function makeE2eTree(): Promise<E2eTree> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "git-e2e-" }));
  await Deno.chmod(base, 0o700);
  const [app, docs] = [join(base, "app"), join(base, "docs")];
  const repo = await sampleRepo();
  await copyTree(repo, app);
  await copyTree(repo, docs);
  const config = join(base, "git.json");
  const body = { repos: [{ name: "app", path: "app", writable: true }, { name: "docs", path: "docs" }] };
  await Deno.writeTextFile(config, JSON.stringify(body), { mode: 0o600 });
  return { base, config, app, docs, end: () => Deno.remove(base, { recursive: true }) };
}
