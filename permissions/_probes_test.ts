import assert from "node:assert/strict";
import { denyNetProbes, netCovered, netProbes, pathProbes, runProbes } from "./_probes.ts";

Deno.test("pathProbes() includes /, common places, the given ancestors, the working folder and the deno executable", () => {
  const probes = pathProbes(["/srv", "/srv/data"]);
  for (const path of ["/", "/srv", "/srv/data", "/etc", "/tmp", Deno.cwd(), Deno.execPath()]) {
    assert.ok(probes.includes(path), path);
  }
  assert.deepEqual(pathProbes([]).filter((p) => p.startsWith("/srv")), []);
});

Deno.test("netCovered() follows Deno's matching: bare host, host:port, *.suffix incl. the apex", () => {
  assert.equal(netCovered(["a.com"], "a.com:22"), true);
  assert.equal(netCovered(["a.com:443"], "a.com:22"), false);
  assert.equal(netCovered(["a.com:443"], "a.com"), false);
  assert.equal(netCovered(["*.a.com"], "x.a.com:443"), true);
  assert.equal(netCovered(["*.a.com"], "a.com"), true);
  assert.equal(netCovered(["*.a.com"], "xa.com"), false);
  assert.equal(netCovered(["[::1]:80"], "[::1]:80"), true);
  assert.equal(netCovered(["[::1]:80"], "[::1]:81"), false);
});

Deno.test("netProbes() asks about other ports of allowed hosts", () => {
  const probes = netProbes(["127.0.0.1:8080", "*.a.com"]);
  assert.ok(probes.includes("127.0.0.1:1"));
  assert.ok(probes.includes("probe.a.com:22"));
  assert.ok(probes.includes("169.254.169.254"));
});

Deno.test("runProbes() asks about each shell, interpreter and launcher by bare name and under /bin, /usr/bin, /usr/local/bin", () => {
  const probes = runProbes();
  for (const name of ["sh", "bash", "dash", "zsh", "busybox", "env", "find", "xargs", "python3", "perl", "node"]) {
    for (const probe of [name, `/bin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`]) {
      assert.ok(probes.includes(probe), probe);
    }
  }
  assert.ok(probes.includes(Deno.execPath()));
});

Deno.test("denyNetProbes() asks about a range's first and last address and random ones inside it", () => {
  let n = 0;
  const random = () => [5, 2 ** 32 - 1, 300, 0][n++ % 4];
  assert.deepEqual(denyNetProbes("10.0.0.0/8", random), ["10.0.0.0", "10.255.255.255", "10.0.0.5", "10.0.1.44"]);
  assert.deepEqual(denyNetProbes("169.254.169.254/32", random), ["169.254.169.254"]);
  assert.deepEqual(denyNetProbes("[::1]", random), ["[::1]"]);
  for (const host of denyNetProbes("172.16.0.0/12").slice(2)) {
    const [a, b] = host.split(".").map(Number);
    assert.ok(a === 172 && b >= 16 && b < 32, host);
  }
});
