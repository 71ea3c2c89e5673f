#!/bin/sh
# Compares folio's token counter with the old one (tiktoken-go v0.10.0) and
# with OpenAI's tiktoken (npm, WebAssembly) on TOKCOUNT_BYTES (1 MiB by
# default) of Go source, of Markdown and of CJK-heavy text, on this
# machine: TOKCOUNT_RUNS runs (6 by default) of TOKCOUNT_BENCHTIME each
# (seconds as 1s, the default, or Nx for N counts), and benchstat's table
# (the benchstat bench/tokcount/go.mod names). It installs tiktoken from
# npm into bench/out/tokcount (the version testdata/tokref's tables are
# made with). bench/smoke.sh runs it once, one count of 64 KiB each.
set -eu
cd "$(dirname "$0")/.."
runs=${TOKCOUNT_RUNS:-6}
benchtime=${TOKCOUNT_BENCHTIME:-1s}
export TOKCOUNT_DIR="$PWD/bench/out/tokcount" TOKCOUNT_RUNS="$runs" TOKCOUNT_BENCHTIME="$benchtime"
mkdir -p "$TOKCOUNT_DIR"
[ -d "$TOKCOUNT_DIR/node_modules/tiktoken" ] ||
	npm install --silent --no-audit --no-fund --prefix "$TOKCOUNT_DIR" tiktoken@1.0.22
(cd bench/tokcount && go test -run TestWriteTexts -count 1 . >/dev/null &&
	go test -run '^$' -bench Count -benchtime "$benchtime" -count "$runs" .) >"$TOKCOUNT_DIR/go.txt"
node bench/tokcount/tokcount.mjs >"$TOKCOUNT_DIR/wasm.txt"
cat "$TOKCOUNT_DIR/go.txt" "$TOKCOUNT_DIR/wasm.txt" >"$TOKCOUNT_DIR/all.txt"
(cd bench/tokcount && go tool benchstat -col /impl "$TOKCOUNT_DIR/all.txt")
