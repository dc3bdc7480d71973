// Values shorter than this are not replaced in free text: a one- or
// two-character value would match inside ordinary words and garble every
// message, and such a value protects nothing as a secret.
const MIN_LENGTH = 3;

/**
 * Returns a function that replaces each environment value in a text with
 * `${NAME}`, longest value first, in one pass (so a replacement is never
 * itself rewritten).
 */
export function redactor(secrets: ReadonlyMap<string, string>): (text: string) => string {
  const values = [...secrets.keys()].filter((v) => v.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  const pattern = new RegExp(values.map(escape).join("|"), "g");
  return (text) => text.replace(pattern, (value) => `\${${secrets.get(value)}}`);
}

function escape(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}
