package fold

import (
	"context"
	"strings"

	"github.com/folio-mcp/folio/toolerr"
)

// Scheme starts a reference to a folded answer:
// mcp+cache://HANDLE, or mcp+cache://HANDLE#/json/pointer for a part of it.
const Scheme = "mcp+cache://"

// URI is the reference to the folded answer handle, or to the part of it
// that the JSON pointer names ("" for the whole).
func URI(handle, pointer string) string {
	if pointer == "" {
		return Scheme + handle
	}
	return Scheme + handle + "#" + pointer
}

// IsReference reports whether s is a reference to a folded answer.
func IsReference(s string) bool { return strings.HasPrefix(s, Scheme) }

// Resolve returns the JSON that the reference uri names, for owner: the
// folded answer, or the part of it its pointer fragment names. A reference
// that is unknown, expired, or another session's or caller's is
// CodeHandleNotFound (they look the same); a pointer that names nothing
// is CodePathNotFound.
func (f *Folder) Resolve(ctx context.Context, owner Owner, uri string) ([]byte, error) {
	if !IsReference(uri) {
		return nil, toolerr.New(toolerr.CodeInvalidArgument, "%q is not an %s reference", uri, Scheme)
	}
	handle, pointer, _ := strings.Cut(strings.TrimPrefix(uri, Scheme), "#")
	var segs []string
	if pointer != "" {
		var err error
		if !strings.HasPrefix(pointer, "/") {
			return nil, toolerr.New(toolerr.CodePathNotFound, "the fragment of %s is not a JSON pointer (it starts with /)", uri)
		}
		if segs, err = ParsePath(pointer); err != nil {
			return nil, toolerr.New(toolerr.CodePathNotFound, "%v", err)
		}
	}
	data, err := f.load(ctx, owner, handle)
	if err != nil {
		return nil, err
	}
	raw, err := find(data, segs)
	if err != nil {
		return nil, toolerr.New(toolerr.CodePathNotFound, "%s: %v", uri, err)
	}
	return raw, nil
}
