// Counts the texts in TOKCOUNT_DIR with OpenAI's tiktoken (the npm
// package's WebAssembly build, which ../tokcount.sh installs there too)
// and prints the times as Go benchmark lines, for benchstat beside
// count_test.go's.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.TOKCOUNT_DIR;
const require = createRequire(join(dir, "package.json"));
const { get_encoding } = require("tiktoken");
const runs = Number(process.env.TOKCOUNT_RUNS || 6);
// TOKCOUNT_BENCHTIME as go test's -benchtime: "Nx" is N counts a run,
// "Ns" counts for N seconds (and at least three times).
const benchtime = process.env.TOKCOUNT_BENCHTIME || "1s";
const times = benchtime.match(/^(\d+)x$/), seconds = benchtime.match(/^(\d+(?:\.\d+)?)s$/);
if (!times && !seconds) {
  throw new Error(`TOKCOUNT_BENCHTIME=${benchtime}: want Nx or Ns`);
}
const done = times
  ? (n) => n >= Number(times[1])
  : (n, elapsed) => elapsed >= BigInt(Math.round(Number(seconds[1]) * 1e9)) && n >= 3;
for (const enc of ["o200k_base", "cl100k_base"]) {
  const tk = get_encoding(enc);
  for (const kind of ["go", "markdown", "cjk"]) {
    const bytes = readFileSync(join(dir, `${kind}.txt`));
    const text = bytes.toString("utf8");
    tk.encode_ordinary(text); // warm up
    for (let run = 0; run < runs; run++) {
      let n = 0;
      const start = process.hrtime.bigint();
      let elapsed = 0n;
      while (!done(n, elapsed)) {
        tk.encode_ordinary(text);
        n++;
        elapsed = process.hrtime.bigint() - start;
      }
      const ns = Number(elapsed) / n;
      const mbs = bytes.length / (ns / 1e9) / 1e6;
      console.log(`BenchmarkCount/enc=${enc}/text=${kind}/impl=tiktoken-wasm-2\t${n}\t${ns.toFixed(0)} ns/op\t${mbs.toFixed(2)} MB/s`);
    }
  }
  tk.free();
}
