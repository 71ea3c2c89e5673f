// Package reader is folio's read operation: the one place where fsview,
// cursor and pager meet, for the command line and the MCP server alike.
//
// A page read flows one way: resolve and authorise the name (fsview), verify
// the cursor against the canonical URI and the subject (cursor), take one
// snapshot of the file, refuse a changed version, and fit the page (pager).
// Line reads keep the plain line mode. Every failure is an *Error with one
// of the codes of the page contract.
package reader
