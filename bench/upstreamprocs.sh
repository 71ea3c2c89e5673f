#!/usr/bin/env bash
# Measures what upstreams cost the machine with --upstream-start eager and
# on-demand: real MCP servers from the npm registry (the versions
# testdata/toolcatalogs/catalogs.json names; dummy credentials, listing
# tools needs none) behind folio serve, their schema cache warm: the
# twelve named below, or those whose catalog names are the arguments. For
# each mode it waits until folio is ready (and, eager, every upstream
# runs), lets it settle (UPSTREAMPROCS_SETTLE seconds, 5 by default), and
# counts the processes under folio and their resident memory. It fails if
# folio is not ready within two minutes, or if eager runs fewer processes
# than upstreams or on-demand runs any. Needs npm, node, Go, curl and ps;
# bench/smoke.sh runs it with two upstreams.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
names="${*:-brave context7 everart everything exa filesystem github gitlab maps memory tavily thinking}"
count=$(wc -w <<<"$names")
settle=${UPSTREAMPROCS_SETTLE:-5}
npm init -y >/dev/null
node -e '
const c = require(process.argv[1]), names = process.argv[2].split(" ");
const servers = c.servers.filter(s => names.includes(s.name));
const unknown = names.filter(n => !servers.some(s => s.name === n));
if (unknown.length > 0) {
  console.error("not in testdata/toolcatalogs/catalogs.json: " + unknown.join(" "));
  process.exit(1);
}
console.log(servers.map(s => s.package + "@" + s.version).join("\n"));
' "$here/testdata/toolcatalogs/catalogs.json" "$names" | PUPPETEER_SKIP_DOWNLOAD=1 xargs -r npm install --no-audit --no-fund --ignore-scripts --loglevel error >/dev/null
node -e '
const fs = require("fs"), c = require(process.argv[1]), names = process.argv[2].split(" "), servers = {};
for (const s of c.servers.filter(s => names.includes(s.name))) {
  const pj = require(process.cwd() + "/node_modules/" + s.package + "/package.json");
  const bin = typeof pj.bin === "string" ? pj.bin : Object.values(pj.bin)[0];
  servers[s.name] = {command: "node", args: [process.cwd() + "/node_modules/" + s.package + "/" + bin, ...s.args],
    env: Object.fromEntries(s.env.map(k => [k, "x"]))};
}
fs.writeFileSync("mcp.json", JSON.stringify({mcpServers: servers}));
' "$here/testdata/toolcatalogs/catalogs.json" "$names"
(cd "$here" && go build -o "$work/folio" ./cmd/folio)
./folio upstreams refresh --upstreams mcp.json --schema-cache cache.json --upstream-timeout 40s >/dev/null
mkdir root

# descendants prints the processes under pid, one per line.
descendants() {
	local pid=$1 child
	for child in $(ps -o pid= --ppid "$pid"); do
		echo "$child"
		descendants "$child"
	done
}
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# until_ready waits for the command it is given to succeed, for at most two
# minutes, while folio (pid $folio, its log $log) runs.
until_ready() {
	local deadline=$((SECONDS + 120))
	until "$@"; do
		if ! kill -0 "$folio" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
			echo "folio is not ready ($*):" >&2
			cat "$log" >&2
			exit 1
		fi
		sleep 0.2
	done
}
admin_addr() { admin=$(grep -o 'msg="admin listening" addr=[^ ]*' "$log" | sed 's/.*addr=//') && [ -n "$admin" ]; }
ready() { curl -sf "http://$admin/readyz" >/dev/null; }
running() { [ "$(curl -s "http://$admin/readyz" | grep -c '"state": "running"')" = "$count" ]; }

printf '| mode | processes under folio | their RSS | folio RSS |\n| --- | --- | --- | --- |\n'
for mode in eager on-demand; do
	: >"$mode.log" # there before folio writes to it, for admin_addr to read
	./folio serve --root root --http 127.0.0.1:0 --admin 127.0.0.1:0 --upstreams mcp.json --schema-cache cache.json \
		--upstream-start "$mode" --upstream-timeout 40s 2>"$mode.log" &
	folio=$! log=$mode.log admin=""
	until_ready admin_addr
	until_ready ready
	if [ "$mode" = eager ]; then
		until_ready running
	fi
	sleep "$settle"
	procs=0 kb=0
	for p in $(descendants "$folio"); do
		procs=$((procs + 1))
		kb=$((kb + $(rss "$p")))
	done
	printf '| %s | %d | %d MiB | %d MiB |\n' "$mode" "$procs" $((kb / 1024)) $(($(rss "$folio") / 1024))
	kill "$folio"
	wait "$folio" || true
	if { [ "$mode" = eager ] && [ "$procs" -lt "$count" ]; } || { [ "$mode" = on-demand ] && [ "$procs" != 0 ]; }; then
		echo "$mode: $procs processes under folio for $count upstreams" >&2
		exit 1
	fi
done
