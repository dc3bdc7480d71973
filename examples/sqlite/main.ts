// The sqlite server: list, describe and query one SQLite file read-only, and
// change it through the `execute` pattern tool when the config allows. See README.md.
import { auditTrail, health, run } from "@forge/toolkit";
import { fromSchema, Loader, resolveConfigPath } from "@forge/toolkit/configreload";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

const NAME = "sqlite";

if (!health()) {
  const { path, source } = resolveConfigPath(NAME);
  const config = new Loader(path, fromSchema(ConfigSchema), {
    name: NAME,
    optional: source === "tenant",
    allowUnsafeFile: Deno.args.includes("--allow-unsafe-config"),
  });
  const initial = await config.get().catch((err: Error) => {
    console.error(`${NAME}: ${err.message}`);
    Deno.exit(1);
  });
  const mgr = new Manager(() => config.get(), { configPath: path, initial });
  const audit = auditTrail({ server: NAME, file: auditFileOf(initial, path) });
  await run(NAME, (server) => registerAll(server, mgr), {
    version: "0.1.0",
    policy: policyFor(initial, { path, variables: config.variables }),
    redact: (text) => config.redact(text),
    middleware: [audit],
    onClose: async () => {
      await mgr.close();
      await audit.close();
      await config.close();
    },
  });
}
