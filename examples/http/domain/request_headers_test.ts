import assert from "node:assert/strict";
import { ToolError } from "@forge/toolkit";
import { MAX_HEADER_VALUE, MAX_HEADERS, requestHeaders } from "./request_headers.ts";

const SECRET_VALUE = "value-that-must-not-be-echoed";

function refused(map: Record<string, string>, pattern: RegExp): void {
  assert.throws(() => requestHeaders(map), (err: Error) => {
    assert.ok(err instanceof ToolError, `${err}`);
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes(SECRET_VALUE), "the value is never in the message");
    return true;
  });
}

Deno.test("requestHeaders() passes ordinary headers through", () => {
  const headers = requestHeaders({ Accept: "application/json", "X-Trace": "abc", "User-Agent": "agent/1.0" });
  assert.equal(headers.get("accept"), "application/json");
  assert.equal(headers.get("x-trace"), "abc");
  assert.equal(headers.get("user-agent"), "agent/1.0");
  assert.equal([...requestHeaders({}).keys()].length, 0);
});

Deno.test("requestHeaders() refuses Host and the hop-by-hop and framing headers, in any case", () => {
  for (
    const name of [
      "Host",
      "HOST",
      "Connection",
      "Keep-Alive",
      "Transfer-Encoding",
      "TE",
      "Trailer",
      "Upgrade",
      "Content-Length",
      "Expect",
    ]
  ) {
    refused({ [name]: SECRET_VALUE }, /the server manages connection and framing headers itself; remove it$/);
  }
});

Deno.test("requestHeaders() refuses Proxy-* headers", () => {
  refused({ "Proxy-Authorization": SECRET_VALUE }, /proxy headers are not sent/);
  refused({ "proxy-connection": SECRET_VALUE }, /proxy headers are not sent/);
});

Deno.test("requestHeaders() refuses credentials from the caller: they come only from the config", () => {
  refused({ Authorization: `Bearer ${SECRET_VALUE}` }, /^Cannot send header "Authorization": credentials come only/);
  refused({ cookie: SECRET_VALUE }, /credentials come only from the server's config/);
});

Deno.test("requestHeaders() refuses method overrides: the tool sends GET only", () => {
  for (const name of ["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"]) {
    refused({ [name]: "DELETE" }, /fetch_url sends GET only/);
  }
});

Deno.test("requestHeaders() refuses headers a backend routes by instead of the URL (red-team finding: they were sent)", () => {
  for (
    const name of [
      "X-Original-URL",
      "X-Rewrite-URL",
      "X-Host",
      "X-Original-Host",
      "X-Forwarded",
      "X-HTTP-Host-Override",
      "X-Envoy-Internal",
      "x-envoy-original-path",
    ]
  ) {
    refused({ [name]: SECRET_VALUE }, /headers that rewrite the request's path, host or route are not sent/);
  }
  // A second round: underscores (a CGI-style backend reads X_Original_URL as X-Original-URL), and names not listed.
  for (
    const name of [
      "X_Original_URL",
      "X-Original-URI",
      "X-Rewrite",
      "X-Override-URL",
      "X-Request-URI",
      "Request-URI",
      "X-Original-Path",
      "Host_Override",
      "X-Middleware-Subrequest",
      "X-Accel-Redirect",
      "X-Sendfile",
      "X-Forwarded-Prefix",
    ]
  ) {
    refused({ [name]: SECRET_VALUE }, /headers that rewrite the request's path, host or route are not sent/);
  }
  for (const name of ["X_Forwarded_For", "X_Real_IP", "Client_IP", "Forwarded-For", "X-Real-Forwarded-For"]) {
    refused({ [name]: "127.0.0.1" }, /claim a client address/);
  }
  for (const name of ["X-Remote-User", "Remote-User", "X-Auth-User", "X-Custom-IP-Authorization", "X.Forwarded.User"]) {
    refused({ [name]: "admin" }, /claim an identity/);
  }
  for (const name of ["X-Request-Id", "X-Api-Key", "User-Agent", "X_Trace_Id"]) {
    assert.equal(requestHeaders({ [name]: "7" }).get(name), "7", `${name} passes`);
  }
});

/** Headers in which auth proxies pass the user they authenticated (oauth2-proxy, Google IAP, Azure, Kong, Kubernetes…). */
const IDENTITY_HEADERS: readonly string[] = [
  "X-Forwarded-User",
  "X-Forwarded-Email",
  "X-Forwarded-Groups",
  "X-Forwarded-Access-Token",
  "X-Auth-Request-Email",
  "X-Auth-Request-Preferred-Username",
  "X-Auth-Request-Groups",
  "X-Authenticated-Userid",
  "X-Goog-Authenticated-User-Email",
  "X-Goog-Authenticated-User-Id",
  "X-MS-Client-Principal-Name",
  "X-MS-Client-Principal-Id",
  "X-MS-Client-Principal",
  "X-MS-Token-AAD-Id-Token",
  "Impersonate-User",
  "Impersonate-Group",
  "Impersonate-Uid",
  "Impersonate-Extra-Scopes",
  "X-Remote-Group",
  "X-Remote-Extra-Scopes",
  "X-Consumer-Username",
  "X-Consumer-ID",
  "X-Credential-Identifier",
  "X-Userinfo",
  "X-Amzn-Oidc-Identity",
  "X-Amzn-Oidc-Data",
  "Cf-Access-Authenticated-User-Email",
  "Cf-Access-Jwt-Assertion",
  "X-Pomerium-Jwt-Assertion",
  "X-Goog-IAP-JWT-Assertion",
  "X-Pomerium-Claim-Email",
  "X-Vendor-Identity",
  // A second round: roles, tenants, JWT claims and TLS client certificates (Grafana, Cortex and Loki, Google Cloud
  // Endpoints and API Gateway, Azure's ARR, nginx and HAProxy passing a client certificate on).
  "X-ARR-ClientCert",
  "X-Endpoint-API-UserInfo",
  "X-WEBAUTH-ROLE",
  "X-WEBAUTH-NAME",
  "X-Scope-OrgID",
  "X-SSL-Client-S-DN",
  "X-SSL-Client-Verify",
  "X-SSL-Client-Cert",
  "X-Client-Cert",
  "Ssl-Client-Verify",
  "X-User-Roles",
  "X-Auth-Roles",
  "X-Tenant-ID",
  "X-Apigateway-Api-Userinfo",
  "X-Jwt-Payload",
  "X-Auth-Subject",
  "X-Hasura-Role",
  "X-Client-Verify",
];

Deno.test("requestHeaders() refuses every header that claims an identity an auth proxy would set, in any case", () => {
  for (const name of IDENTITY_HEADERS) {
    refused({ [name]: "admin@example.com" }, /headers that claim an identity are not sent; remove it$/);
    refused({ [name.toLowerCase().replaceAll("-", "_")]: "admin" }, /claim an identity/);
  }
  const passes = [
    "X-Api-Key",
    "User-Agent",
    "X-Userland",
    "X-Consumers",
    "X-Grouping",
    "X-Access-Token",
    "X-Auth-Token",
    "X-Request-Id",
    "X-Trace",
    "Accept-Language",
    "If-None-Match",
    "X-Subjects",
    "X-Tenancy",
    "X-Rolex",
  ];
  for (const name of [...passes, "X-Goog-User-Project", "X-MS-Client-Request-Id"]) {
    assert.equal(requestHeaders({ [name]: "v" }).get(name), "v", name);
  }
});

Deno.test("requestHeaders() refuses forwarding headers and Accept-Encoding", () => {
  for (const name of ["Forwarded", "X-Forwarded-For", "X-Real-IP"]) {
    refused({ [name]: "127.0.0.1" }, /claim a client address/);
  }
  refused({ "X-Forwarded-Host": "internal" }, /rewrite the request's path, host or route/);
  refused({ "Accept-Encoding": "br" }, /asks for bodies as sent \(identity\)/);
});

/** Every header a CDN, proxy or load balancer is known to use for the client's address. */
const CLIENT_ADDRESS_HEADERS: readonly string[] = [
  "True-Client-IP",
  "X-Client-IP",
  "Client-IP",
  "CF-Connecting-IP",
  "CF-Connecting-IPv6",
  "Fastly-Client-IP",
  "X-Cluster-Client-IP",
  "X-Originating-IP",
  "X-Remote-IP",
  "X-Remote-Addr",
  "X-Original-Forwarded-For",
  "X-Envoy-External-Address",
  "X-Azure-ClientIP",
  "X-AppEngine-User-IP",
  "Via",
];

Deno.test("requestHeaders() refuses every header that claims a client address, in any case", () => {
  for (const name of CLIENT_ADDRESS_HEADERS) {
    refused({ [name]: "127.0.0.1" }, /headers that claim a client address are not sent; remove it$/);
    refused({ [name.toLowerCase()]: "127.0.0.1" }, /claim a client address/);
  }
  refused({ "X-Vendor-Peer-IP": "10.0.0.1" }, /claim a client address/);
  for (const name of ["X-Request-Id", "X-Zip", "Accept-Language", "If-None-Match"]) {
    assert.equal(requestHeaders({ [name]: "v" }).get(name), "v", name);
  }
});

Deno.test("requestHeaders() refuses malformed names and values with line breaks, and says so without the value", () => {
  refused({ "Bad Name": "x" }, /^Cannot send header "Bad Name": the name is not a valid HTTP header name$/);
  refused({ "": "x" }, /not a valid HTTP header name/);
  refused({ "X-A": `${SECRET_VALUE}\r\nHost: evil` }, /without line breaks/);
  refused({ "X-A": `${SECRET_VALUE}\0` }, /without line breaks/);
  refused({ "X-A": "€" }, /without line breaks/);
  refused({ "X-A": "a".repeat(MAX_HEADER_VALUE + 1) }, new RegExp(`at most ${MAX_HEADER_VALUE} characters`));
});

Deno.test("requestHeaders() refuses more than MAX_HEADERS headers", () => {
  const many = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`x-h${i}`, "v"]));
  refused(many, new RegExp(`^Cannot send headers: ${MAX_HEADERS + 1} were given, at most ${MAX_HEADERS}`));
  assert.equal([...requestHeaders(Object.fromEntries(Object.entries(many).slice(1))).keys()].length, MAX_HEADERS);
});

Deno.test("requestHeaders() cuts a hostile header name short in its message", () => {
  assert.throws(() => requestHeaders({ ["x ".repeat(10_000)]: "v" }), (err: Error) => err.message.length < 200);
});

Deno.test("requestHeaders() refuses Range, If-Range and Request-Range in any case: a part of an echo could cut a credential (red-team finding: sent)", () => {
  for (const name of ["Range", "range", "If-Range", "REQUEST-RANGE"]) {
    refused({ [name]: "bytes=70-81" }, /asks for whole bodies: a part of one could cut a credential it hides/);
  }
  assert.equal(requestHeaders({ "Accept-Ranges": "bytes" }).get("accept-ranges"), "bytes");
});
