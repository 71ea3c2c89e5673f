// Package reader is folio's read operation: the one place where fsview,
// cursor and pager meet, for the command line and the MCP server alike.
//
// A page read flows one way: resolve and authorise the name (fsview), verify
// the cursor against the canonical URI and the subject (cursor), take one
// snapshot of the file, refuse a changed version, and fit the page (pager);
// a first page may start at a line. Line reads count lines from 1, read a
// tail with a negative offset, and may be bounded by lines, by a token cap
// and by cut long lines; their footer says where they are and how to go on.
// Every failure is an error with one of the codes of the page contract.
package reader
