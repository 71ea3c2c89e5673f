module github.com/folio-mcp/folio/bench/tokcount

go 1.26.0

require (
	github.com/folio-mcp/folio v0.0.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require github.com/dlclark/regexp2/v2 v2.5.1 // indirect

replace github.com/folio-mcp/folio => ../..
