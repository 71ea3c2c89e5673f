package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/folio-mcp/folio/toolerr"
)

// SearchDocs is the name of the docs search tool.
const SearchDocs = "search_docs"

// Limits of search_docs.
const (
	// DefaultAnswerTokens is an answer's budget when max_tokens is not
	// given; MaxAnswerTokens the largest it may be.
	DefaultAnswerTokens = 2000
	MaxAnswerTokens     = 32000
	// MaxQueryBytes and MaxQueryWords bound a question.
	MaxQueryBytes = 2000
	MaxQueryWords = 64
)

// SearchDocsArgs are the arguments of search_docs.
type SearchDocsArgs struct {
	Query     string `json:"query" jsonschema:"the question, in plain words"`
	Path      string `json:"path,omitempty"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
	// FormerPath is path by its former name, uri (see Rename).
	FormerPath string `json:"uri,omitempty"`
}

// Check reports path given twice (see Rename), an empty or too long
// question, or a budget out of range.
func (a SearchDocsArgs) Check() *toolerr.Error {
	if e := a.Rename(); e != nil {
		return e
	}
	switch {
	case strings.TrimSpace(a.Query) == "":
		return toolerr.Invalid("query must ask something: a question in plain words")
	case len(a.Query) > MaxQueryBytes || !utf8.ValidString(a.Query):
		return toolerr.Invalid("query must be UTF-8 text of at most %d bytes: ask a shorter question", MaxQueryBytes)
	case len(strings.Fields(a.Query)) > MaxQueryWords:
		return toolerr.Invalid("query has more than %d words: ask a shorter question", MaxQueryWords)
	}
	return checkMaxTokens(a.MaxTokens, MaxAnswerTokens)
}

// SearchDocsSchema is search_docs' input schema.
func SearchDocsSchema() json.RawMessage {
	return derive[SearchDocsArgs](map[string]func(*jsonschema.Schema){
		"path": describe("file or directory to search under"),
		"max_tokens": func(s *jsonschema.Schema) {
			between(1, MaxAnswerTokens)(s)
			s.Description = fmt.Sprintf("answer budget, default %d", DefaultAnswerTokens)
		},
	})
}
