// Cutting bytes for display must not split a UTF-8 character, or the decoder
// would show a replacement character where the cut was.

/** The length of the longest prefix of `bytes` that ends on a whole UTF-8 character. */
export function wholeCharacters(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = n - 1;
  while (i > 0 && (bytes[i] & 0xc0) === 0x80) i--;
  if (i < 0) return 0;
  const lead = bytes[i];
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + length > n ? i : n;
}
