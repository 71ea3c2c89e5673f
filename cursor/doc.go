// Package cursor encodes and verifies folio's continuation cursors.
//
// A cursor is a decimal number of at most 68 digits (63 for offsets below
// 16 MiB), since digits tokenize densest: about 22 tokens where the 58
// characters of base64url it replaced took 38. It holds the byte offset,
// the minute the chain of cursors began, 16 bits of an HMAC of the URI and
// subject (the tag), the version's first 16 bits (the hint), and a 128-bit
// truncated HMAC-SHA256 over the format and those fields, the whole
// 128-bit content version, the canonical URI and the caller's subject. The version
// is not in the cursor: the continuation's read computes it, and only the
// version the cursor was issued for verifies. The tag and hint choose the
// error of a cursor that does not verify: a cursor of this URI and subject
// whose file has another version is ErrChanged, any other ErrInvalid. A key
// ring holds several keys: the newest signs, all verify, so keys rotate
// without breaking cursors in flight. Cursors expire after a TTL, counted
// from the issue minute. The package knows nothing of files or MCP.
package cursor
