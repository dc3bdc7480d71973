// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=CONFIG_ENV_SET,CONFIG_ENV_UNSET
import assert from "node:assert/strict";
import { join } from "node:path";
import { configEnvironment } from "./_config_env.ts";

const dir = await Deno.makeTempDir({ prefix: "config_env_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const files = { read: [dir], write: [dir] };

Deno.test({
  name: "configEnvironment() takes the config's set variables from this environment and leaves unset ones out",
  permissions: { ...files, env: ["CONFIG_ENV_SET", "CONFIG_ENV_UNSET"] },
  async fn() {
    const config = join(dir, "both.json");
    await Deno.writeTextFile(config, '{ "roots": ["${CONFIG_ENV_SET}/in"], "token": "${CONFIG_ENV_UNSET}" }');
    Deno.env.set("CONFIG_ENV_SET", "/srv/data");
    Deno.env.delete("CONFIG_ENV_UNSET");
    try {
      assert.deepEqual(await configEnvironment(config), { CONFIG_ENV_SET: "/srv/data" });
      assert.deepEqual(await configEnvironment(undefined), {});
    } finally {
      Deno.env.delete("CONFIG_ENV_SET");
    }
  },
});

Deno.test({
  name: "configEnvironment() reads no variable it may not read: a config naming one fails with NotCapable",
  permissions: { ...files, env: ["CONFIG_ENV_SET"] },
  async fn() {
    const config = join(dir, "unset.json");
    await Deno.writeTextFile(config, '{ "token": "${CONFIG_ENV_UNSET}" }');
    await assert.rejects(configEnvironment(config), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "configEnvironment() refuses a config that is missing or a folder in one line naming it",
  permissions: files,
  async fn() {
    const missing = join(dir, "missing.json");
    await assert.rejects(configEnvironment(missing), (err: Error) => {
      assert.equal(err.message, `Cannot read the config ${JSON.stringify(missing)}: no such file`);
      return true;
    });
    await assert.rejects(configEnvironment(dir), (err: Error) => {
      assert.equal(err.message, `Cannot read the config ${JSON.stringify(dir)}: it is a folder`);
      return true;
    });
  },
});
