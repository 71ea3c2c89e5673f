#!/bin/sh
# Compares folio's token counter with the old one (tiktoken-go v0.10.0) and
# with OpenAI's tiktoken (npm, WebAssembly) on 1 MiB of Go source, of
# Markdown and of CJK-heavy text, on this machine. Not run in CI: it
# installs tiktoken from npm into testdata/tokref. Needs benchstat.
set -eu
cd "$(dirname "$0")/.."
runs=${TOKCOUNT_RUNS:-6}
export TOKCOUNT_DIR="$PWD/bench/out/tokcount" TOKCOUNT_RUNS="$runs"
mkdir -p "$TOKCOUNT_DIR"
[ -d testdata/tokref/node_modules/tiktoken ] || npm ci --silent --no-audit --no-fund --prefix testdata/tokref
(cd bench/tokcount && go test -run TestWriteTexts -count 1 . >/dev/null &&
	go test -run '^$' -bench Count -count "$runs" .) >"$TOKCOUNT_DIR/go.txt"
node bench/tokcount/tokcount.mjs >"$TOKCOUNT_DIR/wasm.txt"
cat "$TOKCOUNT_DIR/go.txt" "$TOKCOUNT_DIR/wasm.txt" >"$TOKCOUNT_DIR/all.txt"
benchstat -col /impl "$TOKCOUNT_DIR/all.txt"
