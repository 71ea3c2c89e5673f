package wire

import (
	"encoding/json"
	"os/exec"
	"reflect"
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
		{ReadArgs{Path: "f"}, false, ""},
		{ReadArgs{Path: "f", Offset: n(-5), Limit: n(3)}, false, ""},
		{ReadArgs{Path: "f", Offset: n(1), Limit: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", MaxTokens: n(100), Line: n(7), Format: "text"}, true, ""},
		{ReadArgs{Path: "f", Line: n(7)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", MaxTokens: n(100), Line: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", MaxTokens: n(100), Line: n(2), Cursor: "c"}, false, toolerr.CodeInvalidArgument},
		// A format's name is the server's to judge (pager.FormatOr).
		{ReadArgs{Path: "f", MaxTokens: n(100), Format: "yaml"}, true, ""},
		{ReadArgs{Paths: make([]string, MaxPaths)}, false, ""},
		{ReadArgs{Paths: make([]string, MaxPaths+1)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", Format: "text"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Paths: []string{"a", "b"}}, false, ""},
		{ReadArgs{Path: "f", MaxTokens: n(100)}, true, ""},
		{ReadArgs{Path: "f", MaxTokens: n(100), Cursor: "c"}, true, ""},
		{ReadArgs{Path: "f", Cursor: "c"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", MaxTokens: n(100), Offset: n(0)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", Cursor: "c", Limit: n(3)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Paths: []string{"a"}, MaxTokens: n(100)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", Paths: []string{"a"}}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{Path: "f", MaxTokens: n(0)}, false, toolerr.CodeInvalidArgument},
		// The former names, uri and uris, are path and paths.
		{ReadArgs{FormerPath: "f"}, false, ""},
		{ReadArgs{FormerPath: "f", Path: "f", MaxTokens: n(100)}, true, ""},
		{ReadArgs{FormerPath: "f", Path: "g"}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{FormerPaths: []string{"a", "b"}}, false, ""},
		{ReadArgs{FormerPaths: []string{"a", "b"}, Paths: []string{"a", "b"}}, false, ""},
		{ReadArgs{FormerPaths: []string{"a", "b"}, Paths: []string{"b", "a"}}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{FormerPaths: []string{"a"}, MaxTokens: n(100)}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{FormerPath: "f", Paths: []string{"a"}}, false, toolerr.CodeInvalidArgument},
		{ReadArgs{FormerPaths: make([]string, MaxPaths+1)}, false, toolerr.CodeInvalidArgument},
	} {
		paged, err := tc.args.Paged()
		if mcptest.Code(err) != tc.want || (err == nil && paged != tc.paged) {
			t.Errorf("%+v: paged %v, err %v", tc.args, paged, err)
		}
	}
}

// TestSchemas: the schemas derived from the argument types name every
// field the arguments decode, never take null, and do not close
// themselves to other names (see derive); a tool that takes a path offers
// it as path (and read's files as paths), read's said to take every form, and
// not by its former names.
func TestSchemas(t *testing.T) {
	for name, c := range map[string]struct {
		schema   json.RawMessage
		required []string
		paths    []string
	}{
		"read":           {ReadSchema([]string{"json", "text"}, "text"), nil, []string{"path", "paths"}},
		"list":           {ListSchema(), nil, []string{"path"}},
		"grep":           {GrepSchema(), []string{"pattern"}, []string{"path"}},
		"outline":        {OutlineSchema(), nil, []string{"path"}},
		"search_docs":    {SearchDocsSchema(), []string{"query"}, []string{"path"}},
		"result_query":   {ResultQuerySchema(), []string{"handle"}, nil},
		"find_tools":     {FindToolsSchema(), []string{"query"}, nil},
		"describe_tools": {DescribeToolsSchema(), []string{"names"}, nil},
		"call_tool":      {CallToolSchema(), []string{"name"}, nil},
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
		if s.Type != "object" || s.AdditionalProperties != nil || len(s.Required) != len(c.required) {
			t.Errorf("%s: %s", name, c.schema)
		}
		for _, p := range c.paths {
			if d := s.Properties[p].Description; s.Properties[p].Type == "" || !strings.Contains(d, PathForms) && p == "path" && name == "read" {
				t.Errorf("%s.%s: %+v", name, p, s.Properties[p])
			}
		}
		for _, former := range []string{FormerPathName, FormerPathsName} {
			if _, ok := s.Properties[former]; ok {
				t.Errorf("%s offers %s: %s", name, former, c.schema)
			}
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
		{ListArgs{FormerPath: "d"}, true},
		{ListArgs{FormerPath: "d", Path: "d"}, true},
		{ListArgs{FormerPath: "d", Path: "e"}, false},
		{OutlineArgs{FormerPath: "d", Path: "d"}, true},
		{OutlineArgs{FormerPath: "d", Path: "e"}, false},
		{GrepArgs{Pattern: "x", FormerPath: "d"}, true},
		{GrepArgs{Pattern: "x", FormerPath: "d", Path: "e"}, false},
		{SearchDocsArgs{Query: "how", FormerPath: "d"}, true},
		{SearchDocsArgs{Query: "how", FormerPath: "d", Path: "e"}, false},
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

// TestRename: arguments given by their former names decode and rename
// into the arguments as if given by their names now.
func TestRename(t *testing.T) {
	for _, tc := range []struct {
		args Renamed
		json string
		want Renamed
	}{
		{&ReadArgs{}, `{"uri":"a","offset":2}`, &ReadArgs{Path: "a", Offset: new(2)}},
		{&ReadArgs{}, `{"uris":["a","b"]}`, &ReadArgs{Paths: []string{"a", "b"}}},
		{&ReadArgs{}, `{"uri":"a","path":"a"}`, &ReadArgs{Path: "a"}},
		{&ReadArgs{}, `{"path":"a"}`, &ReadArgs{Path: "a"}},
		{&ListArgs{}, `{"uri":"d","recursive":true}`, &ListArgs{Path: "d", Recursive: true}},
		{&OutlineArgs{}, `{"uri":"d"}`, &OutlineArgs{Path: "d"}},
		{&GrepArgs{}, `{"pattern":"x","uri":"d"}`, &GrepArgs{Pattern: "x", Path: "d"}},
		{&SearchDocsArgs{}, `{"query":"q","uri":"d"}`, &SearchDocsArgs{Query: "q", Path: "d"}},
	} {
		if err := json.Unmarshal([]byte(tc.json), tc.args); err != nil {
			t.Fatal(err)
		}
		if e := tc.args.Rename(); e != nil || !reflect.DeepEqual(tc.args, tc.want) {
			t.Errorf("%s: %+v, %v", tc.json, tc.args, e)
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

// TestMaxTokens: every tool that takes max_tokens holds it to its bounds
// with the one check, in the same words.
func TestMaxTokens(t *testing.T) {
	n := func(v int) *int { return &v }
	read := "max_tokens must be between 1 and 16777216"
	docs := "max_tokens must be between 1 and 32000"
	for _, tc := range []struct {
		args Args
		want string // "" for no error
	}{
		{ReadArgs{Path: "a", MaxTokens: n(1)}, ""},
		{ReadArgs{Path: "a", MaxTokens: n(MaxTokensLimit)}, ""},
		{ReadArgs{Path: "a", MaxTokens: n(0)}, read},
		{ReadArgs{Path: "a", MaxTokens: n(-5)}, read},
		{ReadArgs{Path: "a", MaxTokens: n(MaxTokensLimit + 1)}, read},
		{OutlineArgs{}, ""},
		{OutlineArgs{MaxTokens: n(MaxTokensLimit)}, ""},
		{OutlineArgs{MaxTokens: n(0)}, read},
		{OutlineArgs{MaxTokens: n(MaxTokensLimit + 1)}, read},
		{SearchDocsArgs{Query: "how", MaxTokens: n(MaxAnswerTokens)}, ""},
		{SearchDocsArgs{Query: "how", MaxTokens: n(0)}, docs},
		{SearchDocsArgs{Query: "how", MaxTokens: n(MaxAnswerTokens + 1)}, docs},
	} {
		e := tc.args.Check()
		got := ""
		if e != nil {
			got = e.Message
			if e.Code != toolerr.CodeInvalidArgument {
				t.Errorf("%+v: code %s", tc.args, e.Code)
			}
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.args, got, tc.want)
		}
	}
	if e := CheckMaxTokens(MaxTokensLimit+1, MaxTokensLimit); e == nil || e.Message != read {
		t.Errorf("CheckMaxTokens(MaxTokensLimit+1): %v", e)
	}
}
