// Package fsview is folio's root-confined view of files.
//
// It turns every spelling of a file (a path relative to the first root, an
// absolute path inside a root, a file:// URI) into one canonical file://
// URI, refuses anything that would leave its roots (.., absolute paths
// outside, symlinks that lead out), applies the visibility policy (deny
// globs, a size cap, text detection, and for walks the ignore files) and
// takes one consistent Snapshot of a
// file: the BLAKE3 version of all its bytes and a window of the same bytes,
// from one read. A view may also be given a Maker, whose files (a root's
// served llms.txt) Open gives as files of the root where the root holds
// none of that name. It knows nothing of MCP, tokens or cursors.
package fsview
