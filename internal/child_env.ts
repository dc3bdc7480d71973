/**
 * The variables a child `deno` needs to download its dependencies on a machine
 * whose HTTPS goes through a proxy (often one that intercepts TLS with its own
 * certificate authority): the proxy, the certificates to trust, and the cache.
 * None of them holds a secret, so a scrubbed environment may keep them.
 *
 * `DENO_TLS_CA_STORE=system` is what makes Deno read `SSL_CERT_FILE` and
 * `SSL_CERT_DIR`; without it they are ignored.
 */
export const CHILD_ENV_NAMES: readonly string[] = Object.freeze([
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_DIR",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
]);

/**
 * The environment for a child spawned with `clearEnv: true`: `NO_COLOR=1`, the
 * proxy, certificate and cache variables of {@linkcode CHILD_ENV_NAMES} that
 * are set here, then `vars`. Nothing else of this process's environment goes
 * through, so a secret such as `AWS_SECRET_ACCESS_KEY` stays behind.
 *
 * A variable this process may not read (no `--allow-env` for it) is left out
 * rather than thrown on, so a test run without those grants still works where
 * no proxy is needed; `{child-env}` in a `// test-permissions:` line grants
 * exactly these names.
 *
 * Deno reads these variables itself while it loads modules, whatever
 * `--allow-env` the child is given, so a server started with a scoped
 * `--allow-env` still downloads through the proxy.
 *
 * @param vars The child's own variables; they win over the passed-through ones.
 * @returns A new object to pass as `env`.
 *
 * @example Start a server behind a proxy with nothing else inherited
 * ```ts
 * import { childEnv } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const env = childEnv({ FORGE_TENANT_CONFIG: "/tmp/tenant" });
 * assert.equal(env.NO_COLOR, "1");
 * assert.equal(env.FORGE_TENANT_CONFIG, "/tmp/tenant");
 * // new Deno.Command(Deno.execPath(), { args, clearEnv: true, env })
 * ```
 */
export function childEnv(vars: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of CHILD_ENV_NAMES) {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return Object.assign(env, vars);
}
