// Characters that end a URL's host or the authority it sits in: a value holding one is never a host whole.
const ENDS_HOST = /[/?#@:\\[\]]/;

/**
 * The forms URL parsing gives a value written as a URL's host, or as whole
 * labels of one (`http://<value>.example/`), other than the value itself in
 * either case: its labels as the WHATWG host parser writes them (percent-escapes
 * decoded, lower-cased, a label with non-ASCII characters in punycode,
 * `xn--…`), and the whole host as an IPv4 address when it parses as one
 * (`3232235777` is `192.168.1.1`). A refusal quotes a redirect's host in that
 * form. None when a character of the value would end the host (`/`, `?`,
 * `#`, `@`, `:`, `\`, brackets), since the host would then hold only a part of it, nor
 * when the value is no valid host, nor any form that is a part of the value
 * in either case (`Tok3n%C2%AD` is `tok3n` as a host, `10.20.30.40.` is
 * `10.20.30.40`): hiding it would hide a part of the credential.
 *
 * @param value A credential.
 * @returns Its host forms, each ASCII, none a part of the value (nor the value) lower-cased.
 *
 * @example A percent-escaped character becomes punycode, digits an IPv4 address
 * ```ts
 * import { hostForms } from "./host_forms.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(hostForms("s%C3%A9cret"), ["xn--scret-bsa"]);
 * assert.deepEqual(hostForms("3232235777"), ["192.168.1.1"]);
 * assert.deepEqual(hostForms("Plain-Token"), []);
 * assert.deepEqual(hostForms("t0k/en"), []);
 * ```
 */
export function hostForms(value: string): string[] {
  if (ENDS_HOST.test(value)) return [];
  const forms = new Set<string>();
  // The value alone (where a number is an IPv4 address), and as labels before another (where it is not).
  for (const [host, label] of [[value, ""], [`${value}.x`, ".x"]]) {
    const parsed = hostnameOf(host);
    if (parsed?.endsWith(label)) forms.add(parsed.slice(0, parsed.length - label.length));
  }
  // A form that is a part of the value (URL parsing dropped a soft hyphen's escape or a trailing dot) would hide a
  // part of the credential: the filter hides whole values only.
  const plain = value.toLowerCase();
  return [...forms].filter((form) => !plain.includes(form));
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
