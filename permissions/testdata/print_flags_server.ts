// A stand-in for a server asked for its flags: it reads its config and the
// variable the config names (both granted by printedPermissions, nothing
// else), and prints flags the way `--print-permissions` does, quoting a path
// that holds a space and an apostrophe.
import { formatPermissionFlags } from "../permission_flags.ts";

const at = Deno.args.indexOf("-config");
const config = JSON.parse(Deno.readTextFileSync(Deno.args[at + 1])) as { fail?: boolean };
if (config.fail) {
  console.error("the config says fail");
  Deno.exit(3);
}
const root = Deno.env.get("ROOT");
const home = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state;
const run = Deno.permissions.querySync({ name: "run" }).state;
console.log(formatPermissionFlags({
  read: [`${root}/it's a folder`, "/plain"],
  write: [],
  net: [],
  denyNet: [],
  env: [`HOME_${home.toUpperCase()}`, `RUN_${run.toUpperCase()}`, ...Deno.args.filter((a) => a.startsWith("X"))],
}));
