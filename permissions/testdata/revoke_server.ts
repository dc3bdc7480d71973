// A real server whose policy is the JSON in its first argument. Its one tool,
// `attempt`, tries one operation of a kind on a target and answers with the
// outcome and what Deno.permissions says, so a test can see what start-up
// left granted.
import { addTool, health, requireString, run, schema, strProp, text } from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

async function attempt(kind: string, target: string): Promise<string> {
  const descriptor = {
    read: { name: "read", path: target },
    write: { name: "write", path: target },
    net: { name: "net", host: target },
    env: { name: "env", variable: target },
    run: { name: "run", command: target },
    sys: { name: "sys", kind: target },
    ffi: { name: "ffi", path: target },
  }[kind] as Deno.PermissionDescriptor;
  const state = (await Deno.permissions.query(descriptor)).state;
  try {
    if (kind === "read") await Deno.readTextFile(target);
    else if (kind === "write") await Deno.writeTextFile(target, "written");
    else if (kind === "net") {
      (await Deno.connect({ hostname: target.split(":")[0], port: Number(target.split(":")[1]) })).close();
    } else if (kind === "env") Deno.env.get(target);
    else if (kind === "run") await new Deno.Command(target, { args: ["--version"], stdout: "null" }).output();
    else if (kind === "sys" && target === "hostname") Deno.hostname();
    else if (kind === "ffi") Deno.dlopen(target, {}).close();
    return `${state} ok`;
  } catch (err) {
    return `${state} ${(err as Error).name}`;
  }
}

if (!health()) {
  await run("revoke", (server) => {
    addTool(
      server,
      {
        name: "attempt",
        description: "Tries one operation",
        inputSchema: schema({
          kind: strProp("read, write, net, env, run, sys (hostname) or ffi"),
          target: strProp("What to try it on"),
        }, [
          "kind",
          "target",
        ]),
        annotations: RO,
      },
      async (req) => text(await attempt(requireString(req.arguments, "kind"), requireString(req.arguments, "target"))),
    );
  }, { policy: definePolicy({ tenantConfig: false, ...JSON.parse(Deno.args[0]) }) });
}
