// Package mcpserver is folio's MCP server, built on the official go-sdk:
// the tools read and list, the served files as resources with
// subscriptions, and who the caller is (stdio, or bearer tokens over
// Streamable HTTP, each with its allow list).
//
// It re-implements neither paging nor path checks: a call takes the
// caller's identity, narrows the file view to the caller's allow list
// (fsview), and hands the read to reader, which verifies the cursor and
// fits the page.
//
// Each file is named for the path it belongs to:
//
//   - The server and every request's way through it: server.go (Config,
//     New, the stdio and in-process transports), pipeline.go (the MCP
//     stages every request passes, in order), tool.go (the tool table),
//     record.go (a call's one record and its target), and what reads the
//     record: observe.go (metrics and traces), audit.go (the audit log);
//     requestid.go keeps each request's JSON-RPC id for observe, off the
//     wire of any transport; sessions.go is the state of each session
//     and its caps; outgoing.go writes what go-sdk's types cannot hold
//     into an answer as it leaves; cache.go sets results' caching hints;
//     admin.go is the admin listener's readiness and metrics.
//   - The page path, folio's own tools and features, a file each, named
//     for the tool: read.go, list.go, grep.go, outline.go, fold.go
//     (result_query, and folding large answers into handles),
//     resources.go, prompts.go, llmstxt.go (the made llms.txt files),
//     watch.go (changes to the served files).
//   - Docs search: searchdocs.go, the search_docs tool and its index.
//   - The gateway, gateway_*.go: gateway.go (upstream tools listed beside
//     folio's own, their calls sent to their upstream), gateway_catalog.go
//     (the state kept per catalog of upstream tools),
//     gateway_toolsearch.go (search mode's meta-tools),
//     gateway_references.go and gateway_refargs.go (references to
//     resources in an upstream call's arguments), and gateway_inputs.go
//     (what an upstream asks the client within a call).
//   - Auth: auth.go, who the caller is (bearer tokens, OAuth, the tokens
//     file, the allow list's view) and the HTTP challenges.
//   - The HTTP transport, http*.go: http.go (the handler folio serves;
//     httpStack, its stages in order), http_guard.go (body bounds, a request's
//     context kept while it is handled), http_ratelimit.go (each
//     subject's rate).
package mcpserver
