// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// The attack kit against the http server, started with exactly the flags it
// prints, in both protocol eras. Its config allows one host: the kit's
// allowed listener (127.0.0.1 on one port), so the redirect bait there is
// followed as far as the server lets it; the canary listener on another port,
// reached through every encoding of 127.0.0.1, must never see a request.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";

const SCRIPT = fileURLToPath(new URL("./main.ts", import.meta.url));
const REPO = dirname(dirname(dirname(SCRIPT)));

Deno.test("the http server survives the attack kit under its printed flags, allowed only the kit's listener", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "http-attack-" }));
  const config = join(dir, "http.json");
  // The kit starts a server per era in one world (one listener): the config and the flags it prints are written
  // and read once per world, not once per server. `last` is what the config on disk holds now.
  let last: { allowed: string; flags: Promise<string[]> } | undefined;
  const target = subprocessTarget({
    name: "http",
    cwd: REPO,
    async args(world) {
      const allowed = new URL(world.allowedUrl).host;
      if (last?.allowed !== allowed) {
        await Deno.writeTextFile(
          config,
          JSON.stringify({
            allow_hosts: [allowed],
            allow_schemes: ["http"],
            allow_private_hosts: ["127.0.0.1"],
            timeout_ms: 2_000,
            max_bytes: 1_000,
            max_redirects: 3,
          }),
          { mode: 0o600 },
        );
        last = { allowed, flags: printedPermissions({ script: SCRIPT, config, cwd: REPO }) };
      }
      return [...await last.flags, SCRIPT, "-config", config];
    },
  });
  const report = await attack(target, { watch: [dir] });
  assertNoFindings(report);
  await Deno.remove(dir, { recursive: true });
});
