#!/usr/bin/env bash
# Captures catalogs.json: the tools/list of real MCP servers from the npm
# registry, as each advertises it, with its package and version. It
# installs the packages named in catalogs.json (at their versions), starts
# each through folio upstreams refresh with dummy credentials (listing
# tools needs none), and writes what they listed. Needs npm and Go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
node -e '
const c = require(process.argv[1]);
console.log(c.servers.map(s => s.package + "@" + s.version).join("\n"));
' "$here/catalogs.json" | PUPPETEER_SKIP_DOWNLOAD=1 xargs npm install --no-audit --no-fund --ignore-scripts --loglevel error >/dev/null
node -e '
const fs = require("fs"), c = require(process.argv[1]), servers = {};
for (const s of c.servers) {
  const pj = require(process.cwd() + "/node_modules/" + s.package + "/package.json");
  const bin = typeof pj.bin === "string" ? pj.bin : Object.values(pj.bin)[0];
  servers[s.name] = {command: "node", args: [process.cwd() + "/node_modules/" + s.package + "/" + bin, ...s.args],
    env: Object.fromEntries(s.env.map(k => [k, "x"]))};
}
fs.writeFileSync("mcp.json", JSON.stringify({mcpServers: servers}));
' "$here/catalogs.json"
(cd "$here/../.." && go run ./cmd/folio upstreams refresh --upstreams "$work/mcp.json" --schema-cache "$work/cache.json" --upstream-timeout 40s)
node -e '
const fs = require("fs"), c = require(process.argv[1]), cache = require(process.cwd() + "/cache.json");
for (const s of c.servers) {
  const e = cache.upstreams[s.name];
  Object.assign(s, {server: e.server || "", server_version: e.version || "", protocol: e.protocol || "", tools: e.tools});
}
fs.writeFileSync(process.argv[1], JSON.stringify(c, null, 1) + "\n");
' "$here/catalogs.json"
