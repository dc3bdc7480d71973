// A numeric option that must be a positive, finite number: the serving
// limits of stdio/ and the audit trail's stderr bound read theirs through it.

/**
 * `value`, or `fallback` when it is undefined.
 *
 * @param unit What the number counts, named in the refusal ("milliseconds"), if anything.
 * @throws {RangeError} When `value` is not a finite number above zero.
 */
export function positive(
  value: number | undefined,
  fallback: number,
  name: string,
  action: string,
  unit?: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    const what = unit === undefined ? "a positive number" : `a positive number of ${unit}`;
    throw new RangeError(`Cannot ${action}: ${name} must be ${what}, got ${String(value).slice(0, 32)}`);
  }
  return value;
}
