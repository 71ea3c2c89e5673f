package wire

import (
	"encoding/json"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

func TestReadArgs(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		args  ReadArgs
		paged bool
		want  string
	}{
		{ReadArgs{URI: "f"}, false, ""},
		{ReadArgs{URI: "f", Offset: n(-5), Limit: n(3)}, false, ""},
		{ReadArgs{URI: "f", Offset: n(1), Limit: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(100), Line: n(7), Format: "text"}, true, ""},
		{ReadArgs{URI: "f", Line: n(7)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(100), Line: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(100), Line: n(2), Cursor: "c"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(100), Format: "yaml"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", Format: "text"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URIs: []string{"a", "b"}}, false, ""},
		{ReadArgs{URI: "f", MaxTokens: n(100)}, true, ""},
		{ReadArgs{URI: "f", MaxTokens: n(100), Cursor: "c"}, true, ""},
		{ReadArgs{URI: "f", Cursor: "c"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(100), Offset: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", Cursor: "c", Limit: n(3)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URIs: []string{"a"}, MaxTokens: n(100)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", URIs: []string{"a"}}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{URI: "f", MaxTokens: n(0)}, false, toolerr.CodeInvalidArgument},
	} {
		paged, err := tc.args.Paged()
		if mcptest.Code(err) != tc.want || (err == nil && paged != tc.paged) {
			t.Errorf("%+v: paged %v, err %v", tc.args, paged, err)
		}
	}
}

// TestSchemas: the schemas derived from the argument types name every
// field the arguments decode, take nothing else, and never take null.
func TestSchemas(t *testing.T) {
	for name, c := range map[string]struct {
		schema   json.RawMessage
		required []string
	}{
		"read":         {ReadSchema(pager.Text), nil},
		"list":         {ListSchema(), nil},
		"grep":         {GrepSchema(), []string{"pattern"}},
		"result_query": {ResultQuerySchema(), []string{"handle"}},
	} {
		var s struct {
			Type       string
			Properties map[string]struct {
				Type        string
				Description string
				Enum        []string
			}
			Required             []string
			AdditionalProperties *bool
		}
		if err := json.Unmarshal(c.schema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties || len(s.Required) != len(c.required) {
			t.Errorf("%s: %s", name, c.schema)
		}
		for p, v := range s.Properties {
			if v.Type == "" {
				t.Errorf("%s.%s has no one type: %s", name, p, c.schema)
			}
		}
		if name == "read" && (s.Properties["format"].Description != "page format, default text" || len(s.Properties["format"].Enum) != 2) {
			t.Errorf("read.format: %+v", s.Properties["format"])
		}
	}
}
