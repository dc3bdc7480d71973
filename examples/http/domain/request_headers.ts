import { PolicyError, quote } from "@forge/toolkit/validate";

/** The most headers one request may carry from the caller. */
export const MAX_HEADERS = 32;
/** The longest header value accepted, in characters. */
export const MAX_HEADER_VALUE = 4096;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
// Tab, visible ASCII, space and Latin-1: what a header value may hold, minus line breaks and NUL.
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

// Headers that proxies, CDNs and load balancers use to pass on the client's
// address: a backend that trusts one would take the server for someone else.
// Names ending in -ip or -addr are refused too, so that a vendor's variant
// not listed here is not sent either.
const CLIENT_ADDRESS = new RegExp(
  "^(forwarded|forwarded-for|x-forwarded-.*|x-original-forwarded-for|x-originally-forwarded-for|x-real-forwarded-for|via|x-real-ip|true-client-ip|x-client-ip|client-ip|" +
    "cf-connecting-ip|cf-connecting-ipv6|fastly-client-ip|x-cluster-client-ip|x-originating-ip|x-remote-ip|" +
    "x-remote-addr|x-envoy-external-address|x-azure-clientip|x-azure-socketip|x-appengine-user-ip)$" +
    "|(-ip|-ipv6|-addr)$",
);

// Headers in which an auth proxy in front of a backend passes the user it authenticated (oauth2-proxy, Pomerium,
// Cloudflare Access, AWS ALB, Google IAP, Azure App Service, Kong, Kubernetes' front proxy and impersonation), or the
// user's roles, tenant, JWT claims or TLS client certificate (Grafana's auth proxy, Cortex and Loki, Google Cloud
// Endpoints and API Gateway, Azure's ARR, nginx and HAProxy passing a client certificate on): a backend that trusts
// one would take the request for that user's, that role's or that tenant's. By pattern, so that a vendor's variant
// not listed here is not sent either: any name ending in -User, -Email, -UserId, -Username, -User-Id, -Identity,
// -Principal (-Name, -Id), -Group(s), -Role(s), -Tenant(-Id), -OrgId, -Subject, -Jwt-Assertion, -Jwt-Payload,
// -UserInfo, -Client-Cert, -ClientCert, -Client-S-DN, -Client-I-DN or -Client-Verify, and the vendors' prefixes.
// (X-Access-Token or X-Auth-Token, an API's own key header, passes.)
const IDENTITY = new RegExp(
  "(^|-)(user|email|userid|username|user-id|identity|principal|principal-name|principal-id|groups?|roles?|" +
    "tenant|tenant-id|orgid|org-id|subject|jwt-assertion|jwt-payload|userinfo|client-cert|clientcert|" +
    "client-[si]-dn|client-verify)$|-ip-authorization$|^x-forwarded-access-token$|^impersonate-|^cf-access-|" +
    "^x-(auth-request|authenticated|consumer|credential|userinfo|amzn-oidc|goog-authenticated|ms-client-principal|" +
    "ms-token|remote-extra|pomerium|webauth|arr|ssl-client|scope-orgid)(-|$)|^ssl-client-",
);

const ROUTE = "headers that rewrite the request's path, host or route are not sent";

const WHY: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^(host|connection|keep-alive|transfer-encoding|te|trailer|upgrade|content-length|expect)$/,
    "the server manages connection and framing headers itself",
  ],
  [/^proxy-/, "proxy headers are not sent"],
  [/^accept-encoding$/, "the server asks for bodies as sent (identity), so that max_bytes caps what it downloads"],
  // A part of a body can cut a credential an origin echoes, and a part of one is shown as sent: an echo that honours
  // byte ranges gave the token back 12 bytes a call (red team, seventh round).
  [
    /^(range|if-range|request-range)$/,
    "the server asks for whole bodies: a part of one could cut a credential it hides",
  ],
  [/^(authorization|cookie)$/, "credentials come only from the server's config (its auth entries)"],
  [/^(x-http-method-override|x-http-method|x-method-override)$/, "fetch_url sends GET only"],
  // Some backends and proxies route by these instead of the request line or Host (IIS URL Rewrite, older Symfony and
  // Zend, Envoy, nginx's X-Accel-Redirect, Next.js's X-Middleware-Subrequest): the request would reach a path, a
  // host or a file the approved URL does not name, or skip a middleware.
  [
    /^(x-host|x-forwarded|x-forwarded-(host|server|prefix|uri|url|path|proto|port|scheme)|x-accel-.*|x-sendfile|x-middleware-subrequest|request-uri)$/,
    ROUTE,
  ],
  // Before the client-address names, so that X-Forwarded-User and X-Forwarded-Email are named for what they claim.
  [IDENTITY, "headers that claim an identity are not sent"],
  [CLIENT_ADDRESS, "headers that claim a client address are not sent"],
  // After the client-address names (X-Original-Forwarded-For, X-Envoy-External-Address say whose address): any other
  // Envoy header, and any name holding "rewrite", "original" or "override" or naming a URI, URL or path.
  [/^x-envoy-|rewrite|original|override|-(uri|url|path)$/, ROUTE],
];

/**
 * Turns the caller's header map into request headers, refusing what would
 * change the request's target, framing, method or identity: `Host`,
 * hop-by-hop and framing headers, `Proxy-*`, `Accept-Encoding`,
 * `Range` (and `If-Range`, `Request-Range`: a part of an echo can cut a credential),
 * `Authorization` and `Cookie` (credentials come from the config), method
 * overrides, headers that rewrite the path or host a backend routes by
 * (`X-Original-URL`, `X-Rewrite-URL`, `X-Host`, `X-Original-Host`,
 * `X-Forwarded`, `X-HTTP-Host-Override`, `X-Envoy-*`), headers an auth proxy passes the user it authenticated in
 * (`X-Forwarded-User`, `X-Auth-Request-Email`, `Impersonate-Group`, `X-MS-Client-Principal-Name`, `X-WEBAUTH-ROLE`,
 * `X-Scope-OrgID`, `X-SSL-Client-Verify`, any name ending in `-User`, `-Email`, `-Username`, `-Identity`, `-Roles`,
 * `-Tenant-Id`, `-UserInfo`, `-Client-Cert`, …), and every header that claims a client address (`Forwarded`,
 * `X-Forwarded-*`, `Via`, `X-Real-IP`, `True-Client-IP`, `X-Client-IP`,
 * `Client-IP`, `CF-Connecting-IP`, `Fastly-Client-IP`, `X-Cluster-Client-IP`,
 * `X-Originating-IP`, and any name ending in `-IP` or `-Addr`). Values never
 * appear in messages.
 *
 * @param map Header names to values, as the caller gave them.
 * @returns The headers to send.
 * @throws {PolicyError} When a header is refused or malformed, or there are too many.
 *
 * @example Allowed and refused headers
 * ```ts
 * import { requestHeaders } from "./request_headers.ts";
 * import { PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(requestHeaders({ Accept: "application/json" }).get("accept"), "application/json");
 * assert.throws(() => requestHeaders({ Host: "internal.example" }), PolicyError);
 * ```
 */
export function requestHeaders(map: Readonly<Record<string, string>>): Headers {
  const entries = Object.entries(map);
  if (entries.length > MAX_HEADERS) {
    throw new PolicyError(
      "invalid-input",
      `Cannot send headers: ${entries.length} were given, at most ${MAX_HEADERS} are allowed`,
    );
  }
  const headers = new Headers();
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) {
      throw new PolicyError(
        "invalid-input",
        `Cannot send header ${quote(name, 64)}: the name is not a valid HTTP header name`,
      );
    }
    // CGI-style backends (PHP, WSGI, Rack) read `X_Forwarded_For` as `X-Forwarded-For`, and a server that builds the
    // CGI name turns every other sign into `_` too (`X.Forwarded.User`): all those spellings are judged alike.
    const lower = name.toLowerCase().replace(/[^a-z0-9]/g, "-");
    const refused = WHY.find(([pattern]) => pattern.test(lower));
    if (refused) {
      throw new PolicyError("invalid-input", `Cannot send header ${quote(name, 64)}: ${refused[1]}; remove it`);
    }
    if (typeof value !== "string" || value.length > MAX_HEADER_VALUE || !VALUE.test(value)) {
      throw new PolicyError(
        "invalid-input",
        `Cannot send header ${quote(name, 64)}: the value must be at most ${MAX_HEADER_VALUE} characters ` +
          "of text without line breaks",
      );
    }
    headers.append(name, value);
  }
  return headers;
}
