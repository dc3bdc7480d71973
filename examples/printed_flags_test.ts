// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Layer 2 is never wider than layer 1: what every example prints for
// --print-permissions grants read or write of its roots and of the exact files
// the server itself needs (config, database, audit), never of a directory that
// is not a root, such as the folder its config sits in.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { childEnv, spawnServer } from "@forge/toolkit/testing";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const example = (name: string, ...rest: string[]) => join(REPO, "examples", name, ...rest);
const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "printed_flags_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [REPO, tmp], write: [tmp], env: "inherit" };

/** The paths each `--allow-read`/`--allow-write` flag grants. */
function granted(flags: readonly string[]): { read: string[]; write: string[] } {
  const list = (name: string) =>
    flags.filter((f) => f.startsWith(`${name}=`)).flatMap((f) => f.split("=")[1].split(","));
  assert.ok(!flags.some((f) => f === "--allow-read" || f === "--allow-write" || f === "-A"), flags.join(" "));
  return { read: list("--allow-read"), write: list("--allow-write") };
}

/** Whether `path` is a descriptor anchor: a symbolic link to exactly /proc/self/fd (Deno checks it by its own path). */
async function isAnchor(path: string): Promise<boolean> {
  const info = await Deno.lstat(path).catch(() => undefined);
  return info?.isSymlink === true && (await Deno.readLink(path)) === "/proc/self/fd";
}

/**
 * Asserts that every granted path is a root, one of the files, or a descriptor anchor, and that only roots are
 * directories.
 */
async function assertWithin(flags: readonly string[], roots: string[], files: string[]): Promise<void> {
  const { read, write } = granted(flags);
  for (const path of [...read, ...write]) {
    if (await isAnchor(path)) continue;
    assert.ok(roots.includes(path) || files.includes(path), `${path} is neither a root nor a file the server needs`);
    const info = await Deno.stat(path).catch(() => undefined);
    if (!roots.includes(path)) assert.ok(info === undefined || info.isFile, `${path} is a directory but not a root`);
  }
}

const samples: [string, string[], string[]][] = [
  ["files", [example("files", "sample", "data"), example("files", "sample", "workspace")], [
    example("files", "sample", "config.json"),
  ]],
  ["sqlite", [], [example("sqlite", "sample", "config.json"), example("sqlite", "sample", "shop.db")]],
  ["http", [], [example("http", "sample", "config.json")]],
  ["git", [example("git", "sample", "repo")], [example("git", "sample", "config.json")]],
];

for (const [name, roots, files] of samples) {
  Deno.test({
    name:
      `the ${name} example's printed flags for its sample config grant its roots and exact files, no other directory`,
    permissions: perms,
    async fn() {
      const config = example(name, "sample", "config.json");
      const flags = await printedPermissions({ script: example(name, "main.ts"), config, cwd: REPO });
      await assertWithin(flags, roots, files);
      assert.ok(granted(flags).read.includes(config), "the config file itself is granted");
      assert.ok(!granted(flags).read.includes(dirname(config)), "its folder is not");
      if (name === "files") {
        // The sample's descriptor anchor, for reads and (it has a writable root) writes, and nothing it leads to.
        const anchor = example("files", "sample", "fd");
        assert.ok(await isAnchor(anchor), "examples/files/sample/fd is a link to /proc/self/fd");
        assert.ok(granted(flags).read.includes(anchor) && granted(flags).write.includes(anchor), flags.join(" "));
        assert.ok(!flags.some((f) => f.includes("/proc")), flags.join(" "));
      }
    },
  });
}

Deno.test({
  name: "the hello-tool example prints no flag at all",
  permissions: perms,
  async fn() {
    assert.deepEqual(await printedPermissions({ script: example("hello-tool", "main.ts"), cwd: REPO }), []);
  },
});

// A tenant directory holds every server's config: each server is granted its
// own `<dir>/<server>.json`, never the directory or a neighbour's file.
const tenantConfigs: Record<string, Record<string, unknown>> = {
  files: { roots: ["data"], writable_roots: ["out"], audit_file: "logs/files-audit.jsonl" },
  sqlite: { database: "shop.db", writable: true, audit_file: "logs/sqlite-audit.jsonl" },
  http: { allow_hosts: ["example.com"], audit_file: "logs/http-audit.jsonl" },
};

for (const name of Object.keys(tenantConfigs)) {
  Deno.test({
    name:
      `the ${name} example with a tenant directory grants <dir>/${name}.json, its roots and files, never the directory`,
    permissions: perms,
    async fn() {
      const dir = join(tmp, `tenant_${name}`);
      await Deno.mkdir(join(dir, "logs"), { recursive: true, mode: 0o755 });
      for (const root of ["data", "out"]) await Deno.mkdir(join(dir, root), { recursive: true });
      await Deno.writeTextFile(join(dir, "shop.db"), "");
      for (const other of Object.keys(tenantConfigs)) {
        await Deno.writeTextFile(join(dir, `${other}.json`), JSON.stringify(tenantConfigs[other]), { mode: 0o644 });
      }
      const own = join(dir, `${name}.json`);
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--no-prompt",
          `--allow-read=${own}`,
          "--allow-env=FORGE_TENANT_CONFIG",
          example(name, "main.ts"),
          "--print-permissions",
        ],
        clearEnv: true,
        env: childEnv({ FORGE_TENANT_CONFIG: dir }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      // The line is shell-quoted where needed (--deny-net holds brackets); no flag here holds a quote itself.
      const flags = new TextDecoder().decode(out.stdout).trim().split(" ").map((w) => w.replace(/^'(.*)'$/, "$1"));
      const roots = name === "files" ? [join(dir, "data"), join(dir, "out")] : [];
      const files = [
        own,
        join(dir, "logs", `${name}-audit.jsonl`),
        // A writable sqlite server reads the database's journal before it writes (super_journal.ts).
        ...(name === "sqlite" ? [join(dir, "shop.db"), join(dir, "shop.db-journal")] : []),
      ];
      await assertWithin(flags, roots, files);
      const { read, write } = granted(flags);
      assert.ok(read.includes(own), `${own} is granted`);
      assert.ok(!read.includes(dir) && !write.includes(dir), "the tenant directory is not");
      assert.ok(write.includes(join(dir, "logs", `${name}-audit.jsonl`)), "the audit file is writable");

      // Started with exactly those flags it serves, and says nothing about the folder it may not read.
      const server = await spawnServer({
        args: ["--no-prompt", ...flags, example(name, "main.ts")],
        env: { FORGE_TENANT_CONFIG: dir },
      });
      assert.ok((await server.client.listTools()).tools.length > 0);
      assert.equal((await server.close()).code, 0);
      assert.ok(!server.stderr().includes(dir), `nothing about ${dir} on stderr: ${server.stderr()}`);
    },
  });
}
