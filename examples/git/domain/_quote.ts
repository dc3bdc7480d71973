// Hostile input can be megabytes: a value echoed in a message is quoted and cut short.

/** Quotes `text` for a message, cut to 64 characters. */
export function quote(text: unknown): string {
  const value = typeof text === "string" ? text : String(text);
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** Whether `text` holds a C0 control character or DEL (NUL, newline, escape, …). */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
