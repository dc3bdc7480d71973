// What a deployment command (compile, bundle) may carry: the server's own
// scoped flags and an absolute config, since the command runs elsewhere.
import { isAbsolute } from "node:path";
import { quote } from "../internal/quote.ts";

// A permission flag with a value: `--allow-read` alone, `-A` and every other flag grant or change too much.
const SCOPED = /^--(allow|deny)-(read|write|net|env|run|sys|ffi|import)=./;

/**
 * Refuses a flag that is not a scoped permission flag, and a config path that
 * is not absolute.
 *
 * @param action What the command does, for the message (`compile`, `bundle`).
 * @param flags The permission flags the command passes on.
 * @param config The config path it bakes in, if any.
 * @throws {TypeError} `Cannot <action>: …` naming the flag or the path.
 */
export function assertScopedInputs(action: string, flags: readonly string[], config?: string): void {
  for (const flag of flags) {
    if (!SCOPED.test(flag)) throw new TypeError(`Cannot ${action}: ${quote(flag, 80)} is not a scoped permission flag`);
  }
  if (config !== undefined && !isAbsolute(config)) {
    throw new TypeError(`Cannot ${action}: the config path ${quote(config, 200)} is not absolute`);
  }
}
