// Hostile input can be megabytes: every value echoed in a message is quoted
// and cut short here. (A copy of the toolkit's private helper: private files
// are imported only from their own folder.)

/** Quotes `value` for a message, cut to `max` characters. */
export function quote(value: unknown, max = 64): string {
  const text = typeof value === "string" ? value : String(value);
  const cut = text.length <= max ? text : `${text.slice(0, max)}…`;
  return JSON.stringify(cut);
}
