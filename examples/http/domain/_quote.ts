/** A value for a message: JSON-quoted and cut to `max` characters, since hostile input can be megabytes. */
export function quote(value: unknown, max = 100): string {
  const text = String(value);
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
