// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
import assert from "node:assert/strict";
import { join } from "node:path";
import { printedPermissions } from "./printed_permissions.ts";

const script = new URL("./testdata/print_flags_server.ts", import.meta.url).pathname;
const base = await Deno.makeTempDir({ prefix: "printed_permissions_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

async function config(name: string, value: unknown): Promise<string> {
  const path = join(base, name);
  await Deno.writeTextFile(path, JSON.stringify(value));
  await Deno.chmod(path, 0o600);
  return path;
}

Deno.test("printedPermissions() reads back a quoted flag whole, apostrophe and space included, with only the config and its variables granted", async () => {
  const path = await config("ok.json", { root: "${ROOT}" });
  const flags = await printedPermissions({
    script,
    config: path,
    args: ["XTRA"],
    env: { ROOT: "/srv/my data", HOME: "/home/x" },
  });
  assert.deepEqual(flags, [
    "--allow-read=/srv/my data/it's a folder,/plain",
    // The server may read ROOT (named by the config) and nothing else; it may run nothing.
    "--allow-env=HOME_PROMPT,RUN_DENIED,XTRA",
  ]);
});

Deno.test("printedPermissions() says which server failed, with its exit code and stderr", async () => {
  const path = await config("fail.json", { fail: true });
  await assert.rejects(printedPermissions({ script, config: path }), (err: unknown) => {
    assert.ok(err instanceof Error);
    assert.match(
      err.message,
      /^Cannot read the permissions of .*print_flags_server\.ts: exit 3; stderr: the config says fail/,
    );
    return true;
  });
});

Deno.test("printedPermissions() refuses a config path with a comma: Deno would read it as two paths to grant", async () => {
  const path = await config("a,b.json", { root: "/srv" });
  await assert.rejects(
    printedPermissions({ script, config: path }),
    /^TypeError: Cannot print permissions: --allow-read value ".*a,b\.json" contains a NUL byte or a comma$/,
  );
});

Deno.test("printedPermissions() refuses -config in args, naming the config option: the printing run could not read that file", async () => {
  for (const flag of ["-config", "--config", "--config=/x.json"]) {
    await assert.rejects(
      printedPermissions({ script: "main.ts", args: [flag, "/x.json"] }),
      TypeError,
      `pass the config file as the config option, not ${flag} in args`,
    );
  }
});
