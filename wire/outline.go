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
// obvious unsaid: tools/list carries it to every client.
type OutlineArgs struct {
	// URI is a file or a directory; empty for the first root.
	URI       string `json:"uri,omitempty"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
	Cursor    string `json:"cursor,omitempty"`
}

// Check reports a max_tokens out of range.
func (a OutlineArgs) Check() *toolerr.Error {
	if a.MaxTokens != nil && (*a.MaxTokens <= 0 || *a.MaxTokens > MaxTokensLimit) {
		return toolerr.Invalid("max_tokens must be between 1 and %d", MaxTokensLimit)
	}
	return nil
}

// OutlineSchema is outline's input schema.
func OutlineSchema() json.RawMessage {
	return derive[OutlineArgs](map[string]func(*jsonschema.Schema){"max_tokens": atLeast(1)})
}
