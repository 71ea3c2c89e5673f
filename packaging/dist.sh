#!/usr/bin/env bash
# packaging/dist.sh [--snapshot]: every release artifact of folio into
# dist/ (CONTRIBUTING.md, "Releasing").
#
# With --snapshot it first runs goreleaser release --snapshot --clean (the
# archives, their SBOMs and checksums, as a snapshot of this tree);
# without, it takes the dist/ that goreleaser release made. Then, from
# goreleaser's four binaries (linux and darwin, amd64 and arm64) at the
# version of dist/metadata.json, it makes:
#   dist/bin/folio-<os>-<arch>     the four binaries, as the scripts take them
#   dist/npm/*.tgz                 the npm packages (packaging/npm/pack.sh)
#   dist/*.mcpb                    the MCP bundles (packaging/mcpb/pack.sh)
#   dist/folio_VERSION_oci.tar     the OCI image (packaging/oci/build.sh)
#   dist/server.json               the MCP Registry entry (packaging/registry/server-json.sh)
# and adds the bundles and the image's archive to goreleaser's checksums
# file (dist/folio_VERSION_checksums.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
case $# in
0) ;;
1)
	if [ "$1" != --snapshot ]; then
		echo "usage: packaging/dist.sh [--snapshot]" >&2
		exit 2
	fi
	# goreleaser takes no commit from a repository without a remote:
	# origin is named in git's environment when there is none.
	origin=$(git remote get-url origin 2>/dev/null || echo https://github.com/folio-mcp/folio)
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0="$origin" \
		goreleaser release --snapshot --clean
	;;
*)
	echo "usage: packaging/dist.sh [--snapshot]" >&2
	exit 2
	;;
esac
if [ ! -f dist/metadata.json ]; then
	echo "packaging/dist.sh: no dist/metadata.json: run goreleaser release first, or packaging/dist.sh --snapshot" >&2
	exit 1
fi
version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' dist/metadata.json)
if [ -z "$version" ]; then
	echo "packaging/dist.sh: dist/metadata.json names no version" >&2
	exit 1
fi
bindir=dist/bin
rm -rf "$bindir" dist/npm dist/*.mcpb dist/server.json dist/folio_*_oci.tar
mkdir -p "$bindir"
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64; do
	os=${target%/*}
	arch=${target#*/}
	# goreleaser's folder has the target's variant after it (_v1, _v8.0).
	built=$(ls -d dist/folio_"${os}_${arch}"_*/folio 2>/dev/null | head -n 1 || true)
	if [ -z "$built" ]; then
		echo "packaging/dist.sh: goreleaser built no folio for $os/$arch in dist/" >&2
		exit 1
	fi
	cp -p "$built" "$bindir/folio-$os-$arch"
done
packaging/npm/pack.sh "$version" "$bindir" dist/npm
packaging/mcpb/pack.sh "$version" "$bindir" dist
packaging/oci/build.sh "$version" "$bindir" dist
packaging/registry/server-json.sh "$version" dist dist
# The bundles and the image join the archives in the checksums file (in
# place of theirs from an earlier run).
checksums=dist/folio_${version}_checksums.txt
if [ ! -f "$checksums" ]; then
	echo "packaging/dist.sh: goreleaser wrote no $checksums" >&2
	exit 1
fi
(
	cd dist
	grep -v -E '\.mcpb$|_oci\.tar$' "${checksums#dist/}" || true
	sha256sum -- folio_"${version}"_*.mcpb "folio_${version}_oci.tar"
) | sort -k 2 -u >"$checksums.new"
mv "$checksums.new" "$checksums"
echo "$checksums"
