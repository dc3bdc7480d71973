/** Half of `n`. */
export function half(n: number): number {
  return n / 2;
}
