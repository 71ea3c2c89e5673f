// Package schema judges JSON values against JSON schemas that come from
// other people's servers (upstream tools' input and output schemas), within
// bounds: a schema folio cannot judge in bounded time and memory (one too
// large or too deep, with remote, dynamic or cyclic references, or whose
// references would unfold into too many checks) is ErrCannotJudge, and so
// is a value too large to check against it. Whoever asked then passes the
// value over and lets the upstream judge it. Validation itself is
// github.com/google/jsonschema-go.
package schema
