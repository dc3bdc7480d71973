// `deno task test [path-prefix…]`: runs each test file with only the
// permissions its `// test-permissions:` line declares (`{tmp}`: the temp
// directory, `{repo}`: this project, `{child-env}`: the proxy variables a
// spawned server keeps), the way @forge/toolkit's own gate does;
// a file without the line runs with no permission at all.
//
// Every test file is type-checked once, together, before any group runs:
// checked group by group, the toolkit's sources would be checked once per
// group, which took most of the run.
import { fileURLToPath } from "node:url";
import { testFilesByPermissions } from "@forge/toolkit/testing";
import { shellQuote as sh } from "@forge/toolkit/permissions";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const groups = await testFilesByPermissions(root, { only: Deno.args });
const files = groups.flatMap((group) => group.files);
if (files.length > 0) {
  console.log(`$ deno check ${files.map(sh).join(" ")}`);
  const checked = await new Deno.Command(Deno.execPath(), { args: ["check", "--quiet", ...files], cwd: root }).spawn()
    .status;
  if (!checked.success) {
    console.log("\ntest: the type check failed; no test ran");
    Deno.exit(1);
  }
}
let failed = 0;
for (const { flags, files } of groups) {
  // Each flag is an argument of its own: a project under a path with white space keeps its paths whole.
  const args = ["test", "--quiet", "--no-check", ...flags, ...files];
  console.log(`\n$ deno ${args.map(sh).join(" ")}`);
  const status = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
  if (!status.success) failed++;
}
console.log(`\ntest: ${groups.length - failed} of ${groups.length} permission groups passed`);
if (failed > 0 || groups.length === 0) Deno.exit(1);
