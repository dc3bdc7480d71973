// `deno task test [path-prefix…]`: runs each test file with only the
// permissions its `// test-permissions:` line declares (`{tmp}`: the temp
// directory, `{repo}`: this project, `{child-env}`: the proxy variables a
// spawned server keeps), the way @forge/toolkit's own gate does;
// a file without the line runs with no permission at all.
import { fileURLToPath } from "node:url";
import { testFilesByPermissions } from "@forge/toolkit/testing";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const groups = await testFilesByPermissions(root, { only: Deno.args });
let failed = 0;
for (const [flags, files] of groups) {
  const args = ["test", "--quiet", ...flags.split(/\s+/).filter(Boolean), ...files];
  console.log(`\n$ deno ${args.join(" ")}`);
  const status = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
  if (!status.success) failed++;
}
console.log(`\ntest: ${groups.size - failed} of ${groups.size} permission groups passed`);
if (failed > 0 || groups.size === 0) Deno.exit(1);
