package fold

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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
	return f.References(owner, -1).Resolve(ctx, uri)
}

// ErrReadLimit is the error of References past their limit.
var ErrReadLimit = errors.New("fold: the references read more than they may")

// References resolves the references of one call for owner, as Resolve
// does, reading and decrypting each folded answer once however often it
// is named; the answers read come to at most limit bytes (ErrReadLimit
// past that; no limit when negative).
func (f *Folder) References(owner Owner, limit int) *References {
	return &References{f: f, owner: owner, limit: limit, loaded: map[string]loaded{}}
}

// References is the reference resolver of one call (see
// Folder.References). It is not safe for concurrent use.
type References struct {
	f      *Folder
	owner  Owner
	limit  int
	read   int
	loaded map[string]loaded // by handle
}

// loaded is a folded answer read, or why it could not be.
type loaded struct {
	data []byte
	err  error
}

// Resolve returns the JSON that the reference uri names (see
// Folder.Resolve).
func (r *References) Resolve(ctx context.Context, uri string) ([]byte, error) {
	if !IsReference(uri) {
		return nil, toolerr.Invalid("%q is not an %s reference", uri, Scheme)
	}
	handle, fragment, _ := strings.Cut(strings.TrimPrefix(uri, Scheme), "#")
	var segs []string
	if fragment != "" {
		// A pointer in a URI fragment is percent-encoded (RFC 6901,
		// section 6); one that does not decode is taken as it is.
		pointer, err := url.PathUnescape(fragment)
		if err != nil {
			pointer = fragment
		}
		if !strings.HasPrefix(pointer, "/") {
			return nil, toolerr.New(toolerr.CodePathNotFound, "the fragment of %s is not a JSON pointer (it starts with /, percent-encoded or not)", uri)
		}
		if segs, err = parsePath(pointer); err != nil {
			return nil, toolerr.New(toolerr.CodePathNotFound, "%v", err)
		}
	}
	l, ok := r.loaded[handle]
	if !ok {
		l.data, l.err = r.f.load(ctx, r.owner, handle)
		if l.err == nil && r.limit >= 0 && r.read+len(l.data) > r.limit {
			return nil, fmt.Errorf("%w: %s is %d bytes, past the %d the references of one call may read", ErrReadLimit, Scheme+handle, len(l.data), r.limit)
		}
		if l.err == nil || !errors.Is(l.err, ctx.Err()) {
			r.read += len(l.data)
			r.loaded[handle] = l
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	raw, err := find(ctx, l.data, segs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, toolerr.New(toolerr.CodePathNotFound, "%s: %v", shorten(uri), err)
	}
	return raw, nil
}

// shorten is s cut to pointerShown characters, for a message.
func shorten(s string) string {
	if r := []rune(s); len(r) > pointerShown {
		return string(r[:pointerShown]) + "…"
	}
	return s
}
