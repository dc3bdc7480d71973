// test-permissions: --allow-run --allow-read={repo}
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cpusOf } from "./machine.ts";
import { serverCommand } from "./measure.ts";

Deno.test("cpusOf() reads taskset's affinity lists and refuses what it cannot read", () => {
  assert.deepEqual(cpusOf("0-2,5"), [0, 1, 2, 5]);
  assert.deepEqual(cpusOf(" 1\n"), [1]);
  assert.equal(cpusOf("3-1"), undefined);
  assert.equal(cpusOf("0,x"), undefined);
  assert.equal(cpusOf(""), undefined);
});

Deno.test("serverCommand() starts a server through taskset on the servers' CPU only when pinned", () => {
  const env = { deno: "/bin/deno", repo: "/r", timeoutMs: 1 };
  assert.deepEqual(serverCommand(env, ["run", "s.ts"]), { command: "/bin/deno", args: ["run", "s.ts"] });
  assert.deepEqual(serverCommand({ ...env, serverCpu: "1" }, ["run", "s.ts"]), {
    command: "taskset",
    args: ["-c", "1", "/bin/deno", "run", "s.ts"],
  });
});

Deno.test("pinToCpus() pins every thread of the process to all but the last CPU and gives that one to servers", async () => {
  const machine = fileURLToPath(new URL("./machine.ts", import.meta.url));
  // In a child of its own: pinning this test process would pin every test after it.
  const source = `const { pinToCpus } = await import(${JSON.stringify(machine)});
const pinned = await pinToCpus();
const out = await new Deno.Command("taskset", { args: ["-a", "-c", "-p", String(Deno.pid)] }).output();
console.log(JSON.stringify({ pinned, threads: new TextDecoder().decode(out.stdout) }));`;
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-lock", source],
    stderr: "inherit",
  }).output();
  assert.ok(child.success);
  const { pinned, threads } = JSON.parse(new TextDecoder().decode(child.stdout));
  if (typeof pinned === "string") {
    // One CPU, or no taskset: nothing is pinned, and the reason says why.
    assert.match(pinned, /taskset|CPU/);
    return;
  }
  const lines = (threads as string).trim().split("\n");
  assert.ok(lines.length > 1, "a Deno process has several threads");
  for (const line of lines) assert.equal(line.split(":").at(-1)!.trim(), pinned.driver);
  assert.notEqual(pinned.server, pinned.driver);
  assert.ok(!pinned.driver.split(",").includes(pinned.server));
  assert.equal(pinned.all, `${pinned.driver},${pinned.server}`);
});
