// Package mcpserver is folio's MCP server, built on the official go-sdk:
// the tools read and list, the served files as resources with
// subscriptions, and who the caller is (stdio, or bearer tokens over
// Streamable HTTP, each with its allow list).
//
// It re-implements neither paging nor path checks: a call takes the
// caller's identity, narrows the file view to the caller's allow list
// (fsview), and hands the read to reader, which verifies the cursor and
// fits the page.
package mcpserver
