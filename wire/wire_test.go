package wire

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
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
		// A format's name is the server's to judge (pager.FormatOr).
		{ReadArgs{URI: "f", MaxTokens: n(100), Format: "yaml"}, true, ""},
		{ReadArgs{URIs: make([]string, MaxURIs)}, false, ""},
		{ReadArgs{URIs: make([]string, MaxURIs+1)}, false, toolerr.CodeInvalidArgument},
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
		"read":           {ReadSchema([]string{"json", "text"}, "text"), nil},
		"list":           {ListSchema(), nil},
		"grep":           {GrepSchema(), []string{"pattern"}},
		"result_query":   {ResultQuerySchema(), []string{"handle"}},
		"find_tools":     {FindToolsSchema(), []string{"query"}},
		"describe_tools": {DescribeToolsSchema(), []string{"names"}},
		"call_tool":      {CallToolSchema(), []string{"name"}},
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

// TestChecks: each argument type refuses what is out of its limits or
// out of place, with invalid_argument, and passes the rest.
func TestChecks(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		args Args
		ok   bool
	}{
		{ListArgs{}, true},
		{ListArgs{Recursive: true, MaxDepth: n(0), MaxEntries: n(MaxEntriesLimit)}, true},
		{ListArgs{MaxDepth: n(1)}, false},
		{ListArgs{Recursive: true, MaxDepth: n(-1)}, false},
		{ListArgs{MaxEntries: n(0)}, false},
		{ListArgs{MaxEntries: n(MaxEntriesLimit + 1)}, false},
		{GrepArgs{Pattern: "x", Context: n(MaxContext), MaxMatches: n(MaxMatchesLimit)}, true},
		{GrepArgs{}, false},
		{GrepArgs{Pattern: "x", Context: n(-1)}, false},
		{GrepArgs{Pattern: "x", Context: n(MaxContext + 1)}, false},
		{GrepArgs{Pattern: "x", MaxMatches: n(0)}, false},
		{GrepArgs{Pattern: "x", MaxMatches: n(MaxMatchesLimit + 1)}, false},
		{FindToolsArgs{Query: "open a PR"}, true},
		{FindToolsArgs{Query: "x", Limit: n(MaxFound)}, true},
		{FindToolsArgs{Query: " \t"}, false},
		{FindToolsArgs{Query: "x", Limit: n(0)}, false},
		{FindToolsArgs{Query: "x", Limit: n(MaxFound + 1)}, false},
		{DescribeToolsArgs{Names: []string{"a"}}, true},
		{DescribeToolsArgs{}, false},
		{DescribeToolsArgs{Names: make([]string, MaxFound+1)}, false},
		{CallToolArgs{Name: "gh__create_pull_request"}, true},
		{CallToolArgs{Name: "t", Arguments: json.RawMessage(" null ")}, true},
		{CallToolArgs{Name: "t", Arguments: json.RawMessage(`{"a":1}`)}, true},
		{CallToolArgs{}, false},
		{CallToolArgs{Name: CallTool}, false},
		{CallToolArgs{Name: FindTools}, false},
		{CallToolArgs{Name: "t", Arguments: json.RawMessage(`[1]`)}, false},
	} {
		e := tc.args.Check()
		if (e == nil) != tc.ok || e != nil && e.Code != toolerr.CodeInvalidArgument {
			t.Errorf("%+v: %v", tc.args, e)
		}
	}
}

// TestNoServerPackages: the contract depends on no other package of
// folio's but the error contract, so that a client of it builds none of
// the server.
func TestNoServerPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(d, "github.com/folio-mcp/folio/"); ok && rest != "wire" && rest != "toolerr" {
			t.Errorf("wire depends on %s", d)
		}
	}
}
