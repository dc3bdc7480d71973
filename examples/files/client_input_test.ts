// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env
// What the client adds to the policy, over real stdio under the printed flags:
// the user's confirmation before an existing file is replaced (2026-07-28,
// @modelcontextprotocol/client 2.4), and the client's roots narrowing the
// configured ones (initialize era with SDK 1.32.2, and 2026-07-28).
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { printedPermissions } from "@forge/toolkit/permissions";
import { childEnv } from "@forge/toolkit/testing";
import { verifyAuditTrail } from "@forge/toolkit/middleware";
import { type E2eTree, makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "ln"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};
const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;
type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

async function command(tree: E2eTree): Promise<string[]> {
  const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
  return ["run", "--quiet", "--no-prompt", ...flags, SCRIPT, "-config", tree.config];
}

async function modern(tree: E2eTree, capabilities: Record<string, unknown>) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: await command(tree),
    cwd: REPO,
    env: childEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "modern", version: "2.4.0" }, {
    capabilities,
    versionNegotiation: { mode: { pin: "2026-07-28" } } as never,
  });
  return { client, transport };
}

Deno.test({
  name: "write_file asks before replacing an existing file: decline leaves it unchanged and the audit says declined",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree({ audit_file: "../audit.jsonl" });
    const { client, transport } = await modern(tree, { elicitation: {} });
    let verdict: Answer = { action: "decline" };
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(String((request.params as { message: string }).message));
      return verdict as never;
    });
    await client.connect(transport);
    const write = (path: string) => client.callTool({ name: "write_file", arguments: { path, content: "new\n" } });

    const declined = await write("existing.txt");
    assert.equal(declined.isError, true);
    assert.match(textOf(declined), /the user declined the confirmation; nothing was done/);
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "old\n", "the file is unchanged");

    verdict = { action: "cancel" };
    assert.match(textOf(await write("existing.txt")), /the user cancelled the confirmation/);
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "old\n");

    verdict = { action: "accept", content: {} };
    assert.equal((await write("existing.txt")).isError, undefined);
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "new\n");
    // A new file asks nothing.
    assert.equal((await write("fresh.txt")).isError, undefined);
    assert.deepEqual(asked, Array(3).fill(`Replace the existing file ${join(tree.out, "existing.txt")}?`));
    await client.close();

    const trail = await Deno.readTextFile(join(tree.base, "audit.jsonl"));
    assert.equal((await verifyAuditTrail(trail)).ok, true);
    const outcomes = trail.trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.event === "outcome");
    assert.deepEqual(outcomes.map((r) => [r.outcome, r.confirmation]), [
      ["input_required", undefined],
      ["isError", "declined"],
      ["input_required", undefined],
      ["isError", "cancelled"],
      ["input_required", undefined],
      ["ok", "accepted"],
      ["ok", undefined],
    ]);
    await tree.remove();
  },
});

Deno.test({
  name: "a client without elicitation writes as before: no question, the file is replaced",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const { client, transport } = await modern(tree, {});
    await client.connect(transport);
    const r = await client.callTool({ name: "write_file", arguments: { path: "existing.txt", content: "x" } });
    assert.equal(r.isError, undefined, textOf(r));
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "x");
    await client.close();
    await tree.remove();
  },
});

Deno.test({
  name: "initialize era: the client's roots narrow the configured ones, and the refusal says which narrowing",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const transport = new LegacyStdio({
      command: Deno.execPath(),
      args: await command(tree),
      cwd: REPO,
      env: childEnv(),
      stderr: "pipe",
    });
    const client = new LegacyClient({ name: "legacy", version: "1.32.2" }, {
      capabilities: { roots: { listChanged: true } },
    });
    let roots = [pathToFileURL(join(tree.data, "notes")).href];
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
    await client.connect(transport);
    const call = (name: string, path: string) => client.callTool({ name, arguments: { path } });

    assert.equal(textOf(await call("read_file", join(tree.data, "notes", "todo.md"))), "- ship it\n");
    const outside = await call("read_file", join(tree.data, "hello.txt"));
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /outside the roots the client declared \("file:\/\/.*\/data\/notes"\)/);
    const listed = await call("list_dir", tree.data);
    assert.match(textOf(listed), /outside the roots the client declared/);
    // The configured jail still decides first: a path outside the config gets its own refusal.
    assert.match(textOf(await call("read_file", join(tree.outside, "canary.txt"))), /leaves the allowed folders/);

    // A client root outside every configured root narrows to nothing: it never widens.
    roots = [pathToFileURL(tree.outside).href, "https://example.com/repo"];
    await client.sendRootsListChanged();
    const none = await call("read_file", join(tree.data, "notes", "todo.md"));
    assert.equal(none.isError, true);
    assert.match(textOf(none), /none of them lies inside this server's configured folders/);
    assert.match(textOf(await call("read_file", join(tree.outside, "canary.txt"))), /leaves the allowed folders/);

    // A link inside a root that points outside narrows to nothing, never to its target.
    roots = [pathToFileURL(join(tree.data, "linked-dir")).href];
    await client.sendRootsListChanged();
    assert.match(
      textOf(await call("read_file", join(tree.data, "hello.txt"))),
      /outside the roots the client declared/,
    );
    await client.close();
    await tree.remove();
  },
});

Deno.test({
  name: "2026-07-28: roots/list is an input request, and its roots narrow list_dir",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const { client, transport } = await modern(tree, { roots: {} });
    client.setRequestHandler("roots/list", () => ({ roots: [{ uri: pathToFileURL(tree.more).href }] }));
    await client.connect(transport);
    const ok = await client.callTool({ name: "list_dir", arguments: { path: tree.more } });
    assert.equal(ok.isError, undefined, textOf(ok));
    const refused = await client.callTool({ name: "list_dir", arguments: { path: tree.data } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /outside the roots the client declared/);
    await client.close();
    await tree.remove();
  },
});
