// Package upstream is folio's side of the user's other MCP servers: their
// configuration (the mcpServers JSON that Claude Desktop, Claude Code and
// Cursor read), the fingerprint that tells when an entry changed, the
// names their tools take behind folio, the schema cache file that lets
// folio advertise their tools before connecting, and the discovery that
// fills it.
package upstream
