// Hostile input can be megabytes: every value echoed in a message is quoted
// and cut short here (the same rule as the toolkit's own private helper).

/** Quotes `value` for a message, cut to `max` characters. */
export function quote(value: string, max = 64): string {
  return JSON.stringify(value.length <= max ? value : `${value.slice(0, max)}…`);
}
