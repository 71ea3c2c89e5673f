#!/usr/bin/env bash
# packaging/npm/pack.sh VERSION BINDIR OUTDIR: folio's npm packages, packed (npm pack)
# into OUTDIR: the wrapper @folio-mcp/folio (this folder) and one package
# per platform, @folio-mcp/folio-<os>-<cpu>, holding bin/folio from
# BINDIR/folio-<GOOS>-<GOARCH> (linux and darwin, amd64 and arm64; built
# with GOOS and GOARCH, all four needed), with os and cpu fields so that
# npm installs only the one that fits. Every package gets VERSION (a
# leading v is dropped: v0.3.1 is 0.3.1), and the wrapper depends on the
# platform packages at exactly that version. Prints the tarballs' paths.
# Windows (win32-x64, bin/folio.exe, and the same in bin/folio.js) comes
# once folio builds there.
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: packaging/npm/pack.sh VERSION BINDIR OUTDIR" >&2
	exit 2
fi
version=${1#v}
bindir=$2
outdir=$3
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
	echo "packaging/npm/pack.sh: $1 is not a semantic version (0.3.1, v0.3.1, 0.3.1-rc.1)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# GOOS/GOARCH → npm's os/cpu (process.platform/process.arch).
targets="linux/amd64:linux/x64 linux/arm64:linux/arm64 darwin/amd64:darwin/x64 darwin/arm64:darwin/arm64"
for target in $targets; do
	go=${target%%:*}
	npm=${target#*:}
	os=${npm%/*}
	cpu=${npm#*/}
	bin="$bindir/folio-${go%/*}-${go#*/}"
	if [ ! -f "$bin" ]; then
		echo "packaging/npm/pack.sh: no $bin (build it with GOOS=${go%/*} GOARCH=${go#*/})" >&2
		exit 1
	fi
	dir="$work/folio-$os-$cpu"
	mkdir -p "$dir/bin"
	cp "$bin" "$dir/bin/folio"
	chmod 755 "$dir/bin/folio"
	cp "$here/../../LICENSE" "$dir/LICENSE"
	cat >"$dir/README.md" <<README
# @folio-mcp/folio-$os-$cpu

The folio binary for $os on $cpu. Install
[@folio-mcp/folio](https://www.npmjs.com/package/@folio-mcp/folio), which
depends on this package and runs it: \`npx -y @folio-mcp/folio serve --root DIR\`.
README
	cat >"$dir/package.json" <<JSON
{
  "name": "@folio-mcp/folio-$os-$cpu",
  "version": "$version",
  "description": "The folio binary for $os $cpu (installed by @folio-mcp/folio)",
  "license": "MIT",
  "homepage": "https://github.com/folio-mcp/folio",
  "repository": {
    "type": "git",
    "url": "git+https://github.com/folio-mcp/folio.git",
    "directory": "packaging/npm"
  },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/folio", "LICENSE", "README.md"],
  "preferUnplugged": true
}
JSON
done

# The wrapper: this folder's package.json with VERSION everywhere.
dir="$work/folio"
mkdir -p "$dir/bin"
cp "$here/bin/folio.js" "$dir/bin/folio.js"
chmod 755 "$dir/bin/folio.js"
cp "$here/README.md" "$dir/README.md"
cp "$here/../../LICENSE" "$dir/LICENSE"
node -e '
const fs = require("fs");
const [src, dst, version] = process.argv.slice(1);
const p = JSON.parse(fs.readFileSync(src, "utf8"));
p.version = version;
for (const name of Object.keys(p.optionalDependencies)) p.optionalDependencies[name] = version;
fs.writeFileSync(dst, JSON.stringify(p, null, 2) + "\n");
' "$here/package.json" "$dir/package.json" "$version"

for dir in "$work"/folio "$work"/folio-*; do
	(cd "$dir" && npm pack --silent --pack-destination "$outdir" | sed "s|^|$outdir/|")
done
