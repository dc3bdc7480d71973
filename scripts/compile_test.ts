// test-permissions: --allow-run --allow-env --allow-read={repo}
import assert from "node:assert/strict";
import { runTaskScript } from "./testdata/run_task_script.ts";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));

const compile = (args: string[]) => runTaskScript("compile.ts", args);

Deno.test({
  name: "deno task compile --dry-run builds the deno compile command from the server's own --print-permissions",
  permissions: { run: true, read: [repo], env: true },
  async fn() {
    const out = await compile(["examples/hello-tool/main.ts", "--dry-run"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(
      out.stdout.trim(),
      "deno compile --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy --output dist/hello-tool examples/hello-tool/main.ts",
    );
  },
});

Deno.test({
  name: "deno task compile says plainly when deno compile cannot download its runtime, and fails",
  permissions: { run: true, read: [repo], env: true },
  async fn() {
    const out = await compile(["examples/hello-tool/main.ts", "--output", "/nonexistent-dir/hello"]);
    // Offline here the runtime download fails; where it works the output path still cannot be written.
    assert.notEqual(out.code, 0);
    assert.match(
      out.stdout,
      /^deno compile --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy --output \/nonexistent-dir\/hello/,
    );
  },
});

Deno.test({
  name: "deno task compile with a config whose ${VAR} is unset says so in one line, with no stack trace, and exits 1",
  permissions: { run: true, read: [repo], env: true },
  async fn() {
    const out = await compile([
      "template/main.ts",
      "--config",
      "template/config/config.example.json",
      "--dry-run",
    ]);
    assert.equal(out.code, 1);
    const lines = out.stderr.trim().split("\n");
    assert.equal(lines.length, 1, out.stderr);
    assert.match(
      lines[0],
      /^compile: Cannot read the permissions of template\/main\.ts: .*\$\{NOTES_DIR\}, which is not set/,
    );
    assert.doesNotMatch(out.stderr, /\n\s+at /);
  },
});
