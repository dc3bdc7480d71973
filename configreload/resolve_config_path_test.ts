// test-permissions: --allow-env=FORGE_TENANT_CONFIG,TMPDIR --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { resolveConfigPath } from "./resolve_config_path.ts";

const noEnv = new Map<string, string>();
const tenant = new Map([["FORGE_TENANT_CONFIG", "/etc/forge/acme"]]);

Deno.test("resolveConfigPath() accepts -config and --config with a separate or = value", () => {
  for (const args of [["-config", "a.json"], ["--config", "a.json"], ["--config=a.json"], ["-config=a.json"]]) {
    assert.deepEqual(resolveConfigPath("files", { args: ["--verbose", ...args], env: noEnv }), {
      path: "a.json",
      source: "flag",
    });
  }
});

Deno.test("resolveConfigPath() prefers an existing tenant file and falls back to a static -config", () => {
  const args = ["--config", "/x.json"];
  assert.equal(resolveConfigPath("files", { args, env: tenant, exists: () => true }).source, "tenant");
  assert.equal(resolveConfigPath("files", { args, env: tenant, exists: () => false }).source, "flag");
  assert.equal(resolveConfigPath("files", { args, env: new Map() }).source, "flag");
});

Deno.test("resolveConfigPath() uses $FORGE_TENANT_CONFIG/<server>.json without a flag", () => {
  assert.deepEqual(resolveConfigPath("sql-read", { args: [], env: tenant }), {
    path: "/etc/forge/acme/sql-read.json",
    source: "tenant",
    tenantFile: "/etc/forge/acme/sql-read.json",
  });
});

Deno.test("resolveConfigPath() resolves to none without a flag or tenant directory", () => {
  assert.deepEqual(resolveConfigPath("files", { args: [], env: noEnv }), { path: undefined, source: "none" });
  assert.deepEqual(
    resolveConfigPath("files", { args: [], env: new Map([["FORGE_TENANT_CONFIG", ""]]) }).source,
    "none",
  );
});

Deno.test("resolveConfigPath() does not search past --", () => {
  assert.equal(resolveConfigPath("files", { args: ["--", "--config", "x"], env: noEnv }).source, "none");
});

Deno.test("resolveConfigPath() refuses a flag without a file, or given twice", () => {
  assert.throws(() => resolveConfigPath("files", { args: ["--config"], env: noEnv }), /--config needs a file/);
  assert.throws(
    () => resolveConfigPath("files", { args: ["-config", "--health"], env: noEnv }),
    /-config needs a file/,
  );
  assert.throws(() => resolveConfigPath("files", { args: ["--config="], env: noEnv }), /names no file/);
  assert.throws(
    () => resolveConfigPath("files", { args: ["--config=a", "-config", "b"], env: noEnv }),
    /given more than once/,
  );
});

Deno.test("resolveConfigPath() refuses a server name that could leave the tenant directory", () => {
  for (const name of ["../etc/passwd", "a/b", "", ".hidden", "a b"]) {
    assert.throws(() => resolveConfigPath(name, { args: [], env: tenant }), TypeError, name);
  }
});

Deno.test("resolveConfigPath() refuses a relative tenant directory", () => {
  const relative = new Map([["FORGE_TENANT_CONFIG", "tenants/acme"]]);
  assert.throws(() => resolveConfigPath("files", { args: [], env: relative }), /is not an absolute path/);
});

Deno.test({
  name: "resolveConfigPath() reads the real FORGE_TENANT_CONFIG under scoped permissions",
  permissions: { env: ["FORGE_TENANT_CONFIG"] },
  fn() {
    Deno.env.set("FORGE_TENANT_CONFIG", "/etc/forge/t1");
    try {
      assert.deepEqual(resolveConfigPath("files", { args: [] }), {
        path: "/etc/forge/t1/files.json",
        source: "tenant",
        tenantFile: "/etc/forge/t1/files.json",
      });
    } finally {
      Deno.env.delete("FORGE_TENANT_CONFIG");
    }
    assert.throws(() => Deno.env.get("HOME"), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "resolveConfigPath() says which flag to grant when FORGE_TENANT_CONFIG may not be read",
  permissions: { env: false },
  fn() {
    assert.throws(
      () => resolveConfigPath("files", { args: [] }),
      /grant --allow-env=FORGE_TENANT_CONFIG or pass -config FILE/,
    );
    assert.equal(resolveConfigPath("files", { args: ["--config=x.json"] }).source, "flag");
  },
});

Deno.test({
  name: "resolveConfigPath() checks a real tenant file: present wins over -config, absent falls back to it",
  permissions: { env: ["TMPDIR"], read: [Deno.env.get("TMPDIR") ?? "/tmp"], write: [Deno.env.get("TMPDIR") ?? "/tmp"] },
  async fn() {
    const dir = await Deno.makeTempDir();
    const env = new Map([["FORGE_TENANT_CONFIG", dir]]);
    const args = ["-config", "/opt/static.json"];
    // The tenant file looked for is named either way: a server started with -config checks it at every start.
    const tenantFile = `${dir}/files.json`;
    assert.deepEqual(resolveConfigPath("files", { args, env }), {
      path: "/opt/static.json",
      source: "flag",
      tenantFile,
    });
    await Deno.writeTextFile(`${dir}/files.json`, "{}");
    assert.deepEqual(resolveConfigPath("files", { args, env }), { path: tenantFile, source: "tenant", tenantFile });
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "resolveConfigPath() names the read grant it needs to check a tenant file",
  permissions: { read: false },
  fn() {
    assert.throws(
      () => resolveConfigPath("files", { args: ["-config", "/x.json"], env: tenant }),
      /the tenant file "\/etc\/forge\/acme\/files.json" may not be read \(grant --allow-read for it\)/,
    );
  },
});

// Made here: a test's permissions are fixed when it is declared.
const tenantDir = await Deno.makeTempDir({ prefix: "tenant_" });
await Deno.writeTextFile(`${tenantDir}/files.json`, "{}");
globalThis.addEventListener("unload", () => Deno.removeSync(tenantDir, { recursive: true }));

Deno.test({
  name: "resolveConfigPath() needs read of <dir>/<server>.json only, never of the tenant directory",
  permissions: { read: [`${tenantDir}/files.json`, `${tenantDir}/sqlite.json`] },
  fn() {
    const env = new Map([["FORGE_TENANT_CONFIG", tenantDir]]);
    const args = ["-config", "/opt/static.json"];
    assert.deepEqual(resolveConfigPath("files", { args, env }), {
      path: `${tenantDir}/files.json`,
      source: "tenant",
      tenantFile: `${tenantDir}/files.json`,
    });
    assert.deepEqual(resolveConfigPath("sqlite", { args, env }), {
      path: "/opt/static.json",
      source: "flag",
      tenantFile: `${tenantDir}/sqlite.json`,
    });
    assert.throws(() => Deno.readDirSync(tenantDir), Deno.errors.NotCapable);
  },
});
