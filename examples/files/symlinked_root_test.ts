// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Roots that are themselves symbolic links, as /tmp and /var are on macOS:
// every tool works through the domain API and over real stdio under the
// printed flags, results show the root as configured, and nothing shows the
// real path it resolves to.
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnServer } from "@forge/toolkit/testing";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { denoRun, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "ln"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};

interface LinkedTree {
  base: string;
  config: string;
  /** The real folders. */
  data: string;
  ws: string;
  /** The links the config names as roots. */
  linkData: string;
  linkWs: string;
  /** A descriptor anchor (a link to /proc/self/fd in a private folder). */
  anchor: string;
}

async function linkedTree(): Promise<LinkedTree> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-linked-" }));
  const [data, ws, configDir] = ["real-data", "real-ws", "config"].map((d) => join(base, d));
  await Deno.mkdir(join(data, "notes"), { recursive: true });
  await Deno.mkdir(ws);
  await Deno.mkdir(configDir, { mode: 0o700 });
  await Deno.writeTextFile(join(data, "hello.txt"), "hello\n");
  await Deno.writeTextFile(join(data, "notes", "todo.md"), "- ship it\n");
  await Deno.writeTextFile(join(ws, "existing.txt"), "old\n");
  const [linkData, linkWs] = [join(base, "data"), join(base, "ws")];
  for (const [target, link] of [[data, linkData], [ws, linkWs]]) {
    const out = await new Deno.Command("ln", { args: ["-s", target, link] }).output();
    assert.ok(out.success);
  }
  await Deno.mkdir(join(base, "anchor"), { mode: 0o700 });
  const anchor = join(base, "anchor", "fd");
  assert.ok((await new Deno.Command("ln", { args: ["-s", "/proc/self/fd", anchor] }).output()).success);
  const config = join(configDir, "files.json");
  await Deno.writeTextFile(config, JSON.stringify({ roots: [linkData], writable_roots: [linkWs], max_bytes: 4096 }), {
    mode: 0o600,
  });
  return { base, config, data, ws, linkData, linkWs, anchor };
}

/** Every tool once, through `call`; returns the texts of the answers. */
async function everyTool(
  call: (name: string, args: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>,
): Promise<string[]> {
  const answers = [
    await call("read_file", { path: "hello.txt" }),
    await call("list_dir", { path: "." }),
    await call("stat", { path: "notes/todo.md" }),
    await call("search_files", { path: ".", pattern: "*.md" }),
    await call("write_file", { path: "new.txt", content: "written" }),
  ];
  for (const answer of answers) assert.equal(answer.isError, false, answer.text);
  assert.equal(answers[0].text, "hello\n");
  assert.deepEqual(JSON.parse(answers[1].text).entries.map((e: { path: string }) => e.path), ["hello.txt", "notes"]);
  assert.equal(JSON.parse(answers[2].text).size, 10);
  assert.deepEqual(JSON.parse(answers[3].text).matches.map((m: { path: string }) => m.path), ["notes/todo.md"]);
  return answers.map((a) => a.text);
}

for (const anchored of [false, true]) {
  Deno.test({
    name: `every files tool works with symlinked roots through the domain API${
      anchored ? " and the descriptor walk" : ""
    } and shows the root as configured`,
    permissions: perms,
    async fn() {
      const tree = await linkedTree();
      const config = ConfigSchema.parse({
        ...JSON.parse(await Deno.readTextFile(tree.config)),
        ...(anchored ? { fd_anchor: tree.anchor, require_fd_anchor: true } : {}),
      });
      const mgr = new Manager(() => Promise.resolve(config), tree.config);
      const call = async (name: string, args: Record<string, unknown>) => {
        const path = String(args.path);
        const result = name === "read_file"
          ? (await mgr.read(path)).text
          : name === "list_dir"
          ? await mgr.list(path)
          : name === "stat"
          ? await mgr.stat(path)
          : name === "search_files"
          ? await mgr.search(path, String(args.pattern))
          : await mgr.write(path, String(args.content));
        return { text: typeof result === "string" ? result : JSON.stringify(result), isError: false };
      };
      const texts = await everyTool(call);
      assert.equal(JSON.parse(texts[1]).root, tree.linkData);
      assert.equal(JSON.parse(texts[4]).root, tree.linkWs);
      assert.equal(await Deno.readTextFile(join(tree.ws, "new.txt")), "written");
      for (const text of texts) assert.ok(!text.includes(tree.data) && !text.includes(tree.ws), text);
      const err = await mgr.read("../config/files.json").catch((e) => e);
      assert.equal(err.message, 'Cannot read "../config/files.json": the path leaves the allowed folders');
      await Deno.remove(tree.base, { recursive: true });
    },
  });
}

Deno.test({
  name: "with symlinked roots the printed flags name the real paths too, and every tool works over stdio under them",
  permissions: perms,
  async fn() {
    const tree = await linkedTree();
    // The printer may read the roots, so it can tell they are links and name their real paths.
    const printed = await denoRun([
      `--allow-read=${tree.config},${tree.linkData},${tree.linkWs}`,
      SCRIPT,
      "-config",
      tree.config,
      "--print-permissions",
    ]);
    assert.equal(printed.code, 0, printed.stderr);
    const flags = printed.stdout.trim().split(/\s+/);
    const read = [tree.config, tree.linkData, tree.linkWs, tree.data, tree.ws].sort();
    assert.deepEqual(flags.slice(0, 2), [
      `--allow-read=${read.join(",")}`,
      `--allow-write=${[tree.linkWs, tree.ws].sort().join(",")}`,
    ]);
    const server = await spawnServer({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO });
    try {
      const texts = await everyTool(async (name, args) => {
        const result = await server.client.callTool({ name, arguments: args });
        const text = (result.content as { text: string }[])[0].text;
        return { text, isError: result.isError === true };
      });
      for (const text of texts) assert.ok(!text.includes(tree.data) && !text.includes(tree.ws), text);
    } finally {
      await server.close();
    }
    await Deno.remove(tree.base, { recursive: true });
  },
});

Deno.test({
  name:
    "a printer that may not read a symlinked root says so; under those flags the server refuses to start, naming the flags that serve",
  permissions: perms,
  async fn() {
    const tree = await linkedTree();
    const printed = await denoRun([
      `--allow-read=${tree.config}`,
      SCRIPT,
      "-config",
      tree.config,
      "--print-permissions",
    ]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(
      printed.stderr,
      /2 root\(s\) printed as configured: .* print again with --allow-read=<config>,<roots>/,
    );
    assert.ok(!printed.stdout.includes(tree.data), printed.stdout);
    const flags = printed.stdout.trim().split(/\s+/);
    const refused = await denoRun([...flags, SCRIPT, "-config", tree.config]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stderr.trimEnd().split("\n").length, 1, refused.stderr);
    const [, why, fix] = refused.stderr.trim().match(
      /^files: refusing to serve: the process lacks (.*); run with: (.*)$/,
    )!;
    assert.ok(why.includes(`read "${tree.data}"`), why);
    const server = await spawnServer({ args: [...fix.split(" "), SCRIPT, "-config", tree.config], cwd: REPO });
    try {
      const result = await server.client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
    } finally {
      await server.close();
    }
    await Deno.remove(tree.base, { recursive: true });
  },
});
