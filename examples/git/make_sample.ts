// Makes the sample repository the sample config serves (sample/repo): a few
// commits by git itself, in a clean environment. A git repository cannot be
// checked in inside another one, so `deno task git` runs this first; it does
// nothing when the repository exists.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const GIT = "/usr/bin/git";

/**
 * Makes a small repository with three commits at `dir`, unless `dir/.git` exists.
 *
 * @param dir The work tree to make.
 * @returns Whether it was made (false: it existed).
 */
export async function makeSampleRepo(dir: string): Promise<boolean> {
  if (await Deno.stat(join(dir, ".git")).then(() => true, () => false)) return false;
  await Deno.mkdir(join(dir, "src"), { recursive: true });
  const env = {
    PATH: "/usr/bin:/bin",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Sample Author",
    GIT_AUTHOR_EMAIL: "author@example.com",
    GIT_COMMITTER_NAME: "Sample Author",
    GIT_COMMITTER_EMAIL: "author@example.com",
  };
  const git = async (...args: string[]) => {
    const out = await new Deno.Command(GIT, { args, cwd: dir, env, clearEnv: true, stdin: "null" }).output();
    if (!out.success) throw new Error(`Cannot make the sample repository: git ${args[0]} failed`);
  };
  await git("init", "-q", "-b", "main");
  await Deno.writeTextFile(join(dir, "README.md"), "# sample\n\nA repository for the git example.\n");
  await git("add", "README.md");
  await git("commit", "-q", "-m", "Add a README");
  await Deno.writeTextFile(
    join(dir, "src", "greet.ts"),
    "export function greet(name: string): string {\n  return `Hello, ${name}`;\n}\n",
  );
  await git("add", "src/greet.ts");
  await git("commit", "-q", "-m", "Add greet()");
  await Deno.writeTextFile(
    join(dir, "src", "greet.ts"),
    "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n",
  );
  await git("commit", "-q", "-a", "-m", "greet(): end with an exclamation mark");
  return true;
}

if (import.meta.main) {
  const dir = Deno.args[0] ?? join(dirname(fileURLToPath(import.meta.url)), "sample", "repo");
  console.error((await makeSampleRepo(dir)) ? `made ${dir}` : `${dir} exists`);
}
