// The http server: one pattern tool, fetch_url, under a live-reloaded config.
import { auditTrail, health, run } from "@forge/toolkit";
import { fromSchema, Loader, resolveConfigPath } from "@forge/toolkit/configreload";
import { type Config, ConfigSchema, SECRET_FIELDS } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

if (!health()) {
  const { path, source } = resolveConfigPath("http");
  // Printing the flags grants nothing, so it needs only --allow-read=<config file>; the
  // file-safety check (which must read the config's folder) runs whenever the server serves.
  const printing = Deno.args.includes("--print-permissions");
  const config = new Loader(path, fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS }), {
    name: "http",
    optional: source === "tenant",
    allowUnsafeFile: printing || Deno.args.includes("--allow-unsafe-config"),
    log: printing ? () => {} : undefined,
  });
  let initial: Config;
  try {
    initial = await config.get();
  } catch (err) {
    console.error(`http: ${(err as Error).message}`);
    Deno.exit(1);
  }
  const redact = (text: string) => config.redact(text);
  const mgr = new Manager(() => config.get(), { timeoutMs: initial.timeout_ms, redact });
  const audit = auditTrail({ server: "http", file: auditFileOf(initial, path) });
  await run("http", (server) => registerAll(server, mgr), {
    version: "0.1.0",
    policy: policyFor(initial, path, config.variables), // layer 2: exact flags, --print-permissions, start-up check
    redact,
    middleware: [audit],
    onClose: async () => {
      await mgr.close();
      await audit.close();
      await config.close();
    },
  });
}
