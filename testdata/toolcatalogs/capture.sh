#!/usr/bin/env bash
# Captures catalogs.json: the tools/list of real MCP servers from the npm
# registry (43 servers, 735 tools), as each advertises it, with its package
# and version. It installs the packages named in catalogs.json (at their
# versions), each in a folder of its own (installed together, npm spent
# half an hour resolving them), starts each through folio upstreams
# refresh with dummy credentials (every env name set to "x"; listing tools
# needs none), and writes what they listed.
#
#   capture.sh            captures every server in catalogs.json
#   capture.sh NAME...    captures only those (the others stay as they are)
#
# A server is added by adding its entry (name, package, version, args, env)
# and capturing its name. Needs npm and Go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
node -e '
const c = require(process.argv[1]), want = process.argv.slice(2);
const unknown = want.filter(n => !c.servers.some(s => s.name === n));
if (unknown.length) { console.error("not in catalogs.json: " + unknown.join(" ")); process.exit(1); }
for (const s of c.servers) if (!want.length || want.includes(s.name)) console.log(s.name + " " + s.package + "@" + s.version);
' "$here/catalogs.json" "$@" >selected
while read -r name spec; do
  mkdir -p "pkgs/$name" && echo '{}' >"pkgs/$name/package.json"
  echo "$name $spec"
done <selected | PUPPETEER_SKIP_DOWNLOAD=1 xargs -P 4 -L 1 sh -c \
  'cd "pkgs/$0" && npm install --no-audit --no-fund --ignore-scripts --loglevel error "$1" >/dev/null'
node -e '
const fs = require("fs"), c = require(process.argv[1]), servers = {};
const want = fs.readFileSync("selected", "utf8").trim().split("\n").map(l => l.split(" ")[0]);
for (const s of c.servers.filter(s => want.includes(s.name))) {
  const dir = process.cwd() + "/pkgs/" + s.name + "/node_modules/" + s.package;
  const pj = require(dir + "/package.json");
  const bin = typeof pj.bin === "string" ? pj.bin : Object.values(pj.bin)[0];
  servers[s.name] = {command: "node", args: [dir + "/" + bin, ...s.args],
    env: Object.fromEntries(s.env.map(k => [k, "x"]))};
}
fs.writeFileSync("mcp.json", JSON.stringify({mcpServers: servers}));
' "$here/catalogs.json"
(cd "$here/../.." && go run ./cmd/folio upstreams refresh --upstreams "$work/mcp.json" --schema-cache "$work/cache.json" --upstream-timeout 40s)
node -e '
const fs = require("fs"), c = require(process.argv[1]), cache = require(process.cwd() + "/cache.json");
for (const s of c.servers) {
  const e = cache.upstreams[s.name];
  if (!e) continue;
  Object.assign(s, {server: e.server || "", server_version: e.version || "", protocol: e.protocol || "", tools: e.tools});
}
fs.writeFileSync(process.argv[1], JSON.stringify(c, null, 1) + "\n");
' "$here/catalogs.json"
