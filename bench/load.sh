#!/bin/sh
# Puts folio serve under load over Streamable HTTP on loopback: 50 clients
# for 60 s by default (pass -clients, -duration, -min, -max to change it):
# a minute of both cores. bench/smoke.sh runs 4 clients for 3 s.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/out
go build -o bench/out/folio ./cmd/folio
go run ./bench/load -folio bench/out/folio "$@"
