// Package bpe counts and encodes text with OpenAI's byte-pair encodings
// o200k_base and cl100k_base, exactly as tiktoken's encode_ordinary does.
//
// Each encoding's split pattern is a hand-written pre-tokenizer: a state
// machine over code points that gives the pieces tiktoken's regular
// expression matches, with no regular-expression engine, and with the
// Unicode classes of the version tiktoken's regex engine knows (16.0.0).
// Each piece is then merged pair by pair over the encoding's vocabulary,
// lowest rank first and leftmost first among equals: by tiktoken's own scan
// for short pieces, and by buckets of pairs by rank for long ones, so that
// a long run of one character costs about as much per byte as prose. The
// vocabularies are tiktoken's own, compiled in with an index built ahead of
// time (data/, written by testdata/tokref/generate.mjs and
// TestIndexIsCurrent), so loading one costs nothing and nothing is fetched.
//
// testdata/tokref holds a reference table made by tiktoken itself; the
// package's tests check every entry of it.
package bpe
