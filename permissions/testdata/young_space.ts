// Keeps 150,000 new strings alive, as JSON.parse of one message of them does,
// and prints the most MiB V8's new space took meanwhile.
import v8 from "node:v8";

let most = 0;
const kept: string[] = [];
for (let i = 0; i < 150_000; i++) {
  kept.push(`€${i}`.padEnd(250, "a"));
  if (i % 1000 === 0) {
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    most = Math.max(most, space?.space_size ?? 0);
  }
}
console.log(JSON.stringify({ mostMiB: most / 1048576, kept: kept.length }));
