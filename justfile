# The same commands as README.md, CONTRIBUTING.md and docs/benchmarks.md;
# nothing requires just.

# Read README.md as token-budgeted pages.
run:
    go run ./cmd/folio read --max-tokens 2000 README.md

# The test command.
test:
    go test ./...

# What CI runs.
ci:
    bash .ci/run

# Every release artifact into dist/, as a snapshot of this tree: the
# archives, their SBOMs and the checksums (goreleaser), the npm packages,
# the MCP bundles, the OCI image and the MCP Registry entry
# (packaging/dist.sh; needs goreleaser, syft, node, npm and zip:
# CONTRIBUTING.md, Releasing).
dist:
    packaging/dist.sh --snapshot

# Benchmarks of the pager and the token counter, for benchstat.
bench:
    go test ./pager ./pager/bpe -run '^$' -bench . -count 6

# 50 clients page over HTTP for 60 s: pages/s, p50/p99, errors, over budget, RSS.
load:
    ./bench/load.sh

# folio's token counter against tiktoken-go and tiktoken (needs npm).
tokcount:
    ./bench/tokcount.sh

# Regenerate the vocabularies, the Unicode classes and the tiktoken reference
# table (needs npm), then the vocabularies' indexes.
tokref:
    cd testdata/tokref && npm ci --no-audit --no-fund && node generate.mjs
    go test ./pager/bpe -run TestIndexIsCurrent -update

# Fuzz each target for a minute.
fuzz:
    go test ./pager -run '^$' -fuzz FuzzReconstruction -fuzztime 60s
    go test ./pager -run '^$' -fuzz FuzzSplitPoints -fuzztime 60s
    go test ./pager/bpe -run '^$' -fuzz 'FuzzSplit$' -fuzztime 60s
    go test ./pager/bpe -run '^$' -fuzz FuzzSplitRegexp -fuzztime 60s
    go test ./pager/bpe -run '^$' -fuzz FuzzMerge -fuzztime 60s
    go test ./cursor -run '^$' -fuzz FuzzDecode -fuzztime 60s
    go test ./fsview -run '^$' -fuzz FuzzResolve -fuzztime 60s
    go test ./fsview -run '^$' -fuzz FuzzDeny -fuzztime 60s
    go test ./fsview -run '^$' -fuzz FuzzIgnorePattern -fuzztime 60s
    go test ./tokens -run '^$' -fuzz FuzzTokensFile -fuzztime 60s
    go test ./mcpserver -run '^$' -fuzz FuzzToolArguments -fuzztime 60s
    go test ./mcpserver -run '^$' -fuzz FuzzAuthorization -fuzztime 60s
    go test ./mcpserver -run '^$' -fuzz FuzzRefArgs -fuzztime 60s
    go test ./oauth -run '^$' -fuzz FuzzVerify -fuzztime 60s
    go test ./grep -run '^$' -fuzz FuzzGrepPattern -fuzztime 60s
    go test ./grep -run '^$' -fuzz FuzzGrepChunks -fuzztime 60s
    go test ./internal/jsonvalue -run '^$' -fuzz FuzzParse -fuzztime 60s
    go test ./internal/jsonvalue -run '^$' -fuzz FuzzSkipValue -fuzztime 60s
    go test ./fold -run '^$' -fuzz FuzzParsePath -fuzztime 60s
    go test ./fold -run '^$' -fuzz FuzzFind -fuzztime 60s
    go test ./fold -run '^$' -fuzz FuzzShapeAndPreview -fuzztime 60s
    go test ./fold -run '^$' -fuzz FuzzQuery -fuzztime 60s
    go test ./schema -run '^$' -fuzz FuzzCompile -fuzztime 60s
    go test ./upstream -run '^$' -fuzz FuzzToolNamesAreOneToOne -fuzztime 60s
    go test ./outline -run '^$' -fuzz FuzzMarkdown -fuzztime 60s
    go test ./outline -run '^$' -fuzz FuzzHTML -fuzztime 60s
    go test ./outline -run '^$' -fuzz FuzzFormats -fuzztime 60s
    go test ./outline -run '^$' -fuzz FuzzSource -fuzztime 60s
    go test ./lexicon -run '^$' -fuzz FuzzLookup -fuzztime 60s
    go test ./lexicon -run '^$' -fuzz FuzzTable -fuzztime 60s
    go test ./docsearch -run '^$' -fuzz FuzzWords -fuzztime 60s
    go test ./docsearch -run '^$' -fuzz FuzzLoad -fuzztime 60s

# Compile WordNet's files (Debian's wordnet-base, or the directory
# FOLIO_WORDNET names) into lexicon's table.
lexicon:
    go generate ./lexicon

# folio against @modelcontextprotocol/server-filesystem (needs npm).
compare:
    ./bench/fscompare.sh

# Every harness under bench/ once on a tiny setting, as CI runs them (needs
# npm, rg, curl).
smoke:
    ./bench/smoke.sh
