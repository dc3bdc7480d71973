// Git reads a control character in a path, revision or config value as
// something else (a newline ends a record, an escape paints the terminal).

/** Whether `text` holds a C0 control character or DEL (NUL, newline, escape, …). */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
