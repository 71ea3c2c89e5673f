// Counts the o200k_base tokens of one file with a JavaScript tokenizer:
// node count.mjs gpt-tokenizer|tiktoken FILE prints the count and the
// milliseconds the count took once the tokenizer was loaded (its first
// count of the text: gpt-tokenizer remembers the pieces it has seen, so a
// second count of the same text would be mostly lookups). Its modules are
// in $COUNTCOMPARE_MODULES (bench/countcompare.sh installs them).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const [impl, file] = process.argv.slice(2);
const require = createRequire(process.env.COUNTCOMPARE_MODULES + "/");
const text = readFileSync(file, "utf8");
let count;
if (impl === "gpt-tokenizer") {
  const { countTokens } = require("gpt-tokenizer/encoding/o200k_base");
  count = countTokens;
} else if (impl === "tiktoken") {
  const { get_encoding } = require("tiktoken");
  const enc = get_encoding("o200k_base");
  count = (t) => enc.encode_ordinary(t).length;
} else {
  throw new Error(`unknown tokenizer ${impl}`);
}
const start = process.hrtime.bigint();
const n = count(text);
console.log(`${n} ${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(1)}`);
