#!/usr/bin/env bash
# packaging/registry/server-json.sh VERSION BUNDLEDIR OUTDIR: folio's entry
# for the official MCP Registry, OUTDIR/server.json, made from the repository's
# server.json (whose version is 0.0.0 throughout) for release VERSION (a
# leading v is dropped: v0.3.1 is 0.3.1): the entry's version, the npm
# package's version, the image's tag and every bundle's release URL and file
# name get VERSION, and each bundle's fileSha256 is the sha256 of the file of
# that name in BUNDLEDIR (folio_VERSION_<os>_<arch>.mcpb, from
# packaging/mcpb). Every .mcpb in BUNDLEDIR must be one the entry lists,
# and every one it lists must be there; the npm package and the server's
# name must be packaging/npm/package.json's name and mcpName. BUNDLEDIR and
# OUTDIR may be one directory. Prints the path of the file it wrote.
# Needs node (as packaging/npm/pack.sh does).
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: packaging/registry/server-json.sh VERSION BUNDLEDIR OUTDIR" >&2
	exit 2
fi
version=${1#v}
bundledir=$2
outdir=$3
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
	echo "packaging/registry/server-json.sh: $1 is not a semantic version (0.3.1, v0.3.1, 0.3.1-rc.1)" >&2
	exit 2
fi
if [ ! -d "$bundledir" ]; then
	echo "packaging/registry/server-json.sh: no directory $bundledir" >&2
	exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
bundledir=$(cd "$bundledir" && pwd)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
node - "$here/../../server.json" "$here/../npm/package.json" "$bundledir" "$outdir" "$version" <<'JS'
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const [src, npmPackage, bundledir, outdir, version] = process.argv.slice(2);
const fail = (msg) => {
	process.stderr.write(`packaging/registry/server-json.sh: ${msg}\n`);
	process.exit(1);
};
const entry = JSON.parse(fs.readFileSync(src, "utf8"));
const base = entry.version;
const { name: npmName, mcpName } = JSON.parse(fs.readFileSync(npmPackage, "utf8"));
if (mcpName !== entry.name) {
	fail(`server.json names ${entry.name}, packaging/npm/package.json's mcpName is ${mcpName}: they must agree`);
}
// Every "0.0.0" (the repository's version) in these strings is the release's.
const stamp = (s) => {
	if (!s.includes(base)) fail(`${s} does not carry the version of server.json (${base})`);
	return s.split(base).join(version);
};
entry.version = version;
const listed = new Set();
for (const p of entry.packages) {
	switch (p.registryType) {
	case "npm":
		if (p.identifier !== npmName) {
			fail(`server.json's npm package is ${p.identifier}, packaging/npm/package.json's name is ${npmName}`);
		}
		p.version = version;
		break;
	case "oci":
		p.identifier = stamp(p.identifier);
		break;
	case "mcpb": {
		p.identifier = stamp(p.identifier);
		const name = path.basename(new URL(p.identifier).pathname);
		const file = path.join(bundledir, name);
		if (!fs.existsSync(file)) {
			fail(`no ${file}: the entry lists the bundle ${p.identifier} (build it with packaging/mcpb)`);
		}
		p.fileSha256 = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
		listed.add(name);
		break;
	}
	default:
		fail(`server.json has a package of registry type ${p.registryType}, which this script does not stamp`);
	}
}
for (const name of fs.readdirSync(bundledir).filter((n) => n.endsWith(".mcpb"))) {
	if (!listed.has(name)) {
		fail(`${path.join(bundledir, name)} is not a bundle of ${version} that server.json lists (${[...listed].join(", ")})`);
	}
}
const out = path.join(outdir, "server.json");
fs.writeFileSync(out, JSON.stringify(entry, null, 2) + "\n");
console.log(out);
JS
