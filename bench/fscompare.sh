#!/bin/sh
# Compares folio with @modelcontextprotocol/server-filesystem on one file
# of Go source (-size, 1 MiB by default): folio's continuation pages
# against server-filesystem's head of as many lines and its whole read,
# through the same go-sdk client over stdio on this machine. It installs
# the npm package into bench/out. bench/smoke.sh runs it on 64 KiB.
set -eu
cd "$(dirname "$0")/.."
pkg=@modelcontextprotocol/server-filesystem@2026.8.31
mkdir -p bench/out
if [ ! -f bench/out/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ]; then
	npm install --silent --no-audit --no-fund --prefix bench/out "$pkg"
fi
go build -o bench/out/folio ./cmd/folio
go run ./bench/fscompare \
	-folio bench/out/folio \
	-filesystem bench/out/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js \
	"$@"
