// For the tests that edit the project (a tool, a test file): a copy of it in a
// temp directory, so the project itself is never touched.
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const project = fileURLToPath(new URL("../", import.meta.url));

/** Copies the project's sources; imports that pointed at relative paths keep pointing at the same files. */
export async function copyProject(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  for (const folder of ["config", "domain", "tools", "scripts"]) {
    await Deno.mkdir(join(dir, folder));
    for await (const entry of Deno.readDir(join(project, folder))) {
      if (entry.isFile) await Deno.copyFile(join(project, folder, entry.name), join(dir, folder, entry.name));
    }
  }
  await Deno.copyFile(join(project, "main.ts"), join(dir, "main.ts"));
  const config = JSON.parse(await Deno.readTextFile(join(project, "deno.json")));
  for (const [key, target] of Object.entries(config.imports as Record<string, string>)) {
    if (target.startsWith(".")) config.imports[key] = pathToFileURL(resolve(project, target)).href;
  }
  await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify(config));
  return dir;
}
