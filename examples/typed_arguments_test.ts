// test-permissions: --allow-read={repo}
// Every example and the template teach one argument style: the schema helpers
// type `req.arguments`, so no tool reads its arguments with the getters
// (`requireString(req.arguments, "path")`), which stay for hand-written schemas.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const GETTERS = [
  "requestArgs",
  "getString",
  "requireString",
  "getInt",
  "getBool",
  "getStringArray",
  "getIntArray",
  "getStringMap",
];
const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"@forge\/toolkit"/gm;

/** The files that declare or register tools: every examples/<name>/tools/ file, hello-tool's main.ts, the template's tools. */
async function toolFiles(): Promise<string[]> {
  const files = [join(repo, "examples/hello-tool/main.ts")];
  const folders = [join(repo, "template/tools")];
  for await (const entry of Deno.readDir(join(repo, "examples"))) {
    if (entry.isDirectory) folders.push(join(repo, "examples", entry.name, "tools"));
  }
  for (const folder of folders) {
    try {
      for await (const entry of Deno.readDir(folder)) {
        if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) files.push(join(folder, entry.name));
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return files;
}

Deno.test("no example or template tool reads its arguments with a getter: all use the typed req.arguments", async () => {
  const files = await toolFiles();
  assert.ok(files.length >= 20, `only ${files.length} tool files found`);
  for (const file of files) {
    for (const [, names] of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const used = names.split(",").map((name) => name.trim().replace(/^type\s+/, "")).filter((name) =>
        GETTERS.includes(name)
      );
      assert.deepEqual(used, [], `${file.slice(repo.length)} imports ${used.join(", ")}`);
    }
  }
});
