import assert from "node:assert/strict";
import { hostForms } from "./host_forms.ts";

Deno.test("hostForms() gives the host URL parsing writes for a value: punycode, decoded escapes, an IPv4 address", () => {
  const token = "gR7x%C3%A9Kq9-LmZ4";
  const [form] = hostForms(token);
  assert.equal(new URL(`http://a.${token}.example/`).hostname, `a.${form}.example`);
  assert.ok(form.startsWith("xn--"), form);
  assert.deepEqual(hostForms("AbC%41-x"), ["abca-x"]);
  // Alone it is an IPv4 address; between labels it is a label as written.
  assert.deepEqual(hostForms("0x7f000001"), ["127.0.0.1"]);
  assert.deepEqual(hostForms("3232235777"), ["192.168.1.1"]);
});

Deno.test("hostForms() gives nothing for a value the host holds as it is, holds only a part of, or refuses", () => {
  for (const value of ["Plain-Token_1", "t0k/en", "user@host", "a:b", "a?b", "a#b", "[::1]", "a\\b", "a%2Fb", "a<b"]) {
    assert.deepEqual(hostForms(value), [], value);
  }
});

Deno.test("hostForms() gives no form that is a part of the value: the filter would hide a part of the credential", () => {
  // URL parsing drops a soft hyphen (IDNA maps it to nothing) and a trailing dot: what is left is a start of the value.
  for (const value of ["Tok3nSecretValue%C2%AD", "10.20.30.40.", "ab%C2%ADcdef", "%C2%ADabcdef"]) {
    const forms = hostForms(value);
    assert.ok(forms.every((form) => !value.toLowerCase().includes(form)), `${value}: ${forms}`);
  }
  // A form that is no part of the value stays.
  assert.deepEqual(hostForms("3232235777."), ["192.168.1.1"]);
});
