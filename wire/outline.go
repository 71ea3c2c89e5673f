package wire

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/folio-mcp/folio/toolerr"
)

// Outline is the name of the tool that outlines a file or a directory.
const Outline = "outline"

// MaxSectionBytes is the longest section a read takes (a heading path or
// an anchor).
const MaxSectionBytes = 1024

// OutlineArgs are the arguments of outline. Its schema leaves the
// obvious unsaid (but for the forms a path takes, as every tool's does):
// tools/list carries it to every client.
type OutlineArgs struct {
	// Path is a file or a directory; empty for the first root.
	Path      string `json:"path,omitempty"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
	Cursor    string `json:"cursor,omitempty"`
	// FormerPath is path by its former name, uri (see Rename).
	FormerPath string `json:"uri,omitempty"`
}

// Check reports path given twice (see Rename) or a max_tokens out of
// range.
func (a OutlineArgs) Check() *toolerr.Error {
	if e := a.Rename(); e != nil {
		return e
	}
	return checkMaxTokens(a.MaxTokens, MaxTokensLimit)
}

// OutlineSchema is outline's input schema.
func OutlineSchema() json.RawMessage {
	return derive[OutlineArgs](map[string]func(*jsonschema.Schema){
		"path":       describe("file, or directory"),
		"max_tokens": atLeast(1),
	})
}
