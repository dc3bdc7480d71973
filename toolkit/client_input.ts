import type { ObjectSchema } from "./schema.ts";

/**
 * A form the client shows its user (`elicitation/create`, form mode). The
 * schema is flat: string, number, integer, boolean and enum properties only,
 * as MCP's elicitation allows; build it with `schema()` and the `*Prop`
 * helpers so the answer is typed. What a form may hold depends on the
 * revision the client speaks: 2025-11-25 and 2026-07-28 add multi-select
 * arrays of an enum, titled `oneOf` enums, `pattern`, `$schema` and a
 * `default` on every kind, which a 2025-06-18 client does not get (only a
 * boolean has a default there). A form outside the client's rules, or one the
 * JSON Schema engine refuses, fails the call before anything is asked. Never
 * ask for a secret this way.
 *
 * @typeParam T The answer's type, inferred from `requestedSchema`.
 */
export interface ElicitForm<T = Readonly<Record<string, unknown>>> {
  /** Why the user is asked, shown to them. */
  message: string;
  /** The fields of the form. */
  requestedSchema: ObjectSchema<T>;
}

/**
 * The user's answer to an {@linkcode ElicitForm}: `accept` with the submitted
 * `content` (already checked against the form's schema), `decline` (an
 * explicit no) or `cancel` (dismissed without a choice).
 *
 * @typeParam T The content's type.
 */
export type ElicitAnswer<T = Readonly<Record<string, unknown>>> =
  | { action: "accept"; content: T }
  | { action: "decline" | "cancel"; content?: undefined };

/** A root the client declares (`roots/list`): a `file://` URI and an optional display name. */
export interface ClientRoot {
  /** The root, a `file://` URI as the client sent it. */
  uri: string;
  /** A human-readable name, when the client gave one. */
  name?: string;
}

/**
 * The parameters of `sampling/createMessage`, passed to the client as given:
 * at least the messages and the most tokens to generate.
 */
export interface SampleRequest {
  /** The conversation to continue, as MCP's `SamplingMessage` objects. */
  messages: readonly Record<string, unknown>[];
  /** The most tokens the client's model may produce. */
  maxTokens: number;
  /** An optional system prompt. */
  systemPrompt?: string;
  /** Any other `CreateMessageRequestParams` field (`modelPreferences`, `temperature`, `stopSequences`…). */
  [field: string]: unknown;
}

/** The client's `CreateMessageResult`: the model's message, and which model made it. */
export interface SampleAnswer {
  /** Always `assistant`. */
  role: string;
  /** The generated content block(s). */
  content: unknown;
  /** The model that produced it. */
  model: string;
  /** Why generation stopped (`endTurn`, `maxTokens`…), when the client said. */
  stopReason?: string;
  /** Any other field the client sent. */
  [field: string]: unknown;
}

/**
 * How a handler names one question. In 2026-07-28 a question is one entry of
 * the call's `inputRequests` (or of a task's), and the client answers it under
 * the same key in `inputResponses`: a name the handler chooses (`user_name`)
 * lets a client, a log or a test tell questions apart; without one the toolkit
 * makes a key from the question's place in the run (`elicitation-1`,
 * `roots-2`, `input-3` in a task). In the initialize era a question is a
 * request of its own and the name does not travel, but it is checked the same
 * way, so one handler works in both eras.
 *
 * @example Ask for a name under a key of your own
 * ```ts
 * import { schema, strProp, text, type ToolHandler } from "@forge/toolkit";
 *
 * const handler: ToolHandler = async (req) => {
 *   const answer = await req.elicit(
 *     { message: "What is your name?", requestedSchema: schema({ name: strProp("Your name") }, ["name"]) },
 *     { key: "user_name" },
 *   );
 *   return text(answer.action === "accept" ? `Hello, ${answer.content.name}!` : "Hello!");
 * };
 * ```
 */
export interface AskOptions {
  /**
   * The question's key: 1–64 characters of `A-Z a-z 0-9 _ . -`, used once per
   * call, and not of the form the toolkit generates (`elicitation-1`,
   * `roots-1`, `sampling-1`, `input-1`), so the two never meet.
   * @default {a key made from the question's place in the run}
   */
  key?: string;
}

/** The client capabilities a handler can need: one per kind of question. */
export type ClientCapability = "elicitation" | "roots" | "sampling";
