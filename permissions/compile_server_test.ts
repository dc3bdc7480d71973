// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=NOTES_DIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileServer } from "./compile_server.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const deno = Deno.execPath();

Deno.test({
  name: "compileServer() with dryRun works out deno compile from the server's printed flags and builds nothing",
  permissions: { run: [deno], read: [repo], env: ["NOTES_DIR"] },
  async fn() {
    const entry = `${repo}template/main.ts`;
    const config = `${repo}template/config/config.example.json`;
    Deno.env.set("NOTES_DIR", `${repo}template`);
    try {
      const result = await compileServer({ entry, config, output: "dist/notes", dryRun: true });
      assert.equal(result.built, false);
      assert.equal(result.error, undefined);
      const { command } = result;
      assert.deepEqual(command.slice(0, 3), ["deno", "compile", "--no-prompt"]);
      assert.ok(command.includes(`--allow-read=${repo}template,${config}`), command.join(" "));
      assert.ok(command.includes("--allow-env=FORGE_TENANT_CONFIG,NOTES_DIR"), command.join(" "));
      assert.deepEqual(command.slice(-3), [entry, "-config", config]);
      assert.ok(command.includes("--include") && command.includes(config), "the config is embedded");
      assert.equal(result.commandLine, command.join(" "), "no word of this command needs quoting");
    } finally {
      Deno.env.delete("NOTES_DIR");
    }
  },
});

Deno.test({
  name: "compileServer() refuses when the server cannot print its permissions (a ${VAR} of the config is unset)",
  permissions: { run: [deno], read: [repo], env: ["NOTES_DIR"] },
  async fn() {
    await assert.rejects(
      compileServer({
        entry: `${repo}template/main.ts`,
        config: `${repo}template/config/config.example.json`,
        dryRun: true,
      }),
      /Cannot read the permissions of .*template\/main\.ts: .*\$\{NOTES_DIR\}, which is not set/s,
    );
  },
});

// A folder reached through a link: a compiled binary's Deno.execPath() is its real path.
const linked = await Deno.realPath(await Deno.makeTempDir({ prefix: "compile_server_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(linked, { recursive: true }));

Deno.test({
  name: "compileServer() grants the binary, by its real path, where the server's flags let it run this deno",
  permissions: { run: [deno, "ln"], read: [repo, linked], write: [linked] },
  async fn() {
    await Deno.mkdir(join(linked, "real"));
    assert.ok(
      (await new Deno.Command("ln", { args: ["-s", join(linked, "real"), join(linked, "link")] }).output()).success,
    );
    const { command } = await compileServer({
      entry: `${repo}permissions/testdata/self_run_flags.ts`,
      output: join(linked, "link/dist/server"),
      dryRun: true,
    });
    assert.deepEqual(command.slice(2, 6), [
      "--no-prompt",
      "--v8-flags=--max-semi-space-size=8,--no-lazy",
      "--allow-read=/srv/data",
      `--allow-run=/usr/bin/git,${join(linked, "real/dist/server")}`,
    ]);
    assert.ok(!command.some((word) => word.includes(deno)), command.join(" "));
  },
});

Deno.test({
  name: "compileServer() refuses an output path with a comma, which would grant a second program in --allow-run",
  permissions: { run: [deno], read: [repo, linked] },
  async fn() {
    await assert.rejects(
      compileServer({
        entry: `${repo}permissions/testdata/self_run_flags.ts`,
        output: join(linked, "srv,/usr/bin/python3"),
        dryRun: true,
      }),
      /^TypeError: Cannot compile: --allow-run value ".*\/srv,\/usr\/bin\/python3" contains a NUL byte or a comma$/,
    );
  },
});
