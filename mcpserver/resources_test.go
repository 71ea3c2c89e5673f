package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/wire"
)

func TestResources(t *testing.T) {
	for _, era := range []string{"", sessionEra} {
		t.Run("era "+era, func(t *testing.T) {
			e := newEnv(t)
			for i := range resourcePageSize + 50 {
				e.write(t, fmt.Sprintf("d%d/f%03d.md", i%3, i), fmt.Sprintf("file %d\n", i))
			}
			e.write(t, "bin.dat", "a\x00b")
			e.write(t, ".env", "SECRET=1\n")
			e.write(t, "secret/s.md", "hidden from alice\n")
			alice := e.addToken(t, "alice", "d*/**")
			testResources(t, e, dialHTTPEra(t, serveHTTP(t, e.server(t, serverOpts{})), alice, era, nil), era)
		})
	}
}

// testResources is TestResources in one protocol era (resources/subscribe
// is the session era's).
func testResources(t *testing.T, e *env, cs *mcp.ClientSession, era string) {
	ctx := context.Background()
	seen := map[string]bool{}
	for res, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[res.URI] {
			t.Fatalf("%s listed twice", res.URI)
		}
		seen[res.URI] = true
		if res.MIMEType != "text/plain" || res.Size == 0 {
			t.Fatalf("%+v", res)
		}
	}
	first, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: first.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != resourcePageSize+50 || len(first.Resources) != resourcePageSize || first.NextCursor == "" ||
		len(second.Resources) != 50 || second.NextCursor != "" {
		t.Fatalf("%d resources; pages of %d and %d", len(seen), len(first.Resources), len(second.Resources))
	}
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "garbage"}); err == nil {
		t.Fatal("a bad cursor was taken")
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	var templates []string
	for _, rt := range tmpl.ResourceTemplates {
		templates = append(templates, rt.URITemplate)
	}
	slices.Sort(templates)
	if err != nil || !slices.Equal(templates, []string{fileTemplate, fold.Scheme + "{+handle}"}) {
		t.Fatalf("%v %+v", err, tmpl)
	}
	uri := e.write(t, "d1/read me.md", "whole text\r\nhere")
	got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256([]byte("whole text\r\nhere"))
	if got.Contents[0].Text != "whole text\r\nhere" || got.Meta[wire.MetaVersion] != fmt.Sprintf("%x", sum[:16]) {
		t.Fatalf("%+v %v", got.Contents[0], got.Meta)
	}
	for _, name := range []string{"secret/s.md", ".env", "bin.dat", "nope.md", "../x"} {
		u := "file://" + filepath.ToSlash(e.fs.Roots()[0]) + "/" + name
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil {
			t.Errorf("%s was read", name)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err == nil && era == sessionEra {
			t.Errorf("subscribed to %s", name)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///etc/passwd"}); err == nil {
		t.Error("read /etc/passwd")
	}
}

// TestSubscriptions: a subscribed client hears of a write to its file, and
// every client hears of a file that appears.
func TestSubscriptions(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".gitignore", "*.tmp\n")
	uri := e.write(t, "docs/watched.md", "v1\n")
	other := e.write(t, "docs/other.md", "other\n")
	tok := e.addToken(t, "alice", "docs/**")
	for _, tc := range []struct {
		name string
		dial func(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession
	}{
		{"memory", func(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
			return dialMemory(t, s, opts)
		}},
		{"http", func(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
			return dialSession(t, serveHTTP(t, s), tok, opts)
		}},
		{"http, sessionless", func(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
			return dialHTTP(t, serveHTTP(t, s), tok, opts)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := e.server(t, serverOpts{local: tc.name == "memory"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			watching := make(chan error, 1)
			go func() { watching <- s.Watch(ctx) }()
			updated := make(chan string, 16)
			listChanged := make(chan struct{}, 16)
			cs := tc.dial(t, s, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
					updated <- r.Params.URI
				},
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
					listChanged <- struct{}{}
				},
			})
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			// The watcher may not be in place yet: write until heard.
			deadline := time.After(20 * time.Second)
			for i := 0; ; i++ {
				os.WriteFile(filepath.Join(e.dir, "docs/other.md"), []byte("not subscribed\n"), 0o644)
				os.WriteFile(filepath.Join(e.dir, "docs/watched.md"), []byte(fmt.Sprintf("v%d\n", i+2)), 0o644)
				select {
				case got := <-updated:
					if got == other {
						t.Fatal("told of a file it did not subscribe to")
					}
					if got != uri {
						t.Fatalf("updated %s", got)
					}
				case <-time.After(200 * time.Millisecond):
					continue
				case <-deadline:
					t.Fatal("no resources/updated after a write")
				}
				break
			}
			// An ignored file that appears changes no list; the listed
			// file written after it does.
			e.write(t, fmt.Sprintf("docs/scratch-%s.tmp", tc.name), "ignored\n")
			e.write(t, fmt.Sprintf("docs/new-%s.md", tc.name), "new\n")
			for heard := false; !heard; {
				select {
				case <-listChanged:
				case <-deadline:
					t.Fatal("no resources/list_changed after a file appeared")
				}
				for _, name := range s.listChange.Load().own {
					if strings.HasSuffix(name, ".tmp") {
						t.Fatalf("list_changed for an ignored file: %v", s.listChange.Load().own)
					}
					heard = heard || strings.HasSuffix(name, "new-"+tc.name+".md")
				}
			}
			cancel()
			if err := <-watching; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUpdatesFollowRights: once a token's allow list no longer holds a
// file, its session hears no more of it, while others still do.
func TestUpdatesFollowRights(t *testing.T) {
	e := newEnv(t)
	pre := e.write(t, "docs/pre.md", "v0\n")
	uri := e.write(t, "docs/w.md", "w0\n")
	marker := e.write(t, "other/x.md", "x0\n")
	alice, bob := e.addToken(t, "alice", "docs/**", "other/**"), e.addToken(t, "bob", "docs/**")
	clock := time.Now()
	s := e.server(t, serverOpts{tokensNow: func() time.Time { return clock }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	url := serveHTTP(t, s)
	heard := func(token string, uris ...string) chan string {
		ch := make(chan string, 256)
		cs := dialHTTP(t, url, token, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			ch <- r.Params.URI
		}})
		for _, u := range uris {
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
				t.Fatal(err)
			}
		}
		return ch
	}
	aliceHeard := heard(alice, pre, uri, marker)
	bobHeard := heard(bob, pre, uri)
	// Both hear a write of docs/pre.md (written until heard: the watcher
	// may be starting). docs/w.md is not touched before the narrowing.
	for i := 0; len(aliceHeard) == 0 || len(bobHeard) == 0; i++ {
		if i == 200 {
			t.Fatal("no resources/updated")
		}
		os.WriteFile(filepath.Join(e.dir, "docs/pre.md"), []byte(fmt.Sprintf("v%d\n", i+1)), 0o644)
		time.Sleep(100 * time.Millisecond)
	}
	// Narrow alice to other/**: bob hears of a write of docs/w.md and of
	// its removal; alice must hear of neither.
	e.setAllow(t, 0, "other/**")
	clock = clock.Add(tokens.ReloadEvery)
	os.WriteFile(filepath.Join(e.dir, "docs/w.md"), []byte("w1\n"), 0o644)
	waitFor(t, bobHeard, uri)
	os.Remove(filepath.Join(e.dir, "docs/w.md"))
	waitFor(t, bobHeard, uri)
	// Then the file alice may still see changes. The watcher notifies one
	// change after another, and one session hears in order: whatever
	// alice was told of docs/w.md comes before this.
	os.WriteFile(filepath.Join(e.dir, "other/x.md"), []byte("x1\n"), 0o644)
	for got := waitFor(t, aliceHeard, ""); got != marker; got = waitFor(t, aliceHeard, "") {
		if got == uri {
			t.Fatalf("alice still hears of %s", got)
		}
	}
}

// waitFor takes notifications from ch until one names uri (any, when uri
// is empty), and returns it.
func waitFor(t *testing.T, ch chan string, uri string) string {
	t.Helper()
	for {
		select {
		case got := <-ch:
			if uri == "" || got == uri {
				return got
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no notification of %q", uri)
		}
	}
}

// TestWatchNewDirectories: a directory made after the server started is
// watched too.
func TestWatchNewDirectories(t *testing.T) {
	e := newEnv(t)
	e.write(t, "seed.md", "x\n")
	s := e.server(t, serverOpts{local: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	updated := make(chan string, 64)
	cs := dialMemory(t, s, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	var uri string
	for i := 0; ; i++ {
		// Made again until the watcher, which may still be starting, sees
		// the new directory and so the file in it.
		dir := fmt.Sprintf("new%d/deeper", i)
		uri = e.write(t, dir+"/f.md", "v1\n")
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		e.write(t, dir+"/f.md", "v2\n")
		select {
		case got := <-updated:
			if got != uri {
				continue
			}
		case <-time.After(time.Second):
			if i == 20 {
				t.Fatal("a file in a new directory is not watched")
			}
			continue
		}
		break
	}
}

// TestCachingHints: every result that carries caching hints has them, in
// both eras and over stdio: what folio itself offers keeps an hour, files
// and listings not at all, a folded answer for its life; private whenever
// the answer depends on the caller. What server/discover (or initialize)
// declares is what folio serves.
func TestCachingHints(t *testing.T) {
	e := newEnv(t)
	uri := e.write(t, "a.md", "text\n")
	for i := range 600 {
		e.write(t, fmt.Sprintf("many/file-with-a-longish-name-%04d.md", i), "x")
	}
	tok := e.addToken(t, "alice")
	local := e.server(t, serverOpts{local: true})
	withTokens := serveHTTP(t, e.server(t, serverOpts{}))
	hour := int(time.Hour.Milliseconds())
	for name, c := range map[string]struct {
		cs    *mcp.ClientSession
		scope string // of what depends on the caller
	}{
		"stdio":             {dialMemory(t, local, nil), "public"},
		"http, sessionless": {dialHTTP(t, withTokens, tok, nil), "private"},
		"http, session":     {dialSession(t, withTokens, tok, nil), "private"},
	} {
		ctx := context.Background()
		check := func(what string, got mcp.Cacheable, err error, ttl int, scope string) {
			t.Helper()
			if err != nil || got.TTLMs != ttl || got.CacheScope != scope {
				t.Errorf("%s: %s: %+v (%v), want ttlMs %d, %s", name, what, got, err, ttl, scope)
			}
		}
		tools, err := c.cs.ListTools(ctx, nil)
		check("tools/list", tools.Cacheable, err, hour, c.scope)
		templates, err := c.cs.ListResourceTemplates(ctx, nil)
		check("resources/templates/list", templates.Cacheable, err, hour, "public")
		resources, err := c.cs.ListResources(ctx, nil)
		check("resources/list", resources.Cacheable, err, 0, c.scope)
		read, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		check("resources/read of a file", read.Cacheable, err, 0, c.scope)
		f := wantFolded(t, call(t, c.cs, "list", map[string]any{"path": "many", "details": true}))
		read, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fold.URI(f.Handle, "/entries/0")})
		check("resources/read of a handle", read.Cacheable, err, int(fold.DefaultTTL.Milliseconds()), "private")
		prompts, err := c.cs.ListPrompts(ctx, nil)
		check("prompts/list", prompts.Cacheable, err, hour, "public")
		// Logging is the session era's: the sessionless era is sent none.
		caps := c.cs.InitializeResult().Capabilities
		//lint:ignore SA1019 the deprecated logging capability is what is checked here
		if sessionless := c.cs.InitializeResult().ProtocolVersion >= sessionlessProtocol; caps.Prompts == nil || caps.Prompts.ListChanged || caps.Completions == nil || caps.Resources == nil || caps.Tools == nil || (caps.Logging == nil) == !sessionless {
			t.Errorf("%s (%s): capabilities %+v", name, c.cs.InitializeResult().ProtocolVersion, caps)
		}
	}
}
