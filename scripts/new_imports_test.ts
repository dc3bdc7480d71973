// test-permissions: --allow-read={repo}
// What `deno task new` rewrites in the template's deno.json decides where every import of the new project comes from:
// all from JSR or all from this checkout, never a mix. JSR cannot be reached where the gate runs, so the JSR side is
// checked here against the toolkit's exports rather than by importing.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const template = `${repo}template`;
const json = async (path: string) => JSON.parse(await Deno.readTextFile(path));

Deno.test("every toolkit import of the template is one `deno task new` rewrites, and each names an export JSR serves", async () => {
  const { exports } = await json(`${repo}deno.json`);
  const { imports } = await json(`${template}/deno.json`) as { imports: Record<string, string> };
  let toolkit = 0;
  for (const [specifier, target] of Object.entries(imports)) {
    if (specifier.startsWith("@forge/toolkit")) {
      toolkit++;
      // --jsr makes it jsr:@forge/toolkit@<version><sub>: <sub> must be an export, or the project breaks once JSR
      // serves it; --local keeps the same module, so the two kinds of project run the same code.
      const sub = specifier.slice("@forge/toolkit".length);
      assert.ok(`.${sub}` in exports, `${specifier} is no export of @forge/toolkit`);
      assert.equal(resolve(template, target), resolve(repo, exports[`.${sub}`]), specifier);
    } else {
      // Anything else left relative would point outside the new project, or at this checkout from a JSR project.
      assert.ok(!target.startsWith("."), `${specifier} maps to ${target}, which the new project cannot reach`);
    }
  }
  assert.ok(toolkit >= 5, `only ${toolkit} toolkit imports seen`);
});

Deno.test("no template file imports a path outside the template: the toolkit comes only through deno.json", async () => {
  const SPECIFIER = /\b(?:from\s+|import\s*\(\s*|import\s+)"(\.[^"]*)"/g;
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, depth + 1);
      else if (entry.name.endsWith(".ts")) {
        for (const [, specifier] of (await Deno.readTextFile(`${dir}/${entry.name}`)).matchAll(SPECIFIER)) {
          seen++;
          const up = specifier.split("/").filter((part) => part === "..").length;
          assert.ok(up <= depth, `${dir}/${entry.name} imports ${specifier}, outside the template`);
        }
      }
    }
  };
  await walk(template, 0);
  assert.ok(seen >= 10, `only ${seen} relative imports seen`);
});

Deno.test("no template file makes a path of a file URL with .pathname, which keeps percent-escapes (a project under /home/josé broke)", async () => {
  // The fact the rule rests on: .pathname is not the path, fileURLToPath is.
  const url = new URL("file:///home/jos%C3%A9/srv/main.ts");
  assert.notEqual(url.pathname, "/home/josé/srv/main.ts");
  assert.equal(fileURLToPath(url), "/home/josé/srv/main.ts");
  let files = 0;
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`);
      else if (entry.name.endsWith(".ts")) {
        files++;
        const text = await Deno.readTextFile(`${dir}/${entry.name}`);
        assert.doesNotMatch(text, /import\.meta\.url\)\.pathname/, `${dir}/${entry.name}`);
      }
    }
  };
  await walk(template);
  assert.ok(files >= 10, `only ${files} files seen`);
});
