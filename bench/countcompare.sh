#!/bin/sh
# Compares `folio count` with gpt-tokenizer and tiktoken (WebAssembly), each
# a whole process counting 4 MiB of CJK-heavy text and of Go source
# (o200k_base; -size and -n set the bytes and the runs). It installs the
# npm packages into bench/out/countcompare. bench/smoke.sh runs it on
# 64 KiB, once.
set -eu
cd "$(dirname "$0")/.."
out=bench/out/countcompare
mkdir -p "$out"
if [ ! -d "$out/node_modules/gpt-tokenizer" ] || [ ! -d "$out/node_modules/tiktoken" ]; then
	npm install --silent --no-audit --no-fund --prefix "$out" gpt-tokenizer@4.0.0 tiktoken@1.0.22
fi
go build -o bench/out/folio ./cmd/folio
go run ./bench/countcompare -folio bench/out/folio -modules "$PWD/$out/node_modules" \
	-script bench/countcompare/count.mjs "$@"
