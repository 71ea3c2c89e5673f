#!/usr/bin/env python3
"""Checks requests.jsonl against catalogs.json and prints counts.

Every label must be an existing server__tool; ids and queries unique;
style one of the five; every server of catalogs.json covered (at least
2 requests, 3 for a server with 2+ tools). Also reports how many requests
share few words with their tools' names and descriptions (overlap <= 1
content word), overall and per batch of ids.
"""
import collections, json, re, sys, os

here = os.path.dirname(os.path.abspath(__file__))
cat = json.load(open(os.path.join(here, "catalogs.json")))
tools = {}
for s in cat["servers"]:
    for t in s["tools"]:
        tools[s["name"] + "__" + t["name"]] = t["name"] + " " + (t.get("description") or "")
# the batches the requests were written in (first and last id number)
BATCHES = [("r001-r245", 1, 245), ("r246-r410", 246, 410)]
STYLES = {"plain", "paraphrase", "jargon", "context", "typo"}
STOP = set("a an the to of in on for and or with my me i is are it its this that be by from at as do what which how any all our we you your just so not get".split())

def words(s):
    return {w for w in re.findall(r"[a-z0-9]+", s.lower().replace("_", " ").replace("-", " ")) if w not in STOP and len(w) > 1}

bad, ids, queries, labelled = [], set(), set(), set()
by_server, by_style, low, n = collections.Counter(), collections.Counter(), 0, 0
batch_n, batch_low = collections.Counter(), collections.Counter()
for ln, line in enumerate(open(os.path.join(here, "requests.jsonl")), 1):
    r = json.loads(line)
    n += 1
    if set(r) != {"id", "query", "tools", "style"}:
        bad.append(f"line {ln}: keys {sorted(r)}")
    if r["id"] in ids: bad.append(f"line {ln}: duplicate id {r['id']}")
    if r["query"] in queries: bad.append(f"line {ln}: duplicate query")
    ids.add(r["id"]); queries.add(r["query"])
    if r["style"] not in STYLES: bad.append(f"line {ln}: style {r['style']}")
    if not r["tools"] or len(set(r["tools"])) != len(r["tools"]):
        bad.append(f"line {ln}: empty or repeated tools")
    for t in r["tools"]:
        if t not in tools: bad.append(f"line {ln}: unknown tool {t}")
        labelled.add(t)
    for srv in sorted({t.split("__")[0] for t in r["tools"]}):
        by_server[srv] += 1
    by_style[r["style"]] += 1
    desc = set().union(*(words(tools.get(t, "")) for t in r["tools"]))
    few = len(words(r["query"]) & desc) <= 1
    low += few
    num = int(r["id"][1:]) if re.fullmatch(r"r\d+", r["id"]) else 0
    for name, lo, hi in BATCHES:
        if lo <= num <= hi:
            batch_n[name] += 1; batch_low[name] += few
for s in cat["servers"]:
    need = 3 if len(s["tools"]) >= 2 else 2
    if by_server[s["name"]] < need:
        bad.append(f"server {s['name']}: only {by_server[s['name']]} requests")
print(f"{n} requests; low word overlap with their tools: {low} ({100*low/n:.0f}%)")
for name, _, _ in BATCHES:
    if batch_n[name]:
        print(f"  {name}: {batch_low[name]} of {batch_n[name]} ({100*batch_low[name]/batch_n[name]:.0f}%)")
print(f"tools with at least one request: {len(labelled)} of {len(tools)}")
print("per server (a request counts for each server among its tools):")
for s in cat["servers"]:
    hit = sum(1 for t in s["tools"] if s["name"] + "__" + t["name"] in labelled)
    print(f"  {s['name']:11} {len(s['tools']):3} tools {by_server[s['name']]:3} requests {hit:3} tools labelled")
print("per style:", dict(sorted(by_style.items())))
if bad:
    print("\n".join(bad)); sys.exit(1)
