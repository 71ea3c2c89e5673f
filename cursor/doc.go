// Package cursor encodes and verifies folio's continuation cursors.
//
// A cursor is 43 bytes in base64url (58 characters): format, key id, byte
// offset, the 128-bit content version, issue time, and a 128-bit truncated
// HMAC-SHA256 over those fields plus the canonical URI and the caller's
// subject. A key ring holds several keys: the newest signs, all verify, so
// keys rotate without breaking cursors in flight. Cursors expire after a TTL.
// The package knows nothing of files or MCP.
package cursor
