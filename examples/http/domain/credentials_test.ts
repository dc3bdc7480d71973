import assert from "node:assert/strict";
import { authorizationFor, parseOrigin } from "./credentials.ts";

Deno.test("parseOrigin() gives the canonical origin of scheme://host[:port]", () => {
  assert.equal(parseOrigin("https://api.example.com"), "https://api.example.com");
  assert.equal(parseOrigin("HTTPS://API.Example.COM:443"), "https://api.example.com");
  assert.equal(parseOrigin("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  assert.equal(parseOrigin("http://[::1]:8080"), "http://[::1]:8080");
});

Deno.test("parseOrigin() refuses paths, queries, fragments, userinfo and other schemes", () => {
  for (
    const text of [
      "https://api.example.com/",
      "https://api.example.com/v1",
      "https://api.example.com?x=1",
      "https://api.example.com#x",
      "https://user@api.example.com",
      "https://@api.example.com",
      "ftp://api.example.com",
      "api.example.com",
      "",
    ]
  ) {
    assert.throws(() => parseOrigin(text), /^TypeError: Cannot use origin .*write only scheme:\/\/host\[:port\]/, text);
  }
});

Deno.test("authorizationFor() matches the exact origin: scheme, host and port", () => {
  const auth = [
    { origins: ["https://api.example.com"], scheme: "Bearer", credentials: "t0ken-a" },
    { origins: ["http://127.0.0.1:8080", "https://b.example"], credentials: "raw-b" },
  ];
  assert.equal(authorizationFor(auth, new URL("https://api.example.com/x?y")), "Bearer t0ken-a");
  assert.equal(authorizationFor(auth, new URL("https://api.example.com:443/")), "Bearer t0ken-a");
  assert.equal(authorizationFor(auth, new URL("http://127.0.0.1:8080/")), "raw-b");
  assert.equal(authorizationFor(auth, new URL("https://b.example/")), "raw-b");
  assert.equal(authorizationFor(auth, new URL("http://api.example.com/")), undefined, "not over another scheme");
  assert.equal(authorizationFor(auth, new URL("https://api.example.com:8443/")), undefined, "not to another port");
  assert.equal(authorizationFor(auth, new URL("https://sub.api.example.com/")), undefined, "not to a subdomain");
  assert.equal(authorizationFor(auth, new URL("http://127.0.0.1:8081/")), undefined);
  assert.equal(authorizationFor([], new URL("https://api.example.com/")), undefined);
});
