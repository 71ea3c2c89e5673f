package mcpserver

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/upstream"
	"github.com/folio-mcp/folio/wire"
)

// refsEnv serves two fakemcp upstreams, src and dst (whose calls are
// logged), behind folio with a low fold threshold (unless opts sets one), to the tokens of
// alice, bob and carol (who may read docs/** only).
func refsEnv(t *testing.T, opts serverOpts) (e *env, url, callLog string, tokens map[string]string) {
	t.Helper()
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	callLog = filepath.Join(dir, "dst-calls")
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	g, err := upstream.Start(ctx, []upstream.Server{
		{Name: "src", Transport: upstream.Stdio, Command: bin, Args: []string{"-datatools"}},
		{Name: "dst", Transport: upstream.Stdio, Command: bin, Args: []string{"-datatools", "-tools", "echo", "-calllog", callLog}},
	}, upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	e = newEnv(t)
	tokens = map[string]string{"alice": e.addToken(t, "alice"), "bob": e.addToken(t, "bob"), "carol": e.addToken(t, "carol", "docs/**")}
	opts.gateway = g
	if opts.threshold == 0 {
		opts.threshold = 2048
	}
	url = serveHTTP(t, e.server(t, opts))
	return e, url, callLog, tokens
}

func dstCalls(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "ingest")
}

// folded returns the uri of a folded answer.
func foldedURI(t *testing.T, r result) string {
	t.Helper()
	var body struct{ URI string }
	if err := json.Unmarshal(mustJSON(r.raw.StructuredContent), &body); err != nil || !strings.HasPrefix(body.URI, "mcp+cache://") {
		t.Fatalf("not folded with a uri: %.300s", r.text)
	}
	return body.URI
}

// TestReferences: the seed's case end to end. An upstream's 240-row answer
// folds into a reference; another upstream takes it as data_uri, and gets
// the rows without the model copying them. References into a part, arrays
// of references, a reference beside its argument, file references; and
// references that must not resolve (unknown, expired, another session's,
// another caller's, a file outside the allow list) stop the call.
func TestReferences(t *testing.T) {
	e, url, callLog, tokens := refsEnv(t, serverOpts{})
	cs := dialHTTP(t, url, tokens["alice"], nil)
	uri := foldedURI(t, call(t, cs, "src__series", nil))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"data_uri": uri + "#/series"}, "rows 240 sum 28800"},
		{map[string]any{"data_uri": []string{uri + "#/series/0", uri + "#/series/3"}}, "rows 2 sum 4"},
		{map[string]any{"data": []int{1}, "data_uri": uri + "#/series"}, "rows 240 sum 28800"},
	} {
		if r := call(t, cs, "dst__ingest", tc.args); r.isError || r.text != tc.want {
			t.Errorf("%v: %s, want %s", tc.args, r.text, tc.want)
		}
	}
	calls := dstCalls(callLog)
	// A session of alice's holds only its own references; another
	// sessionless connection of hers resolves them (below).
	other := dialSession(t, url, tokens["alice"], nil)
	bob := dialHTTP(t, url, tokens["bob"], nil)
	for name, try := range map[string]func() result{
		"unknown": func() result {
			return call(t, cs, "dst__ingest", map[string]any{"data_uri": "mcp+cache://AAAAAAAAAAAAAAAAAAAAAA"})
		},
		"bad pointer":     func() result { return call(t, cs, "dst__ingest", map[string]any{"data_uri": uri + "#/nope"}) },
		"another session": func() result { return call(t, other, "dst__ingest", map[string]any{"data_uri": uri + "#/series"}) },
		"another caller":  func() result { return call(t, bob, "dst__ingest", map[string]any{"data_uri": uri + "#/series"}) },
	} {
		r := try()
		var body struct {
			Error struct {
				Code        string
				MissingURIs []string `json:"missing_uris"`
			}
		}
		json.Unmarshal([]byte(r.text), &body)
		if !r.isError || body.Error.Code != "reference_not_found" || len(body.Error.MissingURIs) != 1 || !strings.Contains(r.text, "run the tool") {
			t.Errorf("%s: %s", name, r.text)
		}
	}
	if n := dstCalls(callLog); n != calls {
		t.Errorf("the receiving upstream was called %d times for references that do not resolve", n-calls)
	}
	if r := call(t, dialHTTP(t, url, tokens["alice"], nil), "dst__ingest", map[string]any{"data_uri": uri + "#/series"}); r.isError {
		t.Errorf("alice's next connection: %s", r.text)
	}
	calls = dstCalls(callLog)

	// file:// references: a file the caller may read gives its text,
	// which the upstream's own schema then refuses where an array goes,
	// before the upstream is called.
	path := e.write(t, "docs/notes.md", "some notes\n")
	if r := call(t, cs, "dst__ingest", map[string]any{"data_uri": path}); !r.isError || !strings.Contains(r.text, "invalid_argument") || !strings.Contains(r.text, "/properties/data") {
		t.Errorf("a file's text where an array goes: %s", r.text)
	}
	if n := dstCalls(callLog); n != calls {
		t.Errorf("the upstream was called with arguments its schema refuses")
	}
	// Other schemes are no references: they go on as they are.
	if r := call(t, cs, "dst__echo", map[string]any{"text_uri": "https://example.com/x"}); r.isError || r.text != `echo {"text_uri":"https://example.com/x"}` {
		t.Errorf("an https:// value of text_uri: %s", r.text)
	}
	if r := call(t, cs, "dst__echo", map[string]any{"text_uri": path}); r.isError || r.text != `echo {"text":"some notes\n"}` {
		t.Errorf("a file's text by reference: %s", r.text)
	}
	e.write(t, "private/p.md", "secret\n")
	narrow := dialHTTP(t, url, tokens["carol"], nil)
	if r := call(t, narrow, "dst__ingest", map[string]any{"data_uri": "file://" + filepath.Join(e.dir, "private/p.md")}); !strings.Contains(r.text, "reference_not_found") {
		t.Errorf("a file outside the allow list: %s", r.text)
	}
}

// TestReferenceExpires: a reference past its handle's TTL does not
// resolve.
func TestReferenceExpires(t *testing.T) {
	_, url, _, tokens := refsEnv(t, serverOpts{foldTTL: time.Second})
	cs := dialHTTP(t, url, tokens["alice"], nil)
	uri := foldedURI(t, call(t, cs, "src__series", nil))
	time.Sleep(1100 * time.Millisecond)
	if r := call(t, cs, "dst__ingest", map[string]any{"data_uri": uri + "#/series"}); !strings.Contains(r.text, "reference_not_found") {
		t.Errorf("an expired reference: %s", r.text)
	}
}

// TestUpstreamFolding: a long plain-text answer folds as a string and
// reads back by characters; an answer whose tool's output schema refuses
// the folded form comes whole.
func TestUpstreamFolding(t *testing.T) {
	_, url, _, tokens := refsEnv(t, serverOpts{})
	cs := dialHTTP(t, url, tokens["alice"], nil)
	r := call(t, cs, "src__log", nil)
	uri := foldedURI(t, r)
	handle := strings.TrimPrefix(uri, "mcp+cache://")
	q := call(t, cs, "result_query", map[string]any{"handle": handle, "offset": 21, "limit": 21})
	if !strings.HasPrefix(q.text, "a log line, not JSON\n\n[folio] characters 21-42 of ") {
		t.Errorf("a folded string read by characters: %s", q.text)
	}
	// Answers under an output schema fold too, and what folio sends
	// passes the schema folio advertises, as a client checks it: the
	// strict one's, and one that wraps its text as {"content"}, as
	// servers on today's SDKs answer.
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	advertised := map[string]*jsonschema.Resolved{}
	for _, tool := range listed.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(mustJSON(tool.OutputSchema), &schema); err != nil {
			t.Fatal(err)
		}
		if advertised[tool.Name], err = schema.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	for _, name := range []string{"src__strict", "src__readtext"} {
		res, err := cs.CallTool(context.Background(), toolCall(name, nil))
		if err != nil || res.IsError || res.Meta[wire.MetaResultHandle] == nil {
			t.Fatalf("%s did not fold: %v %.200s", name, err, mustJSON(res))
		}
		var structured any
		json.Unmarshal(mustJSON(res.StructuredContent), &structured)
		if advertised[name] == nil || advertised[name].Validate(structured) != nil {
			t.Errorf("%s: the folded answer does not pass the advertised output schema %s", name, mustJSON(structured))
		}
		var whole any
		json.Unmarshal([]byte(`{"content":"a line"}`), &whole)
		if name == "src__readtext" && advertised[name].Validate(whole) != nil {
			t.Error("the advertised schema refuses the upstream's own form")
		}
	}
	handle = strings.TrimPrefix(foldedURI(t, call(t, cs, "src__readtext", nil)), "mcp+cache://")
	if q := call(t, cs, "result_query", map[string]any{"handle": handle, "path": "content", "offset": 0, "limit": 22}); !strings.Contains(q.text, `"value":"a line of a long file\n"`) {
		t.Errorf("the wrapped text read by characters: %s", q.text)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestReferenceSchemas: upstream tools are advertised with an X_uri beside
// each array or object argument X, and each string that carries content,
// in the shortest form, at most 8% more tokens; a required X is required
// no more; --no-reference-args keeps the upstream's schemas. The figures:
// what the reference arguments add to tools/list, and the tokens the model
// writes to pass the 240-row answer on, inline and by reference.
func TestReferenceSchemas(t *testing.T) {
	_, url, _, tokens := refsEnv(t, serverOpts{})
	_, plainURL, _, plainTokens := refsEnv(t, serverOpts{noReferenceArgs: true, threshold: 1 << 20})
	listed := func(url, token string) map[string]*mcp.Tool {
		res, err := dialHTTP(t, url, token, nil).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			if strings.Contains(tool.Name, "__") {
				out[tool.Name] = tool
			}
		}
		return out
	}
	invited, plain := listed(url, tokens["alice"]), listed(plainURL, plainTokens["alice"])
	ingest := string(mustJSON(invited["dst__ingest"].InputSchema))
	if want := `{"properties":{"data":{"type":"array"},"data_uri":{"type":["string","array"]}},"type":"object"}`; ingest != want {
		t.Errorf("dst__ingest is advertised with %s, want %s", ingest, want)
	}
	if strings.Contains(string(mustJSON(plain["dst__ingest"].InputSchema)), "data_uri") {
		t.Errorf("with --no-reference-args: %s", mustJSON(plain["dst__ingest"].InputSchema))
	}
	// Strings that name things get no reference; the one that carries
	// content does.
	if cite := string(mustJSON(invited["dst__cite"].InputSchema)); strings.Contains(cite, "doc_uri_uri") || !strings.Contains(cite, `"note_uri":{"type":"string"}`) {
		t.Errorf("dst__cite is advertised with %s", cite)
	}
	// What an X_uri takes is said once, in the instructions.
	initialized := dialHTTP(t, url, tokens["alice"], nil).InitializeResult()
	if !strings.Contains(initialized.Instructions, "X_uri takes") {
		t.Errorf("the instructions: %s", initialized.Instructions)
	}
	// Neither data nor data_uri: the upstream's own schema says what is
	// missing, and the upstream is not called.
	if r := call(t, dialHTTP(t, url, tokens["alice"], nil), "dst__ingest", nil); !r.isError || !strings.Contains(r.text, "invalid_argument") || !strings.Contains(r.text, "data") {
		t.Errorf("neither data nor data_uri: %s", r.text)
	}
	c := counter(t, tokencount.O200kBase)
	tokensOf := func(tools map[string]*mcp.Tool) int {
		var list []*mcp.Tool
		for _, name := range slices.Sorted(maps.Keys(tools)) {
			list = append(list, tools[name])
		}
		return c.Count(string(mustJSON(map[string]any{"tools": list})))
	}
	with, without := tokensOf(invited), tokensOf(plain)
	t.Logf("the test upstreams' tools/list: %d tokens with reference arguments, %d without (+%d)", with, without, with-without)
	if 100*(with-without) > 8*without {
		t.Errorf("the reference arguments cost %d tokens on %d, over 8%%", with-without, without)
	}

	cs := dialHTTP(t, url, tokens["alice"], nil)
	uri := foldedURI(t, call(t, cs, "src__series", nil))
	var series struct{ Series []any }
	json.Unmarshal([]byte(call(t, dialHTTP(t, plainURL, plainTokens["alice"], nil), "src__series", nil).text), &series)
	inline := c.Count(string(mustJSON(map[string]any{"data": series.Series})))
	byRef := c.Count(string(mustJSON(map[string]any{"data_uri": uri + "#/series"})))
	t.Logf("passing the 240-row answer on: %d tokens inline, %d by reference", inline, byRef)
	if byRef >= 40 || len(series.Series) != 240 {
		t.Errorf("by reference %d tokens (%d rows inline, %d tokens)", byRef, len(series.Series), inline)
	}
}

// TestUpstreamsOwnURIArguments: an upstream's own X_uri argument is its
// own: advertised as it is (no X_uri_uri), and passed on as sent, a file
// URI included. Only the X_uri folio adds is substituted, and not at all
// with --no-reference-args.
func TestUpstreamsOwnURIArguments(t *testing.T) {
	e, url, _, tokens := refsEnv(t, serverOpts{})
	_, plainURL, _, plainTokens := refsEnv(t, serverOpts{noReferenceArgs: true})
	doc := e.write(t, "docs/doc.txt", "the doc\n") // its file:// URI
	cs := dialHTTP(t, url, tokens["alice"], nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "dst__cite" {
			if schema := string(mustJSON(tool.InputSchema)); strings.Contains(schema, "doc_uri_uri") || !strings.Contains(schema, `"note_uri"`) {
				t.Errorf("dst__cite is advertised with %s", schema)
			}
		}
	}
	args := map[string]any{"doc_uri": doc, "note": "n"}
	if r := call(t, cs, "dst__cite", args); r.isError || r.text != string(mustJSON(args)) {
		t.Errorf("its own doc_uri: %s", r.text)
	}
	// Folio's own note_uri is substituted; the doc_uri beside it is not.
	if r := call(t, cs, "dst__cite", map[string]any{"doc_uri": doc, "note_uri": doc}); r.isError ||
		r.text != string(mustJSON(map[string]any{"doc_uri": doc, "note": "the doc\n"})) {
		t.Errorf("note_uri beside doc_uri: %s", r.text)
	}
	// --no-reference-args: nothing is substituted; the upstream's schema
	// judges what was sent.
	plain := dialHTTP(t, plainURL, plainTokens["alice"], nil)
	if r := call(t, plain, "dst__ingest", map[string]any{"data_uri": doc}); !r.isError || !strings.Contains(r.text, "invalid_argument") {
		t.Errorf("data_uri with --no-reference-args: %s", r.text)
	}
}

// TestReferenceResources: resources/read of a reference gives the JSON it
// names to its owner, refuses one too large to send whole, and finds
// nothing for another caller.
func TestReferenceResources(t *testing.T) {
	_, url, _, tokens := refsEnv(t, serverOpts{})
	cs := dialHTTP(t, url, tokens["alice"], nil)
	uri := foldedURI(t, call(t, cs, "src__series", nil))
	ctx := context.Background()
	got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri + "#/series/1"})
	if err != nil || got.Contents[0].Text != `{"t":"2026-11-30T00:01:00Z","v":1.5}` || got.Contents[0].MIMEType != "application/json" {
		t.Fatalf("%v %+v", err, got)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "result_query") {
		t.Errorf("the whole series: %v", err)
	}
	if _, err := dialHTTP(t, url, tokens["bob"], nil).ReadResource(ctx, &mcp.ReadResourceParams{URI: uri + "#/series/1"}); err == nil {
		t.Error("another caller read alice's reference")
	}
}
