import assert from "node:assert/strict";
import { definePolicy } from "../validate/policy.ts";
import { hostConfig, hostConfigRequested } from "./_host_config.ts";

const facts = {
  execPath: "/opt/deno/bin/deno",
  denoVersion: "2.9.6",
  mainModule: "file:///srv/notes/main.ts",
  env: (name: string) =>
    ({ NOTES_DIR: "/home/me/notes", API_KEY: "k-123", FORGE_TENANT_CONFIG: "/etc/forge/acme" })[name],
};

Deno.test("hostConfig() for a tenant file names FORGE_TENANT_CONFIG, passes no -config, and hides values not in the flags", () => {
  const policy = definePolicy({
    readRoots: ["/home/me/notes"],
    readFiles: ["/etc/forge/acme"],
    env: ["API_KEY", "NOTES_DIR"],
  });
  const from = { path: "/etc/forge/acme/notes.json", source: "tenant" as const, variables: ["API_KEY", "NOTES_DIR"] };
  const entry = JSON.parse(hostConfig("notes", policy, { ...from, args: ["--print-host-config", "claude"] }, facts))
    .mcpServers.notes;
  assert.equal(entry.command, "/opt/deno/bin/deno");
  assert.equal(entry.args.at(-1), "/srv/notes/main.ts");
  assert.ok(!entry.args.includes("-config"));
  assert.deepEqual(entry.env, {
    FORGE_TENANT_CONFIG: "/etc/forge/acme",
    API_KEY: "<the value of API_KEY>",
    NOTES_DIR: "/home/me/notes",
  });
});

Deno.test("hostConfig() makes a relative -config absolute and refuses a missing or unknown host", () => {
  const policy = definePolicy({});
  const from = { path: "config/x.json", source: "flag" as const, variables: [] };
  const entry = JSON.parse(hostConfig("x", policy, { ...from, args: ["--print-host-config=vscode"] }, facts)).servers.x;
  assert.equal(entry.args.at(-1), `${Deno.cwd()}/config/x.json`);
  assert.throws(() => hostConfig("x", policy, { ...from, args: ["--print-host-config"] }, facts), /no host is not one/);
  assert.throws(() => hostConfig("x", policy, { ...from, args: ["--print-host-config", "zed"] }, facts), /"zed"/);
});

Deno.test("hostConfig() uses the npx form when the running Deno lives in npx's cache, whose path does not last", () => {
  const policy = definePolicy({ readRoots: ["/home/me/notes"] });
  const from = { path: "/srv/notes/config.json", source: "flag" as const, variables: [] };
  const args = ["--print-host-config", "claude"];
  for (
    const execPath of ["/root/.npm/_npx/7a40be787520bede/node_modules/deno/deno", "C:\\npm-cache\\_npx\\7a40\\deno.exe"]
  ) {
    const entry = JSON.parse(hostConfig("notes", policy, { ...from, args }, { ...facts, execPath })).mcpServers.notes;
    assert.equal(entry.command, "npx");
    assert.deepEqual(entry.args.slice(0, 4), ["-y", "deno@2.9.6", "run", "--quiet"]);
  }
  const installed = JSON.parse(hostConfig("notes", policy, { ...from, args }, facts)).mcpServers.notes;
  assert.equal(installed.command, "/opt/deno/bin/deno", "an installed Deno is named by its path");
});

Deno.test("hostConfigRequested() sees both spellings of the flag and nothing else", () => {
  assert.equal(hostConfigRequested(["--print-host-config", "claude"]), true);
  assert.equal(hostConfigRequested(["--print-host-config=claude"]), true);
  assert.equal(hostConfigRequested(["--print-host-configs"]), false);
});

Deno.test("hostConfig() refuses a path holding ${, which Claude Code and VS Code would expand into another grant", () => {
  const args = ["--print-host-config", "claude"];
  const from = { path: "/srv/notes/config.json", source: "flag" as const, variables: [], args };
  // `$${` in a config writes a literal `${`: resolve() keeps `${N:-..}` as a name, and the host turns it into `..`.
  const escaping = definePolicy({ readRoots: ["/srv/notes", "/srv/notes/${N:-..}/${N:-..}/opt/secret"] });
  assert.throws(
    () => hostConfig("notes", escaping, from, facts),
    (err: Error) =>
      err instanceof TypeError &&
      err.message.startsWith('Cannot print host config: "/srv/notes/${N:-..}/${N:-..}/opt/secret" holds "${"'),
  );
  const policy = definePolicy({ readRoots: ["/srv/notes"] });
  const cases = [
    { policy: definePolicy({ readRoots: ["/srv/${env:HOME}"] }), from, facts },
    { policy, from: { ...from, path: "/srv/${userHome}/config.json" }, facts },
    { policy, from, facts: { ...facts, mainModule: "file:///srv/$%7BworkspaceFolder%7D/main.ts" } },
    { policy, from, facts: { ...facts, execPath: "/opt/${HOME}/deno" } },
    {
      policy: definePolicy({ readRoots: ["/srv/${DATA:-x}"], env: ["DATA"] }),
      from: { ...from, variables: ["DATA"] },
      facts: { ...facts, env: (name: string) => name === "DATA" ? "/srv/${DATA:-x}" : undefined },
    },
  ];
  for (const c of cases) {
    assert.throws(() => hostConfig("notes", c.policy, c.from, c.facts), /holds "\$\{", which the host would expand/);
  }
  // A `$` without a brace is no variable to either host: printed as it is.
  const plain = JSON.parse(hostConfig("notes", definePolicy({ readRoots: ["/srv/$notes"] }), from, facts));
  assert.equal(plain.mcpServers.notes.args[4], "--allow-read=/srv/$notes");
});
