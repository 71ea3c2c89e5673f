// Writes folio's BPE vocabularies and the reference table that folio's
// token counter is checked against, both from OpenAI's tiktoken (the npm
// package: a WebAssembly build of tiktoken's Rust code, with the encodings'
// data files), and the Unicode classes its split patterns use, from the
// Unicode Character Database of the version that tiktoken's regex engine
// was built with (16.0.0: see checkUnicodeVersion).
//
//   npm ci && node generate.mjs     (or: just tokref, from the repository root)
//
// Outputs, relative to the repository root:
//
//   pager/bpe/data/<encoding>.tokens  every token of the encoding in rank
//                                 order, each as one length byte and its
//                                 bytes (pager/bpe indexes them: see
//                                 "just tokref")
//   pager/bpe/data/classes.bin    each code point's class for the split
//                                 patterns, as a two-stage table (see
//                                 writeClasses)
//   testdata/tokref/table.gz      the reference table (format below)
//
// The table does not hold its test strings: they are defined by a rule that
// pager/bpe/tokref_test.go implements too. The table holds the rule's
// parameters (the header) and, for each group of GROUP strings in order, an
// FNV-1a hash of the strings' UTF-8 bytes (so that the Go test knows it
// rebuilt the same strings), an FNV-1a hash of the token ids that
// encode_ordinary gives for them with each encoding, and each string's token
// count with each encoding:
//
//   line 1:  the header, one JSON object
//   then:    <text hash> <o200k ids hash> <cl100k ids hash> <o200k counts> <cl100k counts>
//            (hashes as 8 hex digits, counts comma-separated)
//
// The strings are, in order:
//
//   1. The sweep: every Unicode scalar value (U+0000 to U+10FFFF without the
//      surrogates) in each of the header's sweep contexts. The scalar values
//      are taken in blocks of SWEEP_BLOCK; one string per block and context
//      joins ctx[0] + c + ctx[1] + c + ... for each c of the block, where
//      ctx is the context's list of literal parts.
//   2. RANDOM strings of 1 to MAX_ATOMS atoms each, chosen by the mulberry32
//      generator from SEED: n = 1 + next() % MAX_ATOMS, then per atom
//      a = atoms[next() % atoms.length]; a string atom is itself, a [lo, hi]
//      atom is the code point lo + next() % (hi - lo + 1), moved up by 0x800
//      out of the surrogates.
//   3. LONG strings, by the same generator going on, of
//      n = LONG_MIN_ATOMS + next() % LONG_MORE_ATOMS atoms each.
//   4. Runs: each string atom, in order, repeated until it holds at least
//      RUN_BYTES bytes of UTF-8.
import { get_encoding } from "tiktoken";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ENCODINGS = ["o200k_base", "cl100k_base"];
const SEED = 0x5eed_f011;
const RANDOM = 320000;
const MAX_ATOMS = 16;
const LONG = 4000;
const LONG_MIN_ATOMS = 64;
const LONG_MORE_ATOMS = 400;
const RUN_BYTES = 3000;
const GROUP = 64;
const SWEEP_BLOCK = 64;

// Each context puts the scalar value c between its parts: next to letters,
// after a space and before a digit, doubled, after an apostrophe, before a
// line end. The last one makes c's class show in the tokens even where c's
// own bytes merge with nothing: between digits (a number joins them), before
// a contraction (a letter takes it), after two spaces (a space joins them).
const SWEEP_CONTEXTS = [
  ["a", "b "],
  [" ", "", "7\n"],
  ["'", "S.", " \r\n"],
  ["1", "23 x", "'s  ", "x\n"],
];
const UNICODE = "16.0.0";

const ATOMS = [
  // contractions, as the patterns know them and as they do not
  "'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'lL",
  "'d", "'D", "'ſ", "'", "’", "’s", "’re", "’ll", "''", "'x",
  // words
  "don", "I", "Hello", "world", "HTTPServer", "camelCase", "snake_case", "ALLCAPS", "a", "the",
  "Ab", "x", "über", "naïve", "Straße", "ΑΒΓ", "αβγ", "Ёлка", "мир", "عربى", "עברית", "हिन्दी",
  "ไทย", "ქართ", "Ꭰ",
  // title case, modifier letters, combining marks
  "ǅ", "ǈ", "ǋ", "ᾈ", "ᵃ", "ʰ", "ˆ", "ꜟ", "ー", "々", "ß", "İ", "ı", "ﬁ", "Ω", "K", "ſ",
  "e\u0301", "\u0301", "\u0300\u0308", "\u20dd", "\u093f", "क्ष", "ें", "\u0e31", "\u3099",
  // digits of several scripts, and runs longer than three
  "0", "7", "42", "123", "2024", "12345", "1234567", "٠١٢٣٤", "۱۲۳", "१२३४५", "１２３４",
  "๑๒", "²", "½", "Ⅻ", "①", "3.14", "1,000", "0x1F",
  // whitespace: runs, line ends, Unicode spaces
  " ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r", "\r\r", "\r\n", "\r\n\r\n", "\n\r", " \n",
  "\u00a0", "\u2003", "\u3000", "\u2028", "\u2029", "\u0085", "\u000b", "\u000c", "\u1680",
  "\u202f", "\u205f", "\u180e", "\u200b",
  // punctuation and symbols
  ".", ",", ";", "!", "?", "...", "--", "/", "//", "\\", "\"", "(", ")", "{", "}", "[]", "<",
  ">", "=>", "==", "!=", "#", "@", "$", "%", "&&", "|", "~", "`", "```", "* ", "- ", "/*", "*/",
  "€", "©", "→", "∑", "=", "-", "_", "*", "<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>", "'s'",
  // CJK
  "中文", "日本語", "한국어", "漢字かなカナ", "。", "、", "「", "」", "ｶﾀｶﾅ",
  // emoji: skin tones, ZWJ sequences, flags, variation selectors
  "🙂", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦", "🇫🇷", "🇯🇵", "❤️", "✔", "🏳️‍🌈", "\u200d", "\ufe0f", "🏽",
  // BOM, C0 and C1 controls, DEL, format characters
  "\ufeff", "\u0000", "\u0001", "\u001b", "\u001c", "\u001f", "\u007f", "\u007f\u007f", "\u0080",
  "\u009f", "\u200e", "\u00ad", "\ufffd",
  // one code point from a range
  [0x20, 0x7e], [0x0, 0x1f], [0x7f, 0x9f], [0xa0, 0x2ff], [0x300, 0x36f], [0x370, 0x10ff],
  [0x1100, 0x11ff], [0x2000, 0x206f], [0x3000, 0x30ff], [0x4e00, 0x9fff], [0xac00, 0xd7a3],
  [0x1f300, 0x1faff], [0x1f3fb, 0x1f3ff], [0x1f1e6, 0x1f1ff], [0x0, 0x10ffff], [0x10000, 0x10ffff],
];

function mulberry32(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function* sweepStrings() {
  const block = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    block.push(String.fromCodePoint(c));
    if (block.length === SWEEP_BLOCK || c === 0x10ffff) {
      for (const ctx of SWEEP_CONTEXTS) {
        let s = "";
        for (const ch of block) s += ctx.join(ch);
        yield s;
      }
      block.length = 0;
    }
  }
}

function* randomStrings() {
  const next = mulberry32(SEED);
  for (let i = 0; i < RANDOM + LONG; i++) {
    const n = i < RANDOM ? 1 + (next() % MAX_ATOMS) : LONG_MIN_ATOMS + (next() % LONG_MORE_ATOMS);
    let s = "";
    for (let j = 0; j < n; j++) {
      const atom = ATOMS[next() % ATOMS.length];
      if (typeof atom === "string") {
        s += atom;
        continue;
      }
      let c = atom[0] + (next() % (atom[1] - atom[0] + 1));
      if (c >= 0xd800 && c <= 0xdfff) c += 0x800;
      s += String.fromCodePoint(c);
    }
    yield s;
  }
}

function* runStrings() {
  for (const atom of ATOMS) {
    if (typeof atom !== "string") continue;
    let s = atom;
    while (Buffer.byteLength(s, "utf8") < RUN_BYTES) s += atom;
    yield s;
  }
}

const FNV_OFFSET = 0x811c9dc5;
function fnv(h, byte) {
  return Math.imul(h ^ byte, 0x01000193) >>> 0;
}
function fnvBytes(h, bytes) {
  for (const b of bytes) h = fnv(h, b);
  return h;
}
// fnvIDs hashes each id as four little-endian bytes.
function fnvIDs(h, ids) {
  for (const id of ids) {
    h = fnv(h, id & 0xff);
    h = fnv(h, (id >>> 8) & 0xff);
    h = fnv(h, (id >>> 16) & 0xff);
    h = fnv(h, id >>> 24);
  }
  return h;
}
const hex = (h) => h.toString(16).padStart(8, "0");

function writeVocab(name) {
  const data = require(`tiktoken/encoders/${name}.json`);
  const parts = data.bpe_ranks.split(" ");
  if (parts[1] !== "0" || data.bpe_ranks.includes("\n")) {
    throw new Error(`${name}: expected one run of ranks from 0`);
  }
  const tokens = parts.slice(2).map((b64) => Buffer.from(b64, "base64"));
  const out = [];
  for (const t of tokens) {
    if (t.length === 0 || t.length > 255) throw new Error(`${name}: token of ${t.length} bytes`);
    out.push(Buffer.from([t.length]), t);
  }
  const raw = Buffer.concat(out);
  const path = join(root, "pager", "bpe", "data", `${name}.tokens`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, raw);
  console.log(`${path}: ${tokens.length} tokens, ${raw.length} bytes`);
  return { tokens: tokens.length, sha256: createHash("sha256").update(raw).digest("hex") };
}

function writeTable(vocabs) {
  const encoders = ENCODINGS.map((name) => get_encoding(name));
  const header = {
    unicode: UNICODE,
    tiktoken: JSON.parse(readFileSync(join(dirname(require.resolve("tiktoken")), "package.json"))).version,
    encodings: ENCODINGS,
    vocab_sha256: Object.fromEntries(ENCODINGS.map((n) => [n, vocabs[n].sha256])),
    group: GROUP,
    sweep_block: SWEEP_BLOCK,
    sweep_contexts: SWEEP_CONTEXTS,
    seed: SEED,
    random: RANDOM,
    max_atoms: MAX_ATOMS,
    long: LONG,
    long_min_atoms: LONG_MIN_ATOMS,
    long_more_atoms: LONG_MORE_ATOMS,
    run_bytes: RUN_BYTES,
    atoms: ATOMS,
  };
  const lines = [JSON.stringify(header)];
  let group = [];
  let strings = 0;
  const flush = () => {
    let textHash = FNV_OFFSET;
    const idHashes = encoders.map(() => FNV_OFFSET);
    const counts = encoders.map(() => []);
    for (const s of group) {
      textHash = fnvBytes(textHash, Buffer.from(s, "utf8"));
      encoders.forEach((enc, k) => {
        const ids = enc.encode_ordinary(s);
        idHashes[k] = fnvIDs(idHashes[k], ids);
        counts[k].push(ids.length);
      });
    }
    lines.push([hex(textHash), ...idHashes.map(hex), ...counts.map((c) => c.join(","))].join(" "));
    strings += group.length;
    group = [];
  };
  for (const gen of [sweepStrings(), randomStrings(), runStrings()]) {
    for (const s of gen) {
      group.push(s);
      if (group.length === GROUP) flush();
    }
  }
  if (group.length > 0) flush();
  encoders.forEach((enc) => enc.free());
  const path = join(root, "testdata", "tokref", "table.gz");
  writeFileSync(path, gzipSync(Buffer.from(lines.join("\n") + "\n"), { level: 9 }));
  console.log(`${path}: ${strings} strings in ${lines.length - 1} groups`);
}

// The general categories and the property the split patterns use, as the
// codes of classes.bin. A code point has at most one of them.
const CLASS_CODES = [
  ["General_Category/Uppercase_Letter", 1],
  ["General_Category/Lowercase_Letter", 2],
  ["General_Category/Titlecase_Letter", 3],
  ["General_Category/Modifier_Letter", 4],
  ["General_Category/Other_Letter", 5],
  ["General_Category/Mark", 6],
  ["General_Category/Number", 7],
  ["Binary_Property/White_Space", 8],
];
const CLASS_BLOCK = 128;

// writeClasses writes classes.bin: 0x110000/CLASS_BLOCK block numbers, one
// byte each, then the distinct blocks of CLASS_BLOCK codes, one byte per
// code point (0: none of CLASS_CODES). The code of c is
// data[STAGE1 + data[c / CLASS_BLOCK] * CLASS_BLOCK + c % CLASS_BLOCK].
async function writeClasses() {
  const codes = new Uint8Array(0x110000);
  for (const [property, code] of CLASS_CODES) {
    const points = (await import(`@unicode/unicode-${UNICODE}/${property}/code-points.mjs`)).default;
    for (const c of points) {
      if (codes[c] !== 0) throw new Error(`U+${c.toString(16)} has two classes`);
      codes[c] = code;
    }
  }
  const index = new Map();
  const stage1 = [];
  const blocks = [];
  for (let c = 0; c < codes.length; c += CLASS_BLOCK) {
    const block = Buffer.from(codes.subarray(c, c + CLASS_BLOCK));
    const key = block.toString("hex");
    if (!index.has(key)) {
      index.set(key, blocks.length);
      blocks.push(block);
    }
    stage1.push(index.get(key));
  }
  if (blocks.length > 256) throw new Error(`${blocks.length} distinct blocks`);
  const path = join(root, "pager", "bpe", "data", "classes.bin");
  writeFileSync(path, Buffer.concat([Buffer.from(stage1), ...blocks]));
  console.log(`${path}: Unicode ${UNICODE}, ${blocks.length} distinct blocks`);
}

// checkUnicodeVersion makes sure tiktoken's regex engine knows the letters
// that Unicode ${UNICODE} added and not the ones of the next version: a
// letter takes the contraction after it into its piece.
function checkUnicodeVersion() {
  const enc = get_encoding("o200k_base");
  const contraction = enc.encode_ordinary("'s")[0];
  const isLetter = (c) => enc.encode_ordinary(String.fromCodePoint(c) + "'s").at(-1) === contraction;
  // U+10D50 GARAY CAPITAL LETTER A came with 16.0; U+323B0, a CJK
  // ideograph of Extension J, with 17.0.
  const ok = isLetter(0x10d50) && !isLetter(0x323b0);
  enc.free();
  if (!ok) throw new Error(`tiktoken's split patterns do not use Unicode ${UNICODE}: change UNICODE`);
}

checkUnicodeVersion();
await writeClasses();
const vocabs = Object.fromEntries(ENCODINGS.map((name) => [name, writeVocab(name)]));
writeTable(vocabs);
