package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/wire"
)

// TestFilePrompt: the file prompt attaches a file whole, as resources/read
// gives it, with the caller's rights, in both eras and over stdio.
func TestFilePrompt(t *testing.T) {
	e := newEnv(t)
	uri := e.write(t, "docs/guide.md", "# Guide\n\nexact bytes\r\n")
	e.write(t, "private/plan.md", "secret\n")
	e.write(t, "docs/huge.md", strings.Repeat("word ", 30000))
	alice := e.addToken(t, "alice", "docs/**")
	withTokens := serveHTTP(t, e.server(t, serverOpts{}))
	for name, c := range map[string]struct {
		cs      *mcp.ClientSession
		private bool // whether private/plan.md is hidden
	}{
		"stdio":             {dialMemory(t, e.server(t, serverOpts{local: true}), nil), false},
		"http, sessionless": {dialHTTP(t, withTokens, alice, nil), true},
		"http, session":     {dialSession(t, withTokens, alice, nil), true},
	} {
		ctx := context.Background()
		list, err := c.cs.ListPrompts(ctx, nil)
		if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != filePrompt || list.Prompts[0].Description == "" {
			t.Fatalf("%s: prompts/list: %+v, %v", name, list, err)
		}
		got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: filePrompt, Arguments: map[string]string{"path": "docs/guide.md"}})
		if err != nil {
			t.Fatalf("%s: prompts/get: %v", name, err)
		}
		if len(got.Messages) != 1 || got.Messages[0].Role != "user" {
			t.Fatalf("%s: messages %+v", name, got.Messages)
		}
		res, ok := got.Messages[0].Content.(*mcp.EmbeddedResource)
		if !ok || res.Resource.URI != uri || res.Resource.Text != "# Guide\n\nexact bytes\r\n" || got.Meta[wire.MetaVersion] == nil {
			t.Errorf("%s: content %#v, meta %v", name, got.Messages[0].Content, got.Meta)
		}
		_, err = c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: filePrompt, Arguments: map[string]string{"path": "private/plan.md"}})
		if hidden := err != nil && strings.Contains(err.Error(), "not found"); hidden != c.private {
			t.Errorf("%s: a file outside the allow list: %v", name, err)
		}
		for what, args := range map[string]map[string]string{
			"no path":       nil,
			"over the cap":  {"path": "docs/huge.md"},
			"outside roots": {"path": "/etc/passwd"},
			"a directory":   {"path": "docs"},
		} {
			if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: filePrompt, Arguments: args}); err == nil {
				t.Errorf("%s: %s: answered", name, what)
			}
		}
	}
}

// TestCompletion: a path argument completes to the names a list would
// show the caller, directories ending in "/", at most a hundred with the
// total told; other arguments have none.
func TestCompletion(t *testing.T) {
	e := newEnv(t)
	e.write(t, "docs/guide.md", "x")
	e.write(t, "docs/glossary.md", "x")
	e.write(t, "docs/api/index.md", "x")
	e.write(t, "docs/.env", "TOKEN=1")
	e.write(t, "private/plan.md", "x")
	for i := range 150 {
		e.write(t, fmt.Sprintf("many/f%03d.md", i), "x")
	}
	alice := e.addToken(t, "alice", "docs/**", "many/**")
	withTokens := serveHTTP(t, e.server(t, serverOpts{}))
	root := strings.TrimPrefix(e.dir, "/")
	for name, c := range map[string]struct {
		cs      *mcp.ClientSession
		private bool
	}{
		"stdio":             {dialMemory(t, e.server(t, serverOpts{local: true}), nil), false},
		"http, sessionless": {dialHTTP(t, withTokens, alice, nil), true},
		"http, session":     {dialSession(t, withTokens, alice, nil), true},
	} {
		complete := func(ref *mcp.CompleteReference, arg, value string) mcp.CompletionResultDetails {
			t.Helper()
			res, err := c.cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
			if err != nil {
				t.Fatalf("%s: complete %q: %v", name, value, err)
			}
			return res.Completion
		}
		prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: filePrompt}
		template := &mcp.CompleteReference{Type: "ref/resource", URI: fileTemplate}
		for _, tc := range []struct {
			ref   *mcp.CompleteReference
			value string
			want  []string
		}{
			{prompt, "docs/g", []string{"docs/glossary.md", "docs/guide.md"}},
			{prompt, "docs/", []string{"docs/api/", "docs/glossary.md", "docs/guide.md"}},
			{prompt, "docs/api/", []string{"docs/api/index.md"}},
			{prompt, "docs/.e", nil},
			{prompt, "nowhere/", nil},
			{prompt, "../", nil},
			{template, root + "/docs/gu", []string{root + "/docs/guide.md"}},
		} {
			if got := complete(tc.ref, "path", tc.value); !slices.Equal(got.Values, tc.want) && len(got.Values)+len(tc.want) > 0 {
				t.Errorf("%s: %q: %q, want %q", name, tc.value, got.Values, tc.want)
			}
		}
		top := complete(prompt, "path", "")
		if hidden := !slices.Contains(top.Values, "private/"); hidden != c.private || !slices.Contains(top.Values, "docs/") {
			t.Errorf("%s: the top: %q", name, top.Values)
		}
		if got := complete(prompt, "path", "many/f"); len(got.Values) != completionLimit || got.Total != 150 || !got.HasMore {
			t.Errorf("%s: many: %d values, total %d, has more %v", name, len(got.Values), got.Total, got.HasMore)
		}
		if got := complete(template, "path", ""); !slices.Equal(got.Values, []string{root + "/"}) {
			t.Errorf("%s: the template's roots: %q", name, got.Values)
		}
		if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "other"}, "path", "docs/"); len(got.Values) != 0 {
			t.Errorf("%s: another prompt: %q", name, got.Values)
		}
	}
}
