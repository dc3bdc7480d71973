// A stand-in for a server whose --print-permissions names an unscoped flag:
// a deployment command must refuse to pass it on.
if (Deno.args.includes("--print-permissions")) console.log("--allow-env=FORGE_TENANT_CONFIG --allow-read");
