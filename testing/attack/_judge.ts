// Ground truth for one case: what came back, what reached stderr, what the
// listener saw, what changed on disk. Each check reads facts the kit itself
// planted (a secret, a marker, a port, a folder), never a guess from text.
import { basename, isAbsolute, relative } from "node:path";
import type { AttackCase } from "./_case.ts";
import type { Hit } from "./_listener.ts";
import type { Change } from "./_snapshot.ts";

/** Files a command from a hostile repository config creates in the canary folder start with this. */
export const CONFIG_RAN = "hostile-config-";

/** What a finding is about. */
export type AttackCheck =
  | "canary-leak"
  | "network"
  | "outside-change"
  | "config-ran"
  | "side-effect"
  | "log-injection"
  | "no-reply"
  | "unexpected-reply"
  | "not-json"
  | "dead"
  | "memory"
  | "host-path"
  | "served-variant"
  | "served-invalid"
  | "prototype-pollution"
  | "exit";

/** A finding before it is tied to its case. */
export interface Verdict {
  check: AttackCheck;
  what: string;
}

/** What one case produced. */
export interface Observed {
  case: AttackCase;
  /** The lines sent, filled (a repeated line once), and redirect targets the kit's listener gave. */
  sent: string[];
  /** New stdout lines. */
  lines: string[];
  /** New stderr lines. */
  stderr: string[];
  hits: Hit[];
  changes: Change[];
  /** Expected ids left unanswered. */
  missing: string[];
  /** Ids of replies no request of the run had (or answered twice). */
  unexpected: string[];
  /** Ids answered with a `result` although the case must be refused. */
  served: string[];
  /** Lines on stdout that are not JSON. */
  notJson: string[];
  alive: "yes" | "ended" | "hung";
  exitCode: number | undefined;
  rss: number | undefined;
  polluted: string | undefined;
}

/** What the judge knows of the run. */
export interface Ground {
  secret: string;
  marker: string;
  /** Places the server may change. */
  writable: readonly string[];
  /** Places the server may name in a message. */
  roots: readonly string[];
  /** Host paths it must not name unless the request did. */
  sensitive: readonly string[];
  deadlineMs: number;
  maxRssBytes: number | undefined;
}

/** Whether `path` is `root` or lies under it, by path segments. */
export function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

function cut(text: string, n = 80): string {
  const quoted = JSON.stringify(text);
  return quoted.length > n ? quoted.slice(0, n) + '…"' : quoted;
}

const PATH_END = /["'\s<>`\\,;)]/;

/** Host paths a reply names that lie outside the roots and that no request named. */
function hostPaths(line: string, ground: Ground, sent: string): string[] {
  const out: string[] = [];
  for (const prefix of ground.sensitive) {
    for (let at = line.indexOf(prefix); at >= 0; at = line.indexOf(prefix, at + 1)) {
      const end = line.slice(at).search(PATH_END);
      const path = (end < 0 ? line.slice(at) : line.slice(at, at + end)).replace(/[!?.:;,)\]}…]+$/, "");
      if (ground.roots.some((root) => within(path, root)) || sent.includes(path)) continue;
      out.push(path);
    }
  }
  return [...new Set(out)];
}

function forged(line: string, marker: string): boolean {
  return line.split("\r").some((part) => part.startsWith(marker)) || line.includes(`\u001b]0;${marker}`);
}

/** Every check over one case. */
export function judge(o: Observed, ground: Ground): Verdict[] {
  const out: Verdict[] = [];
  const add = (check: AttackCheck, what: string) => out.push({ check, what });
  const sent = o.sent.join("\n");
  if (o.lines.some((l) => l.includes(ground.secret))) add("canary-leak", "the canary secret came back on stdout");
  if (o.stderr.some((l) => l.includes(ground.secret))) {
    add("canary-leak", "the canary secret reached stderr (log or audit)");
  }
  const allowed = (h: Hit) => !o.case.inert && h.allowed;
  for (const hit of o.hits.filter((h) => !allowed(h)).slice(0, 3)) {
    const which = hit.allowed ? "allowed" : "canary";
    add(o.case.inert ? "side-effect" : "network", `the ${which} loopback listener got ${hit.method} ${cut(hit.path)}`);
  }
  const changed = o.changes.filter((c) =>
    !o.changes.some((d) => d !== c && d.path.startsWith(c.path + "/")) &&
    (o.case.inert || !ground.writable.some((w) => within(c.path, w)))
  );
  const ran = changed.filter((c) => basename(c.path).startsWith(CONFIG_RAN));
  for (const c of ran.slice(0, 3)) {
    const what = basename(c.path).slice(CONFIG_RAN.length);
    add("config-ran", `git ran "${what}" from the repository's hostile config (it created ${cut(c.path, 120)})`);
  }
  for (const c of changed.filter((c) => !ran.includes(c)).slice(0, 3)) {
    add(o.case.inert ? "side-effect" : "outside-change", `${c.change} ${cut(c.path, 120)}`);
  }
  if (o.stderr.some((l) => forged(l, ground.marker))) {
    add("log-injection", "a stderr line starts with the marker an argument carried after a line break");
  }
  for (const id of o.missing.slice(0, 3)) {
    add("no-reply", `no reply to id ${cut(id, 40)} within ${ground.deadlineMs} ms`);
  }
  for (const id of o.unexpected.slice(0, 3)) {
    add("unexpected-reply", `a reply with id ${cut(id, 40)}, which no pending request had`);
  }
  for (const id of o.served.slice(0, 1)) {
    const variant = o.case.refuse?.includes("case") === true;
    add(variant ? "served-variant" : "served-invalid", `id ${cut(id, 40)} got a result although ${o.case.refuse}`);
  }
  for (const line of o.notJson.slice(0, 1)) add("not-json", `stdout held a line that is not JSON: ${cut(line)}`);
  for (const line of o.lines) {
    for (const path of hostPaths(line, ground, sent).slice(0, 2)) {
      add("host-path", `a reply names the host path ${cut(path, 120)}, outside the roots`);
    }
  }
  if (o.polluted !== undefined) {
    add("prototype-pollution", `Object.prototype gained "polluted" = ${cut(o.polluted, 40)}`);
  }
  if (o.alive === "ended") add("dead", `the server ended its output (exit code ${o.exitCode ?? "unknown"})`);
  if (o.alive === "hung") {
    add("dead", `the server did not answer tools/list within ${ground.deadlineMs} ms after the case`);
  }
  if (ground.maxRssBytes !== undefined && o.rss !== undefined && o.rss > ground.maxRssBytes) {
    add("memory", `resident memory ${mib(o.rss)} MiB is above the bound of ${mib(ground.maxRssBytes)} MiB`);
  }
  return out;
}

function mib(bytes: number): string {
  return (bytes / (1 << 20)).toFixed(0);
}
