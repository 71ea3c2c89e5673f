module github.com/folio-mcp/folio/bench/tokcount

go 1.26.0

require (
	github.com/folio-mcp/folio v0.0.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
)

replace github.com/folio-mcp/folio => ../..

tool golang.org/x/perf/cmd/benchstat
