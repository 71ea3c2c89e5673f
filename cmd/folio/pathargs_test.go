package main

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/toolerr"
)

// TestToolsListPathArgument: through the binary and the go-sdk client,
// every tool that takes a file or a directory offers it in tools/list as
// path (read's several files as paths), not by its former name, and takes
// it in every form (relative to the first root, absolute, file:// URI);
// each still takes the former name, uri (read's uris), alone or beside
// path with the same value, with the same answer, and refuses the two
// naming different files as invalid_argument.
func TestToolsListPathArgument(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "docs/a.md", "# Alpha\n\nThe needle is here.\n")
	write(t, dir, "docs/b.md", "# Beta\n\nNothing to find.\n")
	cs := serveStdio(t, []string{dir})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	offered := map[string][]string{"read": {"path", "paths"}, "list": {"path"}, "grep": {"path"}, "outline": {"path"}, "search_docs": {"path"}}
	for _, tool := range list.Tools {
		names, ok := offered[tool.Name]
		if !ok {
			continue
		}
		delete(offered, tool.Name)
		var schema struct{ Properties map[string]json.RawMessage }
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if _, ok := schema.Properties[name]; !ok {
				t.Errorf("%s does not offer %s: %s", tool.Name, name, b)
			}
		}
		if _, ok := schema.Properties["uri"]; ok || schema.Properties["uris"] != nil {
			t.Errorf("%s offers a former name: %s", tool.Name, b)
		}
	}
	if len(offered) > 0 {
		t.Fatalf("tools not offered: %v", slices.Collect(maps.Keys(offered)))
	}
	file, docs := filepath.Join(dir, "docs", "a.md"), filepath.Join(dir, "docs")
	forms := func(rel, abs string) []string { return []string{rel, abs, "file://" + abs} }
	code := func(text string) string {
		var body struct{ Error struct{ Code string } }
		json.Unmarshal([]byte(text), &body)
		return body.Error.Code
	}
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		paths []string
		other string // another file or directory the tool takes
		want  string // in the answer ("" for any answer that is no error)
	}{
		{"read", nil, forms("docs/a.md", file), "docs/b.md", "The needle is here."},
		{"list", nil, forms("docs", docs), ".", "docs/a.md\ndocs/b.md"},
		{"grep", map[string]any{"pattern": "needle"}, forms("docs", docs), "docs/b.md", "docs/a.md\n3:The needle is here."},
		{"grep", map[string]any{"pattern": "needle"}, forms("docs/a.md", file), "docs/b.md", "3:The needle is here."},
		{"outline", nil, forms("docs/a.md", file), "docs/b.md", "# Alpha"},
		// The docs index may still be building: its answer varies.
		{"search_docs", map[string]any{"query": "where is the needle"}, forms("docs", docs), "docs/b.md", ""},
	} {
		with := func(extra map[string]any) map[string]any {
			args := maps.Clone(tc.args)
			if args == nil {
				args = map[string]any{}
			}
			maps.Copy(args, extra)
			return args
		}
		for _, p := range tc.paths {
			byPath, isErr := mcptest.CallText(t, cs, tc.tool, with(map[string]any{"path": p}))
			if isErr || !strings.Contains(byPath, tc.want) {
				t.Errorf("%s path=%s: %s", tc.tool, p, byPath)
			}
			for _, args := range []map[string]any{{"uri": p}, {"uri": p, "path": p}} {
				text, isErr := mcptest.CallText(t, cs, tc.tool, with(args))
				if isErr || tc.want != "" && text != byPath {
					t.Errorf("%s %v: %s\nwith path alone: %s", tc.tool, args, text, byPath)
				}
			}
			for _, args := range []map[string]any{{"path": p, "uri": tc.other}, {"path": tc.other, "uri": p}} {
				if text, _ := mcptest.CallText(t, cs, tc.tool, with(args)); code(text) != toolerr.CodeInvalidArgument {
					t.Errorf("%s %v: %s", tc.tool, args, text)
				}
			}
		}
		// The argument is read, by either name: a path that is not there
		// is not found.
		for _, name := range []string{"path", "uri"} {
			if text, _ := mcptest.CallText(t, cs, tc.tool, with(map[string]any{name: "nowhere"})); code(text) != toolerr.CodeNotFound {
				t.Errorf("%s %s=nowhere: %s", tc.tool, name, text)
			}
		}
	}
	// read's several files: paths, or uris.
	two := []string{"docs/a.md", file}
	byPaths, isErr := mcptest.CallText(t, cs, "read", map[string]any{"paths": two})
	if isErr || !strings.Contains(byPaths, "=== docs/a.md ===\n# Alpha") || strings.Count(byPaths, "The needle is here.") != 2 {
		t.Errorf("read paths: %s", byPaths)
	}
	if text, isErr := mcptest.CallText(t, cs, "read", map[string]any{"uris": two}); isErr || text != byPaths {
		t.Errorf("read uris: %s\nwith paths: %s", text, byPaths)
	}
	if text, isErr := mcptest.CallText(t, cs, "read", map[string]any{"uris": two, "paths": two}); isErr || text != byPaths {
		t.Errorf("read uris and paths, the same: %s", text)
	}
	for _, args := range []map[string]any{{"paths": two, "uris": []string{"docs/b.md"}}, {"uri": "docs/a.md", "paths": two}, {"uris": two, "max_tokens": 500}} {
		if text, _ := mcptest.CallText(t, cs, "read", args); code(text) != toolerr.CodeInvalidArgument {
			t.Errorf("read %v: %s", args, text)
		}
	}
}
