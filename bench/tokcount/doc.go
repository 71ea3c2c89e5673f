// Package tokcount compares folio's token counter with the one folio used
// before (github.com/tiktoken-go/tokenizer v0.10.0) and, through
// tokcount.mjs, with OpenAI's tiktoken (the npm package's WebAssembly
// build), on the same files. It is a module of its own so that folio does
// not depend on the old counter. Run ../tokcount.sh.
package tokcount
