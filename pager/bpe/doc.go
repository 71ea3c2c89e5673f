// Package bpe counts and encodes text with OpenAI's byte-pair encodings
// o200k_base and cl100k_base, exactly as tiktoken's encode_ordinary does.
//
// Each encoding's split pattern is a hand-written pre-tokenizer: a state
// machine over code points that gives the pieces tiktoken's regular
// expression matches, with no regular-expression engine. Each piece is then
// merged pair by pair over the encoding's vocabulary, lowest rank first,
// with a heap for long pieces so that the cost stays near linear. The
// vocabularies are tiktoken's own, compiled in (data/, written by
// testdata/tokref/generate.mjs), so nothing is fetched at run time.
//
// testdata/tokref holds a reference table made by tiktoken itself; the
// package's tests check every entry of it.
package bpe
