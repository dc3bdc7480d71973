// A minimal server start-up for the subprocess tests: reads a policy from the
// config file named by the first argument (which is then one of its read
// files), honours --print-permissions, and runs the least-privilege check;
// when it passes, it prints "serving" and the kinds revoked.
import { definePolicy, type PolicyInit } from "../../validate/policy.ts";
import {
  derivePermissions,
  EXCESS_PERMISSIONS_EXIT_CODE,
  formatPermissionFlags,
  PRINT_PERMISSIONS_FLAG,
} from "../mod.ts";
import { enforceLeastPrivilege } from "../least_privilege.ts";

const config = Deno.args[0];
const init: PolicyInit = JSON.parse(await Deno.readTextFile(config));
const set = derivePermissions(definePolicy({ ...init, readFiles: [...(init.readFiles ?? []), config] }));
if (Deno.args.includes(PRINT_PERMISSIONS_FLAG)) {
  console.log(formatPermissionFlags(set));
  Deno.exit(0);
}
const verdict = await enforceLeastPrivilege(set, { name: "fixture" });
if (!verdict.ok) Deno.exit(EXCESS_PERMISSIONS_EXIT_CODE);
console.log("serving");
console.log(`revoked ${verdict.revoked.join(" ")}`);
