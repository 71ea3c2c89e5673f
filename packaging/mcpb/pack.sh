#!/usr/bin/env bash
# packaging/mcpb/pack.sh VERSION BINDIR OUTDIR: folio's MCP Bundles
# (.mcpb, the zip Claude Desktop installs in one click), one per platform
# since a bundle's manifest names operating systems but no architecture:
# OUTDIR/folio_<version>_<GOOS>_<GOARCH>.mcpb for linux and darwin, amd64
# and arm64, each holding manifest.json (this folder's, with VERSION less
# its leading v and the one platform), LICENSE, and server/folio from
# BINDIR/folio-<GOOS>-<GOARCH> (all four needed) with mode 755. The
# client asks for the folders to serve (user_config "directories", a
# multiple directory) and runs ${__dirname}/server/folio serve DIR…, each
# folder a separate argument.
#
# Written with Info-ZIP's zip, not mcpb pack (which stamps every file with
# the time it packs): no extra fields (-X), no directory entries (-D), the
# files in a fixed order, each file's time SOURCE_DATE_EPOCH (else the
# last commit's, else 1980-01-01) in UTC, so the same inputs make the same
# bytes. mcpb unpack, as the client does, restores the modes it stores.
# Prints the bundles' paths. Windows (server/folio.exe) comes once folio
# builds there.
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: packaging/mcpb/pack.sh VERSION BINDIR OUTDIR" >&2
	exit 2
fi
version=${1#v}
bindir=$2
outdir=$3
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
	echo "packaging/mcpb/pack.sh: $1 is not a semantic version (0.3.1, v0.3.1, 0.3.1-rc.1)" >&2
	exit 2
fi
if ! command -v zip >/dev/null; then
	echo "packaging/mcpb/pack.sh: no zip (Debian's package zip)" >&2
	exit 1
fi
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"
for target in $targets; do
	bin="$bindir/folio-${target%/*}-${target#*/}"
	if [ ! -f "$bin" ]; then
		echo "packaging/mcpb/pack.sh: no $bin (build it with GOOS=${target%/*} GOARCH=${target#*/})" >&2
		exit 1
	fi
done
here=$(cd "$(dirname "$0")" && pwd)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 315532800)}
# zip stores local time, and nothing before 1980.
if [ "$epoch" -lt 315532800 ]; then epoch=315532800; fi
stamp=$(TZ=UTC date -d "@$epoch" +%Y%m%d%H%M.%S)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for target in $targets; do
	os=${target%/*}
	arch=${target#*/}
	dir="$work/$os-$arch"
	mkdir -p "$dir/server"
	cp "$bindir/folio-$os-$arch" "$dir/server/folio"
	cp "$here/../../LICENSE" "$dir/LICENSE"
	sed -e "s/@VERSION@/$version/" -e "s/@OS@/$os/" "$here/manifest.json" >"$dir/manifest.json"
	chmod 755 "$dir/server/folio"
	chmod 644 "$dir/LICENSE" "$dir/manifest.json"
	TZ=UTC touch -t "$stamp" "$dir/manifest.json" "$dir/LICENSE" "$dir/server/folio"
	bundle="$outdir/folio_${version}_${os}_${arch}.mcpb"
	rm -f "$bundle"
	(cd "$dir" && TZ=UTC zip -q -X -D -9 "$bundle" manifest.json LICENSE server/folio)
	echo "$bundle"
done
