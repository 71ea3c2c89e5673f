#!/usr/bin/env bash
# packaging/oci/build.sh VERSION BINDIR OUTDIR: folio's OCI image for
# linux/amd64 and linux/arm64 (one image index) from
# BINDIR/folio-linux-amd64 and BINDIR/folio-linux-arm64, written as an OCI
# image layout in a tar, OUTDIR/folio_VERSION_oci.tar (a leading v is
# dropped: v0.3.1 is 0.3.1), which podman load and skopeo copy
# oci-archive: take, naming it ghcr.io/folio-mcp/folio:VERSION (IMAGE=NAME
# names it otherwise). No daemon and no base image: main.go (a module of its
# own, go-containerregistry) makes the layers. The image runs as nonroot
# (65532:65532) and serves Streamable HTTP on port 8080 from the folder
# mounted at /data, to callers with a token of the tokens file at
# /run/secrets/folio-tokens (packaging/oci/README.md). Its CA certificates
# are Mozilla's, from Debian's or Ubuntu's ca-certificates package on this
# machine (/usr/share/ca-certificates/mozilla; CA_CERTIFICATES=FILE gives
# another bundle). Every time in it is the commit's (SOURCE_DATE_EPOCH
# overrides), so that one commit gives the same bytes. Prints the archive's
# path.
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: packaging/oci/build.sh VERSION BINDIR OUTDIR" >&2
	exit 2
fi
version=${1#v}
bindir=$2
outdir=$3
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
	echo "packaging/oci/build.sh: $1 is not a semantic version (0.3.1, v0.3.1, 0.3.1-rc.1)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
bins=()
for arch in amd64 arm64; do
	bin="$bindir/folio-linux-$arch"
	if [ ! -f "$bin" ]; then
		echo "packaging/oci/build.sh: no $bin (build it with GOOS=linux GOARCH=$arch)" >&2
		exit 1
	fi
	bins+=("$arch=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")")
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca=${CA_CERTIFICATES:-}
if [ -z "$ca" ]; then
	mozilla=/usr/share/ca-certificates/mozilla
	if ! compgen -G "$mozilla/*.crt" >/dev/null; then
		echo "packaging/oci/build.sh: no CA certificates in $mozilla (install the ca-certificates package, or give CA_CERTIFICATES=FILE)" >&2
		exit 1
	fi
	ca="$work/ca-certificates.crt"
	# In name order, each ending its line, as update-ca-certificates joins them.
	LC_ALL=C find "$mozilla" -name '*.crt' -print0 | LC_ALL=C sort -z | xargs -0 sed -e '$a\' >"$ca"
fi
revision=$(git -C "$here" rev-parse HEAD)
created=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct)}
mkdir -p "$outdir"
out="$(cd "$outdir" && pwd)/folio_${version}_oci.tar"
(cd "$here" && go build -o "$work/oci" .)
"$work/oci" -name "${IMAGE:-ghcr.io/folio-mcp/folio}" -version "$version" -revision "$revision" -created "$created" \
	-license "$here/../../LICENSE" -ca "$ca" -out "$out" "${bins[@]}"
echo "$out"
