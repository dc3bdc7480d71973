// my-server: health → config → Manager → run. Everything else lives in
// domain/ (the job) and tools/ (schemas and argument mapping).
import { auditTrail, health, run } from "@forge/toolkit";
import { fromSchema, Loader, resolveConfigPath } from "@forge/toolkit/configreload";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/notes.ts";
import { policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

const NAME = "my-server";

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
  const policy = (c: typeof initial) => policyFor(c, path, config.variables);
  const mgr = new Manager(() => config.get(), policy);
  const audit = auditTrail({ server: NAME, file: policy(initial).writeFiles[0] });
  await run(NAME, (server) => registerAll(server, mgr), {
    version: "0.1.0",
    policy: policy(initial),
    redact: (text) => config.redact(text),
    middleware: [audit],
    onClose: async () => {
      await mgr.close();
      await audit.close();
      await config.close();
    },
  });
}
