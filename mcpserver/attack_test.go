package mcpserver

import (
	"context"
	"errors"

	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// TestSymlinkSwapRace: while a directory and a symlink to a hidden one
// (.git, denied; private/, outside the token's allow list) are swapped in a
// loop with renameat2(RENAME_EXCHANGE), no tool, over HTTP, ever gives a
// byte or a name of the hidden directory. The file opened must be the file
// checked.
func TestSymlinkSwapRace(t *testing.T) {
	calls := 5000 // per case: 10,000 in all
	if raceEnabled || testing.Short() {
		calls = 500
	}
	for _, tc := range []struct {
		name, hidden string
		allow        []string
	}{
		{"deny list", ".git", nil},
		{"allow list", "private", []string{"docs/**"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, "docs/config", "public docs\n")
			e.write(t, "docs/guide.md", "public guide\n")
			e.write(t, tc.hidden+"/config", "SECRET config\n")
			e.write(t, tc.hidden+"/HEAD", "SECRET head\n")
			if err := os.Symlink(tc.hidden, filepath.Join(e.dir, "swap")); err != nil {
				t.Fatal(err)
			}
			tok := e.addToken(t, "mallory", tc.allow...)
			cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)

			docs, swap := filepath.Join(e.dir, "docs"), filepath.Join(e.dir, "swap")
			if err := unix.Renameat2(unix.AT_FDCWD, docs, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
				t.Skipf("renameat2(RENAME_EXCHANGE): %v", err)
			}
			stop := make(chan struct{})
			var swapping sync.WaitGroup
			var swaps atomic.Int64
			swapping.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if unix.Renameat2(unix.AT_FDCWD, docs, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE) == nil {
						swaps.Add(1)
					}
				}
			})
			defer func() { close(stop); swapping.Wait() }()

			docsURI := "file://" + filepath.Join(e.dir, "docs", "config")
			attacks := []struct {
				method string
				args   map[string]any
			}{
				{"read", map[string]any{"uri": "docs/config", "max_tokens": 1000}},
				{"read", map[string]any{"uri": "docs/config"}},
				{"read", map[string]any{"uris": []string{"docs/config", "docs/HEAD"}}},
				{"grep", map[string]any{"pattern": "SECRET", "path": "docs"}},
				{"grep", map[string]any{"pattern": "SECRET"}},
				{"list", map[string]any{"uri": "docs"}},
				{"list", map[string]any{"recursive": true}},
				{"resources/read", nil},
				{"resources/list", nil},
			}
			ctx := context.Background()
			leaks := 0
			for i := range calls {
				a := attacks[i%len(attacks)]
				var text string
				switch a.method {
				case "resources/read":
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: docsURI})
					if err == nil {
						text = res.Contents[0].Text
					}
				case "resources/list":
					res, err := cs.ListResources(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range res.Resources {
						text += r.URI + "\n"
					}
				default:
					res, err := cs.CallTool(ctx, toolCall(a.method, a.args))
					if err != nil {
						t.Fatal(err)
					}
					text = res.Content[0].(*mcp.TextContent).Text
				}
				named := a.method == "list" || a.method == "resources/list" || a.method == "grep"
				if strings.Contains(text, "SECRET") || named && strings.Contains(text, "HEAD") {
					leaks++
					if leaks <= 3 {
						t.Errorf("%s %v leaked: %.200s", a.method, a.args, text)
					}
				}
			}
			if leaks > 0 {
				t.Errorf("%d leaks in %d calls", leaks, calls)
			}
			t.Logf("%d calls, %d swaps, %d leaks", calls, swaps.Load(), leaks)
			if swaps.Load() == 0 {
				t.Fatal(errors.New("nothing was swapped"))
			}
		})
	}
}

// TestDenyListOverHTTP: credential files at any depth and in any case are
// hidden from every tool.
func TestDenyListOverHTTP(t *testing.T) {
	e := newEnv(t)
	secrets := []string{"vendor/lib/.git/config", ".ssh/id_rsa", "home/.ssh/config", ".netrc", ".ENV", "docs/.Env",
		".ENV.production", ".aws/credentials", ".npmrc", ".pypirc", "certs/site.PEM", "id_rsa.bak", ".git-credentials"}
	for _, name := range secrets {
		e.write(t, name, "SECRET in "+name+"\n")
	}
	e.write(t, "docs/guide.md", "public\n")
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
	for _, name := range secrets {
		wantCode(t, call(t, cs, "read", map[string]any{"uri": name}), "not_found")
		wantCode(t, call(t, cs, "read", map[string]any{"uri": name, "max_tokens": 500}), "not_found")
	}
	for _, r := range []result{
		call(t, cs, "grep", map[string]any{"pattern": "SECRET"}),
		call(t, cs, "list", map[string]any{"recursive": true}),
	} {
		if r.isError || strings.Contains(r.text, "SECRET") || strings.Contains(r.text, "netrc") || strings.Contains(r.text, "ssh") {
			t.Errorf("leaked: %s", r.text)
		}
	}
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 {
		t.Errorf("resources/list gives %d files, want only docs/guide.md", len(res.Resources))
	}
}
