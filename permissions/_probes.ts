// Deno can answer "is this granted?" but cannot list what was granted, so the
// over-privilege check asks about probes: places a least-privilege server
// never needs and a careless flag often grants.
import { ipv4Bytes } from "../internal/ip.ts";

/**
 * Paths to ask about for read, write and ffi, before filtering out what the
 * set covers: common places, the `ancestors` of the set's own paths, the
 * working directory and the deno executable (a grant of its folder or of any
 * folder above covers it too).
 */
export function pathProbes(ancestors: readonly string[]): string[] {
  const probes = new Set<string>(["/", "/etc", "/root", "/home", "/proc", "/sys", "/dev", "/var", "/usr", "/tmp"]);
  for (const path of SECRET_PATHS) probes.add(path);
  for (const dir of ancestors) probes.add(dir);
  // The home folder's secrets, when the process may know where it is (its folder is probed as an ancestor only).
  if (Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted") {
    const home = Deno.env.get("HOME");
    if (home !== undefined && home.startsWith("/")) { for (const name of HOME_SECRETS) probes.add(`${home}/${name}`); }
  }
  probes.add(Deno.cwd());
  probes.add(Deno.execPath());
  return [...probes];
}

// Files and folders a careless grant names one by one, below the folders above (a grant of
// /etc/passwd does not grant /etc): host secrets, the process's own environment, container and
// orchestrator credentials.
const SECRET_PATHS: readonly string[] = [
  "/etc/passwd",
  "/etc/shadow",
  "/etc/sudoers",
  "/etc/ssh",
  "/root/.ssh",
  "/proc/self/environ",
  "/proc/self/mem",
  "/var/run/docker.sock",
  "/run/docker.sock",
  "/var/run/secrets",
  "/run/secrets",
];

// Under the home folder: keys, cloud and registry credentials.
const HOME_SECRETS: readonly string[] = [".ssh", ".aws", ".config", ".netrc", ".docker", ".kube", ".gnupg", ".npmrc"];

/** Hosts (optionally with a port) to ask about for net. */
export function netProbes(allowed: readonly string[]): string[] {
  const hosts = [
    "127.0.0.1",
    "localhost",
    "0.0.0.0",
    "[::1]",
    "169.254.169.254",
    "10.0.0.1",
    "192.168.0.1",
    "example.com",
  ];
  const ports = ["", ":22", ":80", ":443", ":8080"];
  const probes = new Set<string>();
  for (const host of hosts) for (const port of ports) probes.add(host + port);
  for (const entry of allowed) {
    const { host } = splitNet(entry);
    const concrete = host.startsWith("*.") ? `probe${host.slice(1)}` : host;
    for (const port of [...ports, ":1"]) probes.add(concrete + port);
  }
  return [...probes];
}

/** Environment variables that hold secrets or describe the host. */
export const ENV_PROBES: readonly string[] = [
  "HOME",
  "PATH",
  "USER",
  "SHELL",
  "PWD",
  "TMPDIR",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "DATABASE_URL",
  "SSH_AUTH_SOCK",
  "DENO_AUTH_TOKENS",
  "DENO_DIR",
];

// Programs that run other code (shells, interpreters, launchers) or reach other hosts.
const RUN_NAMES: readonly string[] = [
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "fish",
  "busybox",
  "env",
  "xargs",
  "find",
  "timeout",
  "nohup",
  "sudo",
  "su",
  "python3",
  "python",
  "perl",
  "ruby",
  "php",
  "node",
  "deno",
  "awk",
  "curl",
  "wget",
  "nc",
  "ssh",
  "scp",
  "git",
];

// Where distributions and images install them. A bare name is resolved through PATH, which may find a shim
// (pyenv's python3) or nothing, and Deno compares run paths without resolving symlinks (a grant of /bin/sh
// is not one of /usr/bin/sh even where /bin links to /usr/bin): each place is asked about by its own path.
const RUN_DIRS: readonly string[] = ["/bin", "/usr/bin", "/usr/local/bin"];

/** Programs to ask about for run: each of a list by bare name and by absolute path, and the deno executable. */
export function runProbes(): string[] {
  const probes = [Deno.execPath()];
  for (const name of RUN_NAMES) {
    probes.push(name);
    for (const dir of RUN_DIRS) probes.push(`${dir}/${name}`);
  }
  return probes;
}

/** Every kind Deno 2.9.6 knows for `--allow-sys`. */
export const SYS_KINDS: readonly NonNullable<Deno.SysPermissionDescriptor["kind"]>[] = [
  "loadavg",
  "hostname",
  "systemMemoryInfo",
  "networkInterfaces",
  "osRelease",
  "osUptime",
  "uid",
  "gid",
  "username",
  "cpus",
  "homedir",
  "statfs",
  "getPriority",
  "setPriority",
  "ca",
  "umask",
];

/** How many random addresses inside each `--deny-net` range are asked about, besides its first and last. */
export const DENY_NET_RANDOM_PROBES = 4;

/**
 * The hosts to ask about for one `--deny-net` entry: for an IPv4 range `a.b.c.d/n`, its first and last address and
 * {@linkcode DENY_NET_RANDOM_PROBES} random ones inside it (new at every start), since a query of the first address
 * alone is answered "denied" by `--deny-net=a.b.c.d`, a range narrowed to that one address; for any other entry, its
 * host. Deno answers a query without a port "denied" only when every port is, so `--deny-net=10.0.0.0/8:443` is
 * found too.
 */
export function denyNetProbes(entry: string, random: () => number = randomUint32): string[] {
  const slash = entry.indexOf("/");
  const host = slash === -1 ? entry : entry.slice(0, slash);
  const bytes = ipv4Bytes(host);
  const bits = Number(entry.slice(slash + 1));
  if (slash === -1 || bytes === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return [host];
  const size = 2 ** (32 - bits);
  const address = bytes.reduce((n, byte) => n * 256 + byte, 0);
  const first = address - (address % size);
  const offsets = [0, size - 1];
  for (let i = 0; i < DENY_NET_RANDOM_PROBES; i++) offsets.push(random() % size);
  return [...new Set(offsets.map((offset) => dottedQuad(first + offset)))];
}

function randomUint32(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

function dottedQuad(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

/** Whether a net probe `host[:port]` is granted by one of `entries` (Deno's `*.suffix` also matches the apex). */
export function netCovered(entries: readonly string[], probe: string): boolean {
  const want = splitNet(probe);
  return entries.some((entry) => {
    const have = splitNet(entry);
    if (have.port !== undefined && have.port !== want.port) return false;
    if (have.host === want.host) return true;
    if (!have.host.startsWith("*.")) return false;
    const suffix = have.host.slice(2);
    return want.host === suffix || want.host.endsWith(`.${suffix}`);
  });
}

function splitNet(entry: string): { host: string; port: string | undefined } {
  const close = entry.startsWith("[") ? entry.indexOf("]") + 1 : 0;
  const colon = entry.indexOf(":", close);
  return colon === -1
    ? { host: entry, port: undefined }
    : { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
}
