// test-permissions: --allow-env=NO_PROXY,no_proxy
import assert from "node:assert/strict";
import { bypassEnvironmentProxy, fetchesDirectly, NO_PROXY_VALUE, NO_PROXY_VARIABLES } from "./direct_fetch.ts";

Deno.test("fetchesDirectly() holds for a policy that allows a host and does not keep the environment's proxy", () => {
  assert.equal(fetchesDirectly({ hosts: ["example.com"], environmentProxy: false }), true);
  assert.equal(fetchesDirectly({ hosts: ["127.0.0.1"], environmentProxy: false }), true);
  assert.equal(fetchesDirectly({ hosts: ["example.com"], environmentProxy: true }), false);
  assert.equal(fetchesDirectly({ hosts: [], environmentProxy: false }), false);
});

Deno.test({
  name: "bypassEnvironmentProxy() sets NO_PROXY and no_proxy to every name and every address",
  permissions: { env: ["NO_PROXY", "no_proxy"] },
  fn() {
    bypassEnvironmentProxy();
    for (const name of NO_PROXY_VARIABLES) assert.equal(Deno.env.get(name), "*,0.0.0.0/0,::/0");
    assert.equal(NO_PROXY_VALUE, "*,0.0.0.0/0,::/0");
  },
});
