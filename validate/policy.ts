import { isIPv4, isIPv6 } from "../internal/ip.ts";
import { isAbsolute, resolve } from "node:path";
import { compileGlob } from "./_glob.ts";
import { quote } from "../internal/quote.ts";
import { PolicyInitError, type PolicyInitSetting } from "./policy_init_error.ts";
import { TENANT_CONFIG_VARIABLE } from "../internal/tenant_variable.ts";

/** Caps that every guard reads from one place. */
export interface Limits {
  /** Most bytes one file read may return. */
  readonly maxReadBytes: number;
  /** Most bytes of one HTTP response body. */
  readonly maxFetchBytes: number;
  /** Most bytes of text a tool sends back to the model. */
  readonly maxResultBytes: number;
  /** Most rows one query may return. */
  readonly maxRows: number;
  /** Most redirects one fetch follows. */
  readonly maxRedirects: number;
  /** Deadline of one fetch, redirects and body included, in milliseconds. */
  readonly fetchTimeoutMs: number;
  /** Longest path a caller may give, in characters. */
  readonly maxPathLength: number;
  /**
   * Most names a path may have below its root, folders and the file itself
   * (`a/b/c.txt` has 3), as given and as resolved. Every call of a jail with
   * a descriptor anchor opens each folder on the way, and under scoped
   * permissions Deno resolves each open's whole path first, so a call's work
   * grows with the cube of the depth.
   */
  readonly maxPathDepth: number;
  /** Longest URL a caller may give, in characters. */
  readonly maxUrlLength: number;
  /** Longest SQL text a caller may give, in characters. */
  readonly maxSqlLength: number;
}

/**
 * The limits a policy gets when its init leaves them out.
 *
 * @example Read a default
 * ```ts
 * import { DEFAULT_LIMITS } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_LIMITS.maxRedirects, 5);
 * ```
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxReadBytes: 1024 * 1024,
  maxFetchBytes: 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  maxRows: 1000,
  maxRedirects: 5,
  fetchTimeoutMs: 10_000,
  maxPathLength: 4096,
  maxPathDepth: 256,
  maxUrlLength: 8192,
  maxSqlLength: 100_000,
});

/**
 * Globs every policy denies unless its init sets `defaultDeny: false`:
 * secrets and version-control data that no tool should hand to a model —
 * environment files, keys and certificates, the credential files of git,
 * npm, Python, Yarn, netrc, PostgreSQL, MySQL, Vault, Terraform state, and
 * the credential folders of AWS, Azure, Google Cloud, Kubernetes, Docker
 * and GnuPG, the stores of Cargo, RubyGems, Maven, pip, rclone, GitHub's CLI,
 * pass and GNOME's keyring, PuTTY and KeePass files, backups of the dotfiles
 * above, and shell and database histories. Matching ignores case as
 * case-insensitive file systems fold it (`ſ` is `s`, `ı` is `i`, `ß` is
 * `ss`); a `PathJail` matches these against the absolute path too.
 *
 * @example The defaults include `.env` files
 * ```ts
 * import { DEFAULT_DENY } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(DEFAULT_DENY.some((glob) => glob.endsWith("/.env")));
 * ```
 */
export const DEFAULT_DENY: readonly string[] = Object.freeze([
  "**/.env",
  "**/.env.*",
  "**/.env~",
  "**/.envrc",
  "**/.git/**",
  "**/.ssh/**",
  "**/*.pem",
  "**/*.key",
  "**/*.p12",
  "**/*.pfx",
  "**/*.jks",
  "**/*.keystore",
  "**/id_rsa*",
  "**/id_dsa*",
  "**/id_ecdsa*",
  "**/id_ed25519*",
  "**/_netrc",
  "**/.pypirc",
  "**/.yarnrc.yml",
  "**/.my.cnf",
  "**/.htpasswd",
  "**/.vault-token",
  "**/*.tfstate",
  "**/*.tfstate.*",
  "**/.aws/**",
  "**/.azure/**",
  "**/.config/gcloud/**",
  "**/.kube/**",
  "**/.docker/config.json",
  "**/.gnupg/**",
  // A second red team's list: other credential stores, key and password files, backups, shell and database histories.
  "**/.config/git/credentials",
  "**/.config/gh/hosts.yml",
  "**/.config/containers/auth.json",
  "**/.config/rclone/rclone.conf",
  "**/.config/pip/pip.conf",
  "**/.pip/pip.conf",
  "**/.cargo/credentials",
  "**/.cargo/credentials.toml",
  "**/.gem/credentials",
  "**/.m2/settings.xml",
  "**/.yarnrc",
  "**/.bundle/config",
  "**/.dockercfg",
  "**/.terraform.d/credentials.tfrc.json",
  "**/.s3cfg",
  "**/.boto",
  "**/.oci/**",
  "**/.password-store/**",
  "**/.local/share/keyrings/**",
  "**/*.ppk",
  "**/*.kdbx",
  "**/*.tfvars",
  "**/.git-credentials*",
  "**/.netrc*",
  "**/.npmrc*",
  "**/.pgpass*",
  "**/.bash_history",
  "**/.zsh_history",
  "**/.psql_history",
  "**/.mysql_history",
]);

/** What the network layer allows; normalised by {@linkcode definePolicy}. */
export interface NetPolicy {
  /** Allowed URL schemes without the colon, e.g. `https`. */
  readonly schemes: readonly string[];
  /** Allowed hosts: exact names, `*.suffix` (subdomains only), or canonical IP literals. */
  readonly hosts: readonly string[];
  /** Allowed ports. */
  readonly ports: readonly number[];
  /** Hosts that may resolve to loopback, private or other internal addresses. */
  readonly privateHosts: readonly string[];
  /**
   * Whether `fetch` keeps using a proxy named in the environment (`HTTP_PROXY`, …); when false and `hosts` is not
   * empty, the runner sets `NO_PROXY` at start and the derived flags grant `NO_PROXY` and `no_proxy`.
   */
  readonly environmentProxy: boolean;
}

/**
 * One policy that both layers read: the path jail, the URL policy and the
 * Deno flags. Everything not listed is denied. Paths are absolute and
 * normalised; the object is frozen.
 */
export interface Policy {
  /** Folders whose contents tools may read. The first is where relative paths start. */
  readonly readRoots: readonly string[];
  /** Folders whose contents tools may write (and read). */
  readonly writeRoots: readonly string[];
  /**
   * Globs over root-relative paths that are refused even inside a root, with everything in a folder one matches;
   * deny beats allow.
   */
  readonly deny: readonly string[];
  /** Files the server itself reads (its config, a database); never served by the jail. */
  readonly readFiles: readonly string[];
  /** Files the server itself writes and reads back (an audit log); never served by the jail. */
  readonly writeFiles: readonly string[];
  /** The network policy. */
  readonly net: NetPolicy;
  /** Names of the environment variables the server reads. */
  readonly env: readonly string[];
  /** Absolute paths of the programs the server runs (see `CommandPolicy`). */
  readonly run: readonly string[];
  /** The caps. */
  readonly limits: Readonly<Limits>;
}

/** The network part of {@linkcode PolicyInit}. */
export interface NetPolicyInit {
  /**
   * Allowed schemes: `https` and/or `http`.
   * @default {["https"]}
   */
  schemes?: readonly string[];
  /**
   * Allowed hosts: `api.example.com`, `*.example.com` (any subdomain, not the
   * apex), `203.0.113.7` or `[2001:db8::1]`.
   * @default {[]}
   */
  hosts?: readonly string[];
  /**
   * Allowed ports.
   * @default {the default port of each allowed scheme}
   */
  ports?: readonly number[];
  /**
   * Exact hosts that may resolve to loopback, private, link-local or other
   * internal addresses; they are allowed hosts as well.
   * @default {[]}
   */
  privateHosts?: readonly string[];
  /**
   * Whether `fetch` may send requests through a proxy that the server's
   * environment names (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, lower case
   * too). By default a server whose policy allows a host sets `NO_PROXY` and
   * `no_proxy` to `*,0.0.0.0/0,::/0` in its own environment at start (`run()` does, before
   * any handler runs), so every connection goes to the address layer 1
   * checked; its flags grant those two names. Set it to true only for a
   * deployment that reaches the internet through a proxy alone: the proxy
   * then looks names up itself, so layer 1's address check does not describe
   * the connection it makes, `--allow-net` is not checked on the proxy's
   * address, and `--deny-net` sees the proxy's address only. The SSRF defence
   * is then the proxy's own filtering (docs/security.md, note 10).
   * @default {false}
   *
   * @example Keep the environment's proxy
   * ```ts
   * import { definePolicy } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const policy = definePolicy({ net: { hosts: ["api.example.com"], environmentProxy: true } });
   * assert.equal(policy.net.environmentProxy, true);
   * ```
   */
  environmentProxy?: boolean;
}

/** The input of {@linkcode definePolicy}; every field defaults to "nothing allowed". */
export interface PolicyInit {
  /**
   * Folders whose contents tools may read; the first is where relative paths start.
   * @default {[]}
   */
  readRoots?: readonly string[];
  /**
   * Folders whose contents tools may write and read.
   * @default {[]}
   */
  writeRoots?: readonly string[];
  /**
   * Globs over root-relative paths (`**`, `*`, `?`), matched without regard to case; a path inside a folder one
   * matches is denied too.
   * @default {[]}
   */
  deny?: readonly string[];
  /**
   * Whether {@linkcode DEFAULT_DENY} is added to `deny`.
   * @default {true}
   */
  defaultDeny?: boolean;
  /**
   * Files the server itself reads, e.g. its config or a database; the jail never serves them.
   * @default {[]}
   */
  readFiles?: readonly string[];
  /**
   * Files the server itself writes and reads back, e.g. an audit log; the jail never serves them.
   * @default {[]}
   */
  writeFiles?: readonly string[];
  /**
   * What the network layer allows.
   * @default {{}}
   */
  net?: NetPolicyInit;
  /**
   * Names of the environment variables the server reads.
   * @default {[]}
   */
  env?: readonly string[];
  /**
   * Absolute paths of the programs the server runs (`CommandPolicy.programPaths()`);
   * never a bare name, which Deno would look up on PATH.
   * @default {[]}
   */
  run?: readonly string[];
  /**
   * Whether the server looks for its config in `$FORGE_TENANT_CONFIG` (see
   * `resolveConfigPath`), which adds that name to `env`. A server without a
   * config file sets it to false.
   * @default {true}
   */
  tenantConfig?: boolean;
  /**
   * Caps that differ from {@linkcode DEFAULT_LIMITS}.
   * @default {DEFAULT_LIMITS}
   */
  limits?: Partial<Limits>;
  /**
   * The folder relative paths in this init are resolved against.
   * @default {Deno.cwd()}
   */
  baseDir?: string;
}

const SCHEME_PORTS: Record<string, number> = { https: 443, http: 80 };

/**
 * Builds the one policy object that drives both layers: default deny,
 * absolute normalised paths, canonical hosts, frozen.
 *
 * @param init What is allowed.
 * @returns The frozen policy.
 * @throws {PolicyInitError} When an entry is malformed (a path with a comma or
 * NUL, an unknown scheme, a host that is not canonical, a bad env name): a
 * `TypeError` that names the setting, the entry and the reason as fields.
 * @throws {RangeError} When a port or a limit is out of range.
 *
 * @example A file server that may read one folder
 * ```ts
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const policy = definePolicy({ readRoots: ["/srv/data"], env: ["API_TOKEN"] });
 * assert.deepEqual(policy.readRoots, ["/srv/data"]);
 * assert.deepEqual(policy.net.hosts, []);
 * assert.ok(Object.isFrozen(policy));
 * ```
 */
export function definePolicy(init: PolicyInit = {}): Policy {
  const base = init.baseDir ?? Deno.cwd();
  const paths = (list: readonly string[] | undefined, setting: PolicyInitSetting) =>
    unique((list ?? []).map((p, index) => path(p, base, setting, index)));
  const deny = unique([...(init.defaultDeny === false ? [] : DEFAULT_DENY), ...(init.deny ?? []).map(glob)]);
  return Object.freeze({
    readRoots: freeze(paths(init.readRoots, "readRoots")),
    writeRoots: freeze(paths(init.writeRoots, "writeRoots")),
    deny: freeze(deny),
    readFiles: freeze(paths(init.readFiles, "readFiles")),
    writeFiles: freeze(paths(init.writeFiles, "writeFiles")),
    net: netPolicy(init.net ?? {}),
    env: freeze(
      unique([...(init.env ?? []), ...(init.tenantConfig === false ? [] : [TENANT_CONFIG_VARIABLE])].map(envName)),
    ),
    run: freeze(unique((init.run ?? []).map(program))),
    limits: limits(init.limits ?? {}),
  });
}

function netPolicy(init: NetPolicyInit): NetPolicy {
  const schemes = unique((init.schemes ?? ["https"]).map((s, index) => {
    const scheme = String(s).toLowerCase().replace(/:$/, "");
    if (!(scheme in SCHEME_PORTS)) {
      const reason = 'is not supported, use "https" or "http"';
      throw new PolicyInitError(`Cannot define policy: scheme ${quote(s)} ${reason}`, {
        setting: "net.schemes",
        index,
        entry: s,
        reason,
      });
    }
    return scheme;
  }));
  const privateHosts = unique((init.privateHosts ?? []).map((h, i) => host(h, "net.privateHosts", i)));
  const hosts = unique([...(init.hosts ?? []).map((h, i) => host(h, "net.hosts", i)), ...privateHosts]);
  const ports = unique((init.ports ?? schemes.map((s) => SCHEME_PORTS[s])).map((p) => {
    if (!Number.isInteger(p) || p < 1 || p > 65535) {
      throw new RangeError(`Cannot define policy: port ${quote(p)} is not an integer from 1 to 65535`);
    }
    return p;
  }));
  const environmentProxy = init.environmentProxy ?? false;
  if (typeof environmentProxy !== "boolean") {
    const reason = "is not true or false";
    throw new PolicyInitError(`Cannot define policy: net.environmentProxy ${quote(environmentProxy)} ${reason}`, {
      setting: "net.environmentProxy",
      entry: environmentProxy,
      reason,
    });
  }
  return Object.freeze({
    schemes: freeze(schemes),
    hosts: freeze(hosts),
    ports: freeze(ports),
    privateHosts: freeze(privateHosts),
    environmentProxy,
  });
}

/** Canonical form of a host entry, or a PolicyInitError. */
function host(entry: string, setting: "net.hosts" | "net.privateHosts", index: number): string {
  const raw = String(entry);
  const text = raw.toLowerCase();
  const bad = (reason: string) =>
    new PolicyInitError(`Cannot define policy: host ${quote(raw)} ${reason}`, { setting, index, entry, reason });
  if (text.startsWith("*.")) {
    if (setting === "net.privateHosts") throw bad("must be exact here, not a wildcard");
    const suffix = text.slice(2);
    if (canonicalHostname(suffix) !== suffix || isIPv4(suffix)) throw bad("is not a valid `*.suffix`");
    return text;
  }
  if (text.startsWith("[") && text.endsWith("]")) {
    if (!isIPv6(text.slice(1, -1)) || canonicalHostname(text) !== text) throw bad("is not a canonical IPv6 literal");
    return text;
  }
  if (isIPv6(text)) throw bad("must be written in brackets, e.g. [::1]");
  if (canonicalHostname(text) !== text || text.endsWith(".")) throw bad("is not a canonical host name or IP literal");
  return text;
}

/** The URL parser's form of a host name, or undefined when it is not a plain DNS name or IP literal. */
function canonicalHostname(text: string): string | undefined {
  let parsed: string;
  try {
    parsed = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (parsed.startsWith("[")) return parsed;
  // Letters, digits, hyphens and underscores in dot-separated labels: no
  // comma (Deno's flag separator), no `*`, nothing the URL parser tolerates
  // in a host but DNS does not.
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(parsed) ? parsed : undefined;
}

function path(entry: string, base: string, setting: PolicyInitSetting, index: number): string {
  if (typeof entry !== "string" || entry === "") {
    throw new PolicyInitError(`Cannot define policy: ${setting} has an empty or non-string path`, {
      setting,
      index,
      entry,
      reason: "is empty or not a string",
    });
  }
  // Deno's permission flags split on commas and cannot escape them, so such a
  // path could never be granted exactly.
  if (entry.includes("\0") || entry.includes(",")) {
    const reason = "contains a NUL byte or a comma";
    throw new PolicyInitError(`Cannot define policy: ${setting} path ${quote(entry)} ${reason}`, {
      setting,
      index,
      entry,
      reason,
    });
  }
  return isAbsolute(entry) ? resolve(entry) : resolve(base, entry);
}

function program(entry: string, index: number): string {
  if (typeof entry !== "string" || !isAbsolute(entry) || entry.includes("\0") || entry.includes(",")) {
    const reason = "is not an absolute path without commas";
    throw new PolicyInitError(`Cannot define policy: run entry ${quote(entry)} ${reason}`, {
      setting: "run",
      index,
      entry,
      reason,
    });
  }
  return resolve(entry);
}

function glob(entry: string, index: number): string {
  if (typeof entry !== "string" || entry.trim() === "") {
    throw new PolicyInitError("Cannot define policy: empty deny glob", {
      setting: "deny",
      index,
      entry,
      reason: "is empty or not a string",
    });
  }
  try {
    compileGlob(entry);
  } catch (err) {
    // compileGlob refuses only empty, "." and ".." segments; its message stays the one thrown.
    throw new PolicyInitError((err as Error).message, {
      setting: "deny",
      index,
      entry,
      reason: 'has an empty, "." or ".." segment',
      cause: err,
    });
  }
  return entry;
}

function envName(name: string, index: number): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    const reason = "is not a valid variable name";
    throw new PolicyInitError(`Cannot define policy: env name ${quote(name)} ${reason}`, {
      setting: "env",
      index,
      entry: name,
      reason,
    });
  }
  return name;
}

function limits(init: Partial<Limits>): Readonly<Limits> {
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(init)) {
    if (!(key in DEFAULT_LIMITS)) {
      throw new PolicyInitError(`Cannot define policy: unknown limit ${quote(key)}`, {
        setting: "limits",
        entry: key,
        reason: "is not a known limit",
      });
    }
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`Cannot define policy: limit ${key} must be a non-negative integer, got ${quote(value)}`);
    }
    out[key] = value;
  }
  return Object.freeze(out as unknown as Limits);
}

function unique<T>(list: readonly T[]): T[] {
  return [...new Set(list)];
}

function freeze<T>(list: T[]): readonly T[] {
  return Object.freeze(list);
}
