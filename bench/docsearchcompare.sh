#!/bin/sh
# Weighs bleve v2 against folio's own BM25 (package docsearch) for issue
# 36, on the same chunks of testdata/docsearch (bench/docsearchcompare, a
# module of its own so that folio's go.mod does not gain bleve):
# hit@2000 and hit@500 on the tune half of the questions for each index;
# then, on one core (GOMAXPROCS=1), the corpus repeated to
# DOCSEARCHCOMPARE_MB megabytes (100 by default) indexed by folio, by
# bleve's scorch in memory and by scorch on disk (in
# bench/out/docsearchcompare): indexing rate, heap in use, size on disk
# and search latencies, in CPU time; last, what bleve adds to the size of
# a binary (bench/docsearchcompare/binsize built with each, plain and
# with -trimpath -ldflags=-s -w unless DOCSEARCHCOMPARE_STRIPPED=0, each
# run once). bench/smoke.sh runs it on 1 MB, the stripped builds left out.
set -eu
cd "$(dirname "$0")/.."
mb=${DOCSEARCHCOMPARE_MB:-100}
stripped=${DOCSEARCHCOMPARE_STRIPPED:-1}
out=$PWD/bench/out/docsearchcompare
fixture=$PWD/testdata/docsearch
rm -rf "$out"
mkdir -p "$out"
cd bench/docsearchcompare
go build -o "$out/docsearchcompare" .
export GOMAXPROCS=1

echo "## Quality on the tune half"
echo
"$out/docsearchcompare" -fixture "$fixture" -mode quality

echo
echo "## Speed and memory over $mb MB, one core (CPU time)"
echo
echo "| index | text | indexing MB/s (chunking included) | chunking alone MB/s | heap in use after indexing | on disk | RSS after searching | search p50 | search p90 |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# In memory, scorch merges no segments: a batch of 1000 chunks is a
# segment searched apart; bigger batches make fewer.
for run in folio:1000 bleve-mem:1000 bleve-mem:10000 bleve-disk:1000; do
	engine=${run%:*}
	dir=
	[ "$engine" = bleve-disk ] && dir=$out/index
	"$out/docsearchcompare" -fixture "$fixture" -mode speed -engine "$engine" -batch "${run#*:}" -mb "$mb" -dir "$dir"
done

echo
echo "## Binary size (bytes) of bench/docsearchcompare/binsize"
echo
echo "| build | folio's docsearch | bleve | bleve adds |"
echo "| --- | --- | --- | --- |"
# size BUILDFLAGS... prints a row: the program built with each index,
# each run once (passage 1 is the one that matches).
size() {
	go build "$@" -o "$out/binsize-folio" ./binsize
	go build "$@" -tags bleve -o "$out/binsize-bleve" ./binsize
	for index in folio bleve; do
		hits=$("$out/binsize-$index" flags "nothing here" "the flags it takes" "more text")
		[ "$hits" = "[1]" ] || {
			echo "binsize with $index found $hits, not [1]" >&2
			exit 1
		}
	done
	f=$(wc -c <"$out/binsize-folio")
	b=$(wc -c <"$out/binsize-bleve")
	echo "| \`go build${*:+ $*}\` | $f | $b | $((b - f)) |"
}
size
[ "$stripped" = 0 ] || size -trimpath -ldflags=-s\ -w
