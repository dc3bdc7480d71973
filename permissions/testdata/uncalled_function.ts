// Prints one line and never calls `spare`: a lazy V8 compiles only the top
// level, so a code cache written then holds no code for `spare`'s body.
function spare(rows: number[]): number {
  let total = 0;
  for (const row of rows) total += row % 7 === 0 ? row * 3 : row - 1;
  return rows.length === 0 ? -1 : total / rows.length;
}
console.log(typeof spare === "function" ? "ran under the launch flags" : "no function");
