// The config schema. Every allow-list defaults to empty: without a config
// file the server may fetch nothing.
import { definePolicy, PolicyError, PolicyInitError, quote } from "@forge/toolkit/validate";
import { z } from "zod";
import { parseOrigin } from "./credentials.ts";
import { NetRules, parseHostEntry } from "./net_rules.ts";
import { MAX_CREDENTIAL_LENGTH, MAX_CREDENTIALS_TOTAL, SecretFilter } from "./secret_filter.ts";

/** The largest `max_bytes`: the body travels twice in a result (structured and as text). */
export const MAX_BYTES_LIMIT = 4 * 1024 * 1024;

/** Config fields that hold secrets: each must be exactly one `${NAME}`. */
export const SECRET_FIELDS: readonly string[] = ["auth.*.credentials"];

const AuthSchema = z.strictObject({
  /** Exact origins that get the header, e.g. `https://api.example.com`. */
  origins: z.array(z.string().min(1)).min(1),
  /** The auth scheme before the credentials, e.g. `Bearer`. */
  scheme: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, "must be one HTTP token, e.g. Bearer").optional(),
  /** The secret, from the environment; its length caps how far past `max_bytes` every body is read. */
  credentials: z.string()
    .max(MAX_CREDENTIAL_LENGTH, `must be at most ${MAX_CREDENTIAL_LENGTH} characters`)
    .regex(/^[\x21-\x7e]+$/, "must be visible ASCII without spaces"),
});

/**
 * The http server's config, validated. Hosts, schemes, private hosts and
 * credential origins are checked against each other, so a config that would
 * fail at the first call fails at load instead.
 *
 * @example The defaults allow nothing
 * ```ts
 * import { ConfigSchema } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const config = ConfigSchema.parse({});
 * assert.deepEqual(config.allow_hosts, []);
 * assert.deepEqual(config.allow_schemes, ["https"]);
 * ```
 */
export const ConfigSchema = z.strictObject({
  /** Hosts `fetch_url` may reach: `host`, `host:port`, `*.suffix`, `[v6]:port`. */
  allow_hosts: z.array(z.string().min(1).max(300)).default([]),
  /** Schemes: `https` and/or `http`. */
  allow_schemes: z.array(z.enum(["https", "http"])).default(["https"]),
  /** Hosts of `allow_hosts` that may be loopback, private or otherwise internal (e.g. `127.0.0.1`). */
  allow_private_hosts: z.array(z.string().min(1).max(300)).default([]),
  /** Deadline of one fetch, redirects and body included; a reload may lower it, raising it needs a restart. */
  timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  /** Most body bytes returned; the rest is cut and marked `truncated`. */
  max_bytes: z.number().int().min(1).max(MAX_BYTES_LIMIT).default(1024 * 1024),
  /** Most redirects followed. */
  max_redirects: z.number().int().min(0).max(10).default(5),
  /** Credentials sent as `Authorization` to exact origins only. */
  auth: z.array(AuthSchema).default([]),
  /** An append-only audit file (absolute, or relative to this file); stderr when absent. Read at start only. */
  audit_file: z.string().min(1).optional(),
}).superRefine((config, ctx) => {
  const hosts: string[] = [];
  config.allow_hosts.forEach((entry, i) => {
    try {
      hosts.push(parseHostEntry(entry).host);
    } catch (err) {
      ctx.addIssue({ code: "custom", path: ["allow_hosts", i], message: (err as Error).message });
    }
  });
  // A set: a list looked up once per private host took 4.8 s for 50,000 of each.
  const listed = new Set(hosts);
  config.allow_private_hosts.forEach((host, i) => {
    if (host.startsWith("*.") || !listed.has(host.toLowerCase())) {
      const message = "must be an exact host that allow_hosts lists too (no wildcard, no port)";
      ctx.addIssue({ code: "custom", path: ["allow_private_hosts", i], message });
    }
  });
  if (hosts.length !== config.allow_hosts.length) return;
  let rules: NetRules;
  try {
    rules = new NetRules(config);
  } catch (err) {
    // The policy quotes a host as parseHostEntry made it, without its port: a part of a ${NAME} value, which the
    // loader's redaction does not hide (lower-cased alone, it would). Each bad entry is named as written instead.
    const bad = config.allow_hosts.map((entry, i) => [entry, hostRefusal(hosts[i]), i] as const)
      .filter(([, why]) => why !== undefined);
    for (const [entry, why, i] of bad) {
      ctx.addIssue({
        code: "custom",
        path: ["allow_hosts", i],
        message: `Cannot use host ${quote(entry, 100)}: ${why}`,
      });
    }
    if (bad.length === 0) ctx.addIssue({ code: "custom", path: ["allow_hosts"], message: (err as Error).message });
    return;
  }
  // The filter is built here once, so that credentials it could not hide are refused at load, not at a fetch.
  const total = config.auth.reduce((sum, entry) => sum + entry.credentials.length, 0);
  if (total > MAX_CREDENTIALS_TOTAL) {
    const message = `must have at most ${MAX_CREDENTIALS_TOTAL} characters of credentials in all (they have ${total})`;
    ctx.addIssue({ code: "custom", path: ["auth"], message });
  } else {
    try {
      new SecretFilter(config.auth.map((entry) => entry.credentials));
    } catch (err) {
      ctx.addIssue({ code: "custom", path: ["auth"], message: (err as Error).message });
    }
  }
  const seen = new Set<string>();
  config.auth.forEach((entry, i) => {
    entry.origins.forEach((origin, j) => {
      const path = ["auth", i, "origins", j];
      try {
        const canonical = parseOrigin(origin);
        // Named as written: the canonical form (its default port dropped) is a rewrite redaction does not know.
        const bad = (why: string) => new TypeError(`Cannot use origin ${quote(origin, 100)}: ${why}`);
        try {
          rules.check(`${canonical}/`);
        } catch (err) {
          const code = err instanceof PolicyError ? err.code : undefined;
          throw bad(ORIGIN_REFUSALS[code ?? ""] ?? "the rest of the config does not allow it");
        }
        if (seen.has(canonical)) throw bad("it is listed twice");
        seen.add(canonical);
      } catch (err) {
        ctx.addIssue({ code: "custom", path, message: (err as Error).message });
      }
    });
  });
});

/** Why an auth origin is refused, by the code of the policy's refusal of it (whose words quote its canonical form). */
const ORIGIN_REFUSALS: Record<string, string> = {
  scheme: "its scheme is not in allow_schemes",
  host: "its host is not in allow_hosts",
  port: "its port is not allowed for its host by allow_hosts",
  address: "its host is an internal address that allow_private_hosts does not list",
  "ip-literal": "its IP address is not in canonical form",
};

/** Why the policy refuses a host of allow_hosts (as parseHostEntry gives it), without quoting it; else undefined. */
function hostRefusal(host: string): string | undefined {
  try {
    definePolicy({ baseDir: "/", defaultDeny: false, tenantConfig: false, net: { hosts: [host] } });
    return undefined;
  } catch (err) {
    // The reason as a field, never the message: the message quotes the host.
    return err instanceof PolicyInitError ? err.reason : "is not a valid host";
  }
}

/** The validated config. */
export type Config = z.infer<typeof ConfigSchema>;
