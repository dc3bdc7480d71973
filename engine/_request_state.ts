// The `requestState` of an input-required result (2026-07-28): what the
// server asked and what the client already answered, carried by the client
// between rounds. The client controls it, so it is sealed with HMAC-SHA256
// under a key made when the process starts and never shown, and bound to the
// tool, the digest of its canonical arguments and an expiry: a forged,
// edited, expired or transplanted state is refused before any handler runs.
// Sealed, not encrypted: the client may read it, so nothing secret goes in.

/** How long a state stays valid: a user may take a while to answer a form. */
export const STATE_TTL_MS = 15 * 60_000;
/** The largest sealed state accepted or produced, in characters. */
export const MAX_STATE_CHARS = 256 * 1024;

/** What a state holds once opened. */
export interface StateBody {
  /** Which round of asking produced it (1 for the first input-required result). */
  round: number;
  /** The keys asked in that round, each with the digest of the question. */
  asked: Record<string, string>;
  /** Answers of earlier rounds, by key, with the digest of their question. */
  answers: Record<string, { q: string; a: unknown }>;
  /** The opened state's nonce and expiry, so that it can be spent once ({@linkcode spendState}). */
  readonly issued?: { nonce: string; exp: number };
}

interface Sealed {
  v: 1;
  tool: string;
  args: string;
  exp: number;
  /** A random nonce: what {@linkcode spendState} remembers. */
  n: string;
  round: number;
  asked: Record<string, string>;
  answers: Record<string, { q: string; a: unknown }>;
}

let keyPromise: Promise<CryptoKey> | undefined;
function key(): Promise<CryptoKey> {
  keyPromise ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]) as Promise<
    CryptoKey
  >;
  return keyPromise;
}

const encoder = new TextEncoder();

/**
 * sha256 (base64url) of a value's canonical JSON: the identity of arguments or
 * of a question, hashed a piece at a time (no copy of a large argument).
 */
export function digestOf(value: unknown): Promise<string> {
  if (digests === undefined) {
    // Loaded at the first digest: node:crypto costs a server's start more than the rest of its engine
    // (docs/benchmarks.md, "Cold start"), and most servers never seal a state.
    return import("../internal/canonical_digest.ts").then((module) => {
      digests = module;
      return module.canonicalDigest(value, "base64url");
    });
  }
  try {
    return Promise.resolve(digests.canonicalDigest(value, "base64url"));
  } catch (err) {
    return Promise.reject(err);
  }
}

let digests: typeof import("../internal/canonical_digest.ts") | undefined;

/**
 * Seals a state for one tool call.
 *
 * @throws {RangeError} When the sealed state would be longer than {@linkcode MAX_STATE_CHARS}.
 */
export async function sealState(tool: string, argsDigest: string, body: StateBody): Promise<string> {
  const sealed: Sealed = {
    v: 1,
    tool,
    args: argsDigest,
    exp: Date.now() + STATE_TTL_MS,
    n: toBase64Url(crypto.getRandomValues(new Uint8Array(16))),
    round: body.round,
    asked: body.asked,
    answers: body.answers,
  };
  const payload = toBase64Url(encoder.encode(JSON.stringify(sealed)));
  const mac = await crypto.subtle.sign("HMAC", await key(), encoder.encode(payload));
  const state = `${payload}.${toBase64Url(new Uint8Array(mac))}`;
  if (state.length > MAX_STATE_CHARS) {
    throw new RangeError(
      `Cannot ask the client: the answers so far take ${state.length} characters, over the ${MAX_STATE_CHARS} a requestState may hold`,
    );
  }
  return state;
}

/** Why a state was refused, as the client is told. */
export type StateProblem = "malformed" | "forged" | "expired" | "other-call";

/**
 * Opens a state the client sent back for `tool`, as of `now`. The cheap
 * checks come first — its form, its seal, its tool, its expiry — and the
 * arguments are digested (`argsDigest`, the costly part for large
 * arguments) only for a genuine, current state of this tool, to compare
 * with the digest it was sealed with.
 */
export async function openState(
  state: unknown,
  tool: string,
  argsDigest: () => Promise<string>,
  now: number = Date.now(),
): Promise<{ ok: true; body: StateBody } | { ok: false; problem: StateProblem }> {
  if (typeof state !== "string" || state.length > MAX_STATE_CHARS) return { ok: false, problem: "malformed" };
  const dot = state.indexOf(".");
  const mac = dot > 0 ? fromBase64Url(state.slice(dot + 1)) : undefined;
  if (mac === undefined) return { ok: false, problem: "malformed" };
  const payload = state.slice(0, dot);
  if (!(await crypto.subtle.verify("HMAC", await key(), mac, encoder.encode(payload)))) {
    return { ok: false, problem: "forged" };
  }
  // Signed by this process, so well-formed: only the binding and the clock remain to check.
  const sealed = JSON.parse(new TextDecoder().decode(fromBase64Url(payload))) as Sealed;
  if (sealed.tool !== tool) return { ok: false, problem: "other-call" };
  if (!(now <= sealed.exp)) return { ok: false, problem: "expired" };
  if (sealed.args !== await argsDigest()) return { ok: false, problem: "other-call" };
  const issued = { nonce: sealed.n, exp: sealed.exp };
  return { ok: true, body: { round: sealed.round, asked: sealed.asked, answers: sealed.answers, issued } };
}

/** The most spent states remembered at once; past it, a confirmation waits for old ones to expire. */
export const MAX_SPENT_STATES = 65_536;
// Spent nonces with their state's expiry, in the order they were spent.
const spent = new Map<string, number>();

/**
 * Spends an opened state once, for a side effect it confirms: `ok` the first
 * time; `replayed` after that, until the state expires (then it no longer
 * opens at all); `busy` when {@linkcode MAX_SPENT_STATES} unexpired ones are
 * remembered already. Memory stays bounded: expired nonces are forgotten.
 */
export function spendState(body: StateBody, now: number = Date.now()): "ok" | "replayed" | "busy" {
  const issued = body.issued;
  if (issued === undefined) return "ok";
  if (spent.has(issued.nonce)) return "replayed";
  // The oldest spent state, once expired, is forgotten as new ones are spent.
  for (const [nonce, exp] of spent) {
    if (exp < now) spent.delete(nonce);
    break;
  }
  if (spent.size >= MAX_SPENT_STATES) {
    for (const [nonce, exp] of spent) if (exp < now) spent.delete(nonce);
    if (spent.size >= MAX_SPENT_STATES) return "busy";
  }
  spent.set(issued.nonce, issued.exp);
  return "ok";
}

function toBase64Url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  // Only the URL alphabet, no padding or whitespace: what toBase64Url() writes.
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    return Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {
    return undefined;
  }
}
