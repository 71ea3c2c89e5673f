// Package upstream is folio's side of the user's other MCP servers: their
// configuration (the mcpServers JSON that Claude Desktop, Claude Code and
// Cursor read), the fingerprint that tells when an entry changed, the
// names their tools take behind folio, the schema cache file that lets
// folio advertise their tools before connecting, and the discovery that
// fills it.
//
// The Gateway holds them (gateway.go: start, discovery, close); the
// catalog is the fixed list of tools a session is offered (catalog.go);
// a call goes to its upstream in calls.go, and the progress an upstream
// notifies comes back to its caller through progress.go.
package upstream
