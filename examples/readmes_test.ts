// test-permissions: --allow-read={repo}
// examples/README.md promises each example a README with four sections, and
// each README names the tests that prove what it says: the folders have one,
// and every test it names, with the test's own name, exists.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = dirname(here);
const examples = [...Deno.readDirSync(here)].filter((entry) => entry.isDirectory).map((entry) => entry.name).sort();
const SECTIONS = ["## Tools", "## Security", "## How to connect", "## Approval scheme"];

/** The text of a file, or undefined when there is none. */
function textOf(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

Deno.test("every example has a README with its four sections, linked from examples/README.md", () => {
  assert.ok(examples.includes("hello-tool") && examples.length >= 5, examples.join());
  const index = Deno.readTextFileSync(join(here, "README.md"));
  for (const name of examples) {
    const readme = textOf(join(here, name, "README.md"));
    assert.ok(readme !== undefined, `examples/${name} has no README.md`);
    for (const section of SECTIONS) assert.ok(readme.includes(`\n${section}\n`), `examples/${name}: no ${section}`);
    assert.ok(index.includes(`](${name}/README.md)`), `examples/README.md does not link ${name}/README.md`);
  }
});

Deno.test("every test an example's README names exists, and so does the test name it quotes", () => {
  let quoted = 0;
  for (const name of examples) {
    const readme = textOf(join(here, name, "README.md")) ?? "";
    for (const [, file, title] of readme.matchAll(/`([\w./-]+_test\.ts)`(?:: "([^"]+)")?/g)) {
      // A path is the example's own, the repository's, or another example's (`files/race_test.ts`).
      const source = [join(here, name, file), join(repo, file), join(here, file)].map(textOf).find((t) =>
        t !== undefined
      );
      assert.ok(source !== undefined, `examples/${name}/README.md names ${file}, which does not exist`);
      if (title === undefined) continue;
      const flat = (text: string) => text.replaceAll(/\s+/g, " ");
      assert.ok(
        flat(source).includes(flat(title.replace(/…$/, ""))),
        `examples/${name}/README.md quotes a test "${title}" that ${file} does not have`,
      );
      quoted++;
    }
  }
  assert.ok(quoted >= 15, `only ${quoted} quoted test names read`);
});
