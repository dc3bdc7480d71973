// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { derivePermissions } from "@forge/toolkit/permissions";
import { ConfigSchema } from "./domain/config.ts";
import { policyFor } from "./domain/policy.ts";

const README = fileURLToPath(new URL("README.md", import.meta.url));
const SECURITY = fileURLToPath(new URL("../../docs/security.md", import.meta.url));

/**
 * The cells of every table row of a Markdown text, the separator rows left
 * out; a first cell that starts with `…` continues the row above, so it gets
 * that row's first cell in front.
 */
function tableRows(markdown: string): string[][] {
  const rows = markdown.split("\n")
    .filter((line) => line.startsWith("|") && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) => line.slice(1, -1).split("|").map((cell) => cell.trim()));
  rows.forEach((row, i) => {
    if (i > 0 && row[0].startsWith("…")) row[0] = `${rows[i - 1][0]} ${row[0]}`;
  });
  return rows;
}

Deno.test({
  name:
    'the layer tables say "layer 1 alone" for a name resolving into a private host\'s range, as the flags leave it out',
  permissions: { read: [README, SECURITY] },
  fn() {
    // What the tables must describe: a config that allows 127.0.0.1 as a private host next to a name.
    const config = ConfigSchema.parse({
      allow_hosts: ["api.example.com", "127.0.0.1:8080"],
      allow_schemes: ["http"],
      allow_private_hosts: ["127.0.0.1"],
    });
    const set = derivePermissions(policyFor(config, undefined, []));
    assert.ok(!set.denyNet.some((range) => range.startsWith("127.")), "no loopback range is denied");
    assert.ok(set.net.includes("api.example.com"), "the name is granted on every port");

    for (const file of [README, SECURITY]) {
      const rows = tableRows(Deno.readTextFileSync(file));
      const resolving = rows.filter(([attack]) => /resolv/.test(attack) && /127|loopback/.test(attack));
      for (const [attack, , layer2] of resolving) {
        // A full ✔ would claim layer 2 for every config, and the one above has no loopback range denied.
        assert.ok(!layer2.startsWith("✔"), `${file}: "${attack}" claims layer 2: ${layer2}`);
      }
      assert.ok(resolving.length >= 2, `${file}: no rows about names resolving to loopback`);
      const alone = resolving.filter(([attack, , layer2]) =>
        /127\.0\.0\.0\/8/.test(attack) && /layer 1 alone/.test(layer2)
      );
      assert.ok(alone.length >= 1, `${file}: no row says layer 1 alone for a private host's range`);
    }
  },
});
