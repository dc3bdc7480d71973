// What a handler's questions to the client share in both eras: the methods,
// the capability each needs, the checks on what the client answered, and the
// errors that become a JSON-RPC error (not an isError result) when a handler
// lets them escape. _input_rounds.ts asks through input-required results
// (2026-07-28); _client_requests.ts sends real requests (initialize era).

import { loadSchemaEngine, type SchemaEngine, schemaEngine } from "../toolkit/schema_engine.ts";
import { NARROW_FORM_VERSIONS } from "../toolkit/form_revisions.ts";
import type { InputValidator } from "../toolkit/input_validator.ts";
import type { Era } from "./_era.ts";
import type { InputRequired } from "./_input_rounds.ts";
import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import type {
  AskOptions,
  ClientCapability,
  ClientRoot,
  ElicitAnswer,
  ElicitForm,
  SampleAnswer,
  SampleRequest,
} from "../toolkit/client_input.ts";
import { MissingCapabilityError } from "../toolkit/missing_capability_error.ts";
import type { ToolRequest } from "../toolkit/tool.ts";
import { ToolError } from "../internal/tool_error.ts";
import { quote } from "../internal/quote.ts";

/** The requests a server may send its client. */
export type AskMethod = "elicitation/create" | "roots/list" | "sampling/createMessage";

/** Sends one question to the client and resolves with its raw answer. */
export interface Asker {
  /**
   * `key` is the handler's name for the question, already checked; undefined
   * lets the asker make one. `ready`, when given, is a check the question
   * must pass first: the asker gives the question its place (its generated
   * key, its order in the round) at once, as for any other, but sends or
   * lists it only once `ready` resolves, and rejects with its reason instead,
   * having asked nothing.
   */
  ask(
    method: AskMethod,
    params: Record<string, unknown> | undefined,
    key?: string,
    ready?: Promise<unknown>,
  ): Promise<unknown>;
  /** The era it asks in: in `stateless` answers arrive in `inputResponses`, and a bad one is the request's invalid params. */
  readonly era: Era;
  /**
   * The protocol version the client it asks speaks, which decides the form
   * rules `elicit()` checks (a 2025-06-18 client has fewer kinds of field);
   * undefined: the newest.
   */
  readonly version?: string;
  /** What the call paused to ask (2026-07-28), once this asker paused it. */
  readonly inputRequired?: InputRequired;
  /**
   * Spends the answers this call was retried with, once, before a side effect
   * they confirm (2026-07-28: the requestState they came in): `replayed` when
   * they were spent before. An asker whose answers cannot be replayed has none.
   */
  spend?(): "ok" | "replayed" | "busy";
}

/** The capability each method needs. */
export const CAPABILITY: Record<AskMethod, ClientCapability> = {
  "elicitation/create": "elicitation",
  "roots/list": "roots",
  "sampling/createMessage": "sampling",
};

/** Whether declared client capabilities cover `method` (form-mode elicitation only). */
export function declares(capabilities: Record<string, unknown> | undefined, method: AskMethod): boolean {
  const value = capabilities?.[CAPABILITY[method]];
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (method !== "elicitation/create") return true;
  // An empty elicitation capability means form mode; otherwise form must be listed.
  const modes = value as Record<string, unknown>;
  return Object.hasOwn(modes, "form") || !Object.hasOwn(modes, "url");
}

/**
 * The error a 2026-07-28 question meets when the request did not declare the
 * capability it needs: a {@linkcode MissingCapabilityError} the handler may
 * catch, which answers `-32021` if it escapes.
 */
export function missingCapability(method: AskMethod): MissingCapabilityError {
  const capability = CAPABILITY[method];
  return asProtocolError(new MissingCapabilityError(capability, method), {
    code: ErrorCode.missingRequiredClientCapability,
    message: `Missing required client capability: ${capability} (the tool sends ${method})`,
    data: { requiredCapabilities: { [capability]: {} } },
  });
}

const protocolErrors = new WeakMap<object, RpcError>();

/** Marks `err` so that, escaping a handler, it answers the call with `rpc` instead of a result. */
export function asProtocolError<E extends Error>(err: E, rpc: RpcError): E {
  protocolErrors.set(err, rpc);
  return err;
}

/** The JSON-RPC error a handler's escaped exception stands for, if it was marked. */
export function protocolErrorOf(err: unknown): RpcError | undefined {
  return err !== null && typeof err === "object" ? protocolErrors.get(err) : undefined;
}

/** An asker for a call that cannot ask anything (tests, callers outside a served stream). */
export const NO_ASKER: Asker = {
  era: "session",
  ask: (method) => Promise.reject(new MissingCapabilityError(CAPABILITY[method], method)),
};

/** What a handler may name a question: a short word, never a key the toolkit generates. */
const KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const GENERATED_KEY = /^(?:elicitation|roots|sampling|input)-\d+$/;

/**
 * The three question methods of a {@linkcode ToolRequest}, over one asker.
 * `keys` holds the names the call used so far (one set per call).
 */
export function questionsOf(
  asker: Asker,
  keys: Set<string> = new Set(),
): Pick<ToolRequest, "elicit" | "listRoots" | "sample"> {
  const keyOf = (options: AskOptions | undefined): string | undefined => {
    const key = options?.key;
    if (key === undefined) return undefined;
    if (typeof key !== "string" || !KEY.test(key)) {
      throw new TypeError(`Cannot ask the client: the key ${quote(key)} is not 1-64 characters of A-Z a-z 0-9 _ . -`);
    }
    if (GENERATED_KEY.test(key)) {
      throw new TypeError(`Cannot ask the client: the key ${quote(key)} has the form of a generated key`);
    }
    if (keys.has(key)) throw new TypeError(`Cannot ask the client: the key ${quote(key)} is already used in this call`);
    keys.add(key);
    return key;
  };
  return {
    async elicit<T>(form: ElicitForm<T>, options?: AskOptions): Promise<ElicitAnswer<T>> {
      const message = form?.message;
      // The form is read once, as its JSON: that copy is checked, compiled, sent and used to check the answer. The
      // handler's object may change after elicit() returns (the question is sent once its check is done, or listed
      // when its round is sealed), and a getter, an inherited key or a Proxy may read otherwise to the checks than
      // to JSON.stringify: what the client is asked must be what was checked.
      const schema = formJson(form?.requestedSchema);
      if (typeof message !== "string" || schema?.type !== "object") {
        throw new TypeError("Cannot elicit: expected { message: string, requestedSchema: schema({...}) }");
      }
      // A form MCP does not allow in the revision the client speaks, or one the JSON Schema engine refuses, is the
      // handler's mistake: it fails the call before the user is asked anything. The engine (and MCP's form rules
      // with it), loaded when a form is first asked, checks and compiles the form while the asker gives the question
      // its place, so questions asked together keep their order and round; a server that never asks for a form
      // loads neither. The revision is a field of the asker: the session's, or 2026-07-28.
      const key = keyOf(options);
      const compile = (engine: SchemaEngine) => {
        const problem = engine.formProblem(schema, asker.version);
        if (problem !== undefined) throw new TypeError(`Cannot elicit: ${problem}`);
        return engine.compileInput(schema, (p) => new TypeError(`Cannot elicit: ${p}`), {
          name: "requestedSchema",
          checking: "form",
        });
      };
      // Loaded already (a server served by hand loads it with serve()): compiled now, and the question is asked at
      // once, as a question of a handler that does not await it always was.
      const loaded = schemaEngine();
      let validate = loaded === undefined ? undefined : compile(loaded);
      const compiled = validate === undefined ? loadSchemaEngine().then(compile) : undefined;
      // Seen here too: an asker that throws before it awaits `compiled` (no capability) leaves no rejection unheard.
      compiled?.catch(() => {});
      // `mode` came with 2025-11-25's URL mode: a 2025-06-18 request has none.
      const params = asker.version !== undefined && NARROW_FORM_VERSIONS.has(asker.version)
        ? { message, requestedSchema: schema }
        : { mode: "form", message, requestedSchema: schema };
      const raw = await asker.ask("elicitation/create", params, key, compiled);
      validate ??= await compiled!;
      return checked(asker, () => elicitAnswer(raw, validate) as ElicitAnswer<T>);
    },
    async listRoots(options?: AskOptions): Promise<ClientRoot[]> {
      const raw = await asker.ask("roots/list", undefined, keyOf(options));
      return checked(asker, () => rootsAnswer(raw));
    },
    async sample(request: SampleRequest, options?: AskOptions): Promise<SampleAnswer> {
      if (!Array.isArray(request?.messages) || typeof request.maxTokens !== "number") {
        throw new TypeError("Cannot sample: expected { messages: [...], maxTokens: number }");
      }
      const raw = await asker.ask("sampling/createMessage", { ...request }, keyOf(options));
      return checked(asker, () => sampleAnswer(raw));
    },
  };
}

/** `schema` as its JSON reads back; a value with no JSON (a cycle, a BigInt, a getter that throws) is refused. */
function formJson(schema: unknown): Record<string, unknown> | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    throw new TypeError(
      `Cannot elicit: requestedSchema has no JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const copy: unknown = text === undefined ? undefined : JSON.parse(text);
  return isObject(copy) ? copy : undefined;
}

/** Runs a check of an answer; in 2026-07-28 a bad answer is the retried request's invalid params (-32602). */
function checked<T>(asker: Asker, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (asker.era === "stateless" && err instanceof BadAnswer) {
      throw asProtocolError(err, {
        code: ErrorCode.invalidParams,
        message: `Invalid params: inputResponses: ${err.message}`,
      });
    }
    throw err;
  }
}

/** A client's answer that breaks the shape its request defines. */
export class BadAnswer extends ToolError {
  constructor(method: AskMethod, problem: string) {
    super(`Cannot use the client's answer to ${method}: ${problem}`);
    this.name = "BadAnswer";
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function elicitAnswer(raw: unknown, validate: InputValidator): ElicitAnswer {
  const method = "elicitation/create";
  if (!isObject(raw)) throw new BadAnswer(method, "it is not an object");
  const action = raw.action;
  if (action === "decline" || action === "cancel") return { action };
  if (action !== "accept") throw new BadAnswer(method, '"action" must be "accept", "decline" or "cancel"');
  const content = raw.content ?? {};
  if (!isObject(content)) throw new BadAnswer(method, '"content" must be an object');
  // The user's answer is client input like any argument: checked against the form before the handler sees it.
  const problem = validate(content);
  if (problem !== undefined) throw new BadAnswer(method, problem);
  return { action, content };
}

/** The roots a client's answer to `roots/list` names; throws {@linkcode BadAnswer} when it breaks the shape. */
export function rootsAnswer(raw: unknown): ClientRoot[] {
  const method = "roots/list";
  if (!isObject(raw) || !Array.isArray(raw.roots)) throw new BadAnswer(method, '"roots" must be an array');
  return raw.roots.map((root) => {
    if (!isObject(root) || typeof root.uri !== "string") throw new BadAnswer(method, 'every root needs a "uri" string');
    return typeof root.name === "string" ? { uri: root.uri, name: root.name } : { uri: root.uri };
  });
}

function sampleAnswer(raw: unknown): SampleAnswer {
  const method = "sampling/createMessage";
  if (!isObject(raw) || typeof raw.model !== "string" || typeof raw.role !== "string" || raw.content === undefined) {
    throw new BadAnswer(method, 'it needs "role", "content" and "model"');
  }
  return raw as SampleAnswer;
}
