#!/bin/sh
# Compares folio's grep, through folio serve over stdio, with ripgrep on
# the Go distribution's src (or -root DIR): the median wall time of each
# search and whether both find the same lines. Needs rg on PATH.
# bench/smoke.sh runs it on GOROOT/src/net, one round.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/out
go build -o bench/out/folio ./cmd/folio
go run ./bench/grepcompare -folio bench/out/folio "$@"
