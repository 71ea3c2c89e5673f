package fold

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/schema"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

// recordingStore is a real memory store that also keeps a copy of every
// record put, to show what a store sees.
type recordingStore struct {
	*MemoryStore
	mu   sync.Mutex
	puts map[string][]byte
	gets []string
}

func (r *recordingStore) Put(ctx context.Context, key string, record []byte, expires time.Time) error {
	r.mu.Lock()
	r.puts[key] = bytes.Clone(record)
	r.mu.Unlock()
	return r.MemoryStore.Put(ctx, key, record, expires)
}

func (r *recordingStore) Get(ctx context.Context, key string) ([]byte, error) {
	r.mu.Lock()
	r.gets = append(r.gets, key)
	r.mu.Unlock()
	return r.MemoryStore.Get(ctx, key)
}

func testSecret() []byte { return bytes.Repeat([]byte{7}, SecretLen) }

func newTestFolder(t testing.TB, store Store, clk *mcptest.Clock, opt Options) *Folder {
	t.Helper()
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	if opt.ThresholdBytes == 0 {
		opt = DefaultOptions()
	}
	if clk != nil {
		opt.Now = clk.Now
	}
	f, err := New(testSecret(), store, counter, opt)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var alice = Owner{Session: "session-7f3a9c", Subject: "alice"}

func TestFoldAndQuery(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	data := corpus.Listing(2000)
	folded, err := f.Fold(ctx, alice, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if folded.Bytes != len(data) || len(folded.JSON) > f.Threshold() {
		t.Fatalf("folded %d bytes into %d (threshold %d)", folded.Bytes, len(folded.JSON), f.Threshold())
	}
	var got struct {
		Preview struct{ Entries []map[string]any }
		Shape   struct {
			Keys struct{ Entries struct{ Length int } }
		}
		Handle string
	}
	if err := json.Unmarshal(folded.JSON, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Preview.Entries) != DefaultPreviewItems || got.Shape.Keys.Entries.Length != 2000 || got.Handle != folded.Handle || len(got.Handle) != 22 {
		t.Fatalf("folded answer: %s", folded.JSON)
	}
	if !strings.Contains(folded.Text(), "result_query") || !strings.Contains(folded.Hint, `"path":"entries"`) {
		t.Errorf("hint: %s", folded.Hint)
	}

	q := func(q Query) string {
		t.Helper()
		q.Handle = folded.Handle
		a, err := f.Query(ctx, alice, q)
		if err != nil {
			t.Fatalf("Query(%+v): %v", q, err)
		}
		return string(a.JSON)
	}
	ip := func(n int) *int { return &n }
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Path: "entries.2.path"}, `{"path":"entries.2.path","value":"dir2/file00002.go","total":17,"offset":0}`},
		{Query{Path: "$.entries[2].path", Offset: ip(5)}, `{"path":"$.entries[2].path","value":"file00002.go","total":17,"offset":5}`},
		{Query{Path: "/entries/2/path", Limit: ip(3)}, `{"path":"/entries/2/path","value":"dir","total":17,"offset":0,"next_offset":3}`},
		{Query{Path: "/truncated"}, `{"path":"/truncated","value":false}`},
		{Query{Path: "entries", Offset: ip(1998), Fields: []string{"size"}}, `{"path":"entries","value":[{"size":25974},{"size":25987}],"total":2000,"offset":1998}`},
		{Query{Path: "entries", Page: ip(3), Limit: ip(2), Fields: []string{"path"}}, `{"path":"entries","value":[{"path":"dir4/file00004.go"},{"path":"dir5/file00005.go"}],"total":2000,"offset":4,"next_offset":6}`},
		{Query{Path: "entries", Offset: ip(2000)}, `{"path":"entries","value":[],"total":2000,"offset":2000}`},
		{Query{Fields: []string{"uri", "truncated"}}, `{"path":"$","value":{"uri":"file:///src","truncated":false}}`},
		{Query{Offset: ip(0), Limit: ip(1)}, `{"path":"$","value":{"uri":"file:///src"},"total":3,"offset":0,"next_offset":1}`},
	} {
		if got := q(tc.q); got != tc.want {
			t.Errorf("Query(%+v)\n got  %s\n want %s", tc.q, got, tc.want)
		}
	}
	// The default slice of a list is 20 items.
	var page struct {
		Value      []json.RawMessage
		NextOffset int `json:"next_offset"`
	}
	if err := json.Unmarshal([]byte(q(Query{Path: "entries"})), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Value) != defaultItems || page.NextOffset != defaultItems {
		t.Errorf("default slice: %d items, next %d", len(page.Value), page.NextOffset)
	}
}

func TestQueryErrors(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	folded, err := f.Fold(ctx, alice, corpus.Listing(2000), nil)
	if err != nil {
		t.Fatal(err)
	}
	ip := func(n int) *int { return &n }
	for _, tc := range []struct {
		q    Query
		code string
		in   string // in the message
	}{
		{Query{Path: "entries.2000"}, toolerr.CodePathNotFound, "past the end of the list at /entries (length 2000)"},
		{Query{Path: "entries.x"}, toolerr.CodePathNotFound, "not an index"},
		{Query{Path: "nope"}, toolerr.CodePathNotFound, `no key "nope"; its keys: "uri", "entries", "truncated"`},
		{Query{Path: "uri.x"}, toolerr.CodePathNotFound, "is a string"},
		{Query{Path: "entries[x]"}, toolerr.CodePathNotFound, "not an index"},
		{Query{Path: "/a~2"}, toolerr.CodePathNotFound, "~ must be followed by 0 or 1"},
		{Query{Path: "entries", Limit: ip(2000)}, toolerr.CodeSliceTooLarge, "read at most"},
		{Query{Path: "entries", Page: ip(1), Offset: ip(0)}, toolerr.CodeInvalidArgument, "page or offset"},
		{Query{Path: "entries", Page: ip(101)}, toolerr.CodeInvalidArgument, "page 101 is past the end"},
		{Query{Path: "entries", Offset: ip(2001)}, toolerr.CodeInvalidArgument, "offset 2001 is past the end"},
		{Query{Path: "entries", Offset: ip(-1)}, toolerr.CodeInvalidArgument, "offset must be 0 or more"},
		{Query{Path: "entries", Limit: ip(0)}, toolerr.CodeInvalidArgument, "limit must be 1 or more"},
		{Query{Path: "entries", MaxTokens: ip(0)}, toolerr.CodeInvalidArgument, "max_tokens must be between 1 and 16777216"},
		{Query{Path: "entries", MaxTokens: ip(1<<24 + 1)}, toolerr.CodeInvalidArgument, "max_tokens must be between 1 and 16777216"},
		{Query{Path: "entries", Fields: []string{"nope"}}, toolerr.CodeInvalidArgument, `field "nope"`},
		{Query{Path: "uri", Fields: []string{"a"}}, toolerr.CodeInvalidArgument, "is a string"},
		{Query{Path: "truncated", Offset: ip(1)}, toolerr.CodeInvalidArgument, "is a boolean"},
		{Query{Path: "entries", MaxTokens: ip(5)}, toolerr.CodeBudgetTooSmall, "retry with max_tokens of"},
		{Query{}, toolerr.CodeSliceTooLarge, "over the 16384-byte limit"},
	} {
		tc.q.Handle = folded.Handle
		_, err := f.Query(ctx, alice, tc.q)
		var fe *toolerr.Error
		if !errors.As(err, &fe) || fe.Code != tc.code || !strings.Contains(fe.Message, tc.in) {
			t.Errorf("Query(%+v) = %v, want %s containing %q", tc.q, err, tc.code, tc.in)
		}
	}
}

func TestQueryMaxTokens(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	folded, err := f.Fold(ctx, alice, corpus.Listing(2000), nil)
	if err != nil {
		t.Fatal(err)
	}
	counter, _ := tokencount.New(tokencount.O200kBase)
	for _, budget := range []int{60, 200, 1000, 3000} {
		offset := 0
		a, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Path: "entries", Offset: &offset, MaxTokens: &budget})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if n := counter.Count(string(a.JSON)); n > budget || n != a.Tokens {
			t.Errorf("budget %d: answer has %d tokens (reported %d)", budget, n, a.Tokens)
		}
		var ans struct {
			Value      []json.RawMessage
			NextOffset int `json:"next_offset"`
		}
		if err := json.Unmarshal(a.JSON, &ans); err != nil {
			t.Fatal(err)
		}
		// One more item would not fit, or would pass the byte threshold.
		more := len(ans.Value) + 1
		b, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Path: "entries", Offset: &offset, Limit: &more})
		if err == nil && counter.Count(string(b.JSON)) <= budget {
			t.Errorf("budget %d: %d items fit, but %d were given", budget, more, len(ans.Value))
		}
		if len(ans.Value) == 0 || ans.NextOffset != len(ans.Value) {
			t.Errorf("budget %d: %d items, next_offset %d", budget, len(ans.Value), ans.NextOffset)
		}
	}
	// A string by tokens.
	budget := 30
	a, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Path: "uri", MaxTokens: &budget})
	if err != nil || !strings.Contains(string(a.JSON), `"value":"file:///src"`) {
		t.Errorf("uri by tokens: %s, %v", a.JSON, err)
	}
}

func TestHandleBinding(t *testing.T) {
	ctx := context.Background()
	store := &recordingStore{MemoryStore: NewMemoryStore(10, DefaultStoreMaxBytes, nil), puts: map[string][]byte{}}
	f := newTestFolder(t, store, nil, Options{})
	data := corpus.Listing(1000)
	folded, err := f.Fold(ctx, alice, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The store holds nothing readable: neither the answer, nor the handle.
	for key, record := range store.puts {
		for _, secret := range []string{"file00001.go", "dir3/", folded.Handle, "alice", alice.Session} {
			if strings.Contains(key, secret) || bytes.Contains(record, []byte(secret)) {
				t.Errorf("the store sees %q", secret)
			}
		}
	}
	for _, other := range []Owner{{Session: "session-other", Subject: "alice"}, {Session: alice.Session, Subject: "bob"}, {Session: alice.Session + "alice"}, {Subject: "alice"}, {Session: alice.Session, Subject: alice.Subject, Grant: "narrowed"}} {
		store.gets = nil
		_, err := f.Query(ctx, other, Query{Handle: folded.Handle})
		if mcptest.Code(err) != toolerr.CodeHandleNotFound {
			t.Errorf("%+v read alice's handle: %v", other, err)
		}
		// Another owner's lookup finds no record at all.
		for _, key := range store.gets {
			if _, ok := store.puts[key]; ok {
				t.Errorf("%+v looked up alice's record", other)
			}
		}
	}
	// A handle never issued, and a malformed one, answer the same.
	for _, h := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "not a handle", ""} {
		_, err := f.Query(ctx, alice, Query{Handle: h})
		var fe *toolerr.Error
		if h == "" {
			if mcptest.Code(err) != toolerr.CodeInvalidArgument {
				t.Errorf("empty handle: %v", err)
			}
			continue
		}
		if !errors.As(err, &fe) || fe.Code != toolerr.CodeHandleNotFound || fe.Message != errHandleNotFound.Message {
			t.Errorf("handle %q: %v", h, err)
		}
	}
	// A record moved under another key does not decrypt: it is bound to
	// its key.
	var key string
	for k := range store.puts {
		key = k
	}
	storeKey, _, _ := f.keys("BBBBBBBBBBBBBBBBBBBBBB", alice)
	store.MemoryStore.Put(ctx, storeKey, store.puts[key], time.Now().Add(time.Hour))
	if _, err := f.Query(ctx, alice, Query{Handle: "BBBBBBBBBBBBBBBBBBBBBB"}); mcptest.Code(err) != toolerr.CodeHandleNotFound {
		t.Errorf("a moved record: %v", err)
	}
	// A flipped bit in the record is not found either.
	tampered := bytes.Clone(store.puts[key])
	tampered[len(tampered)-1] ^= 1
	store.MemoryStore.Put(ctx, key, tampered, time.Now().Add(time.Hour))
	if _, err := f.Query(ctx, alice, Query{Handle: folded.Handle}); mcptest.Code(err) != toolerr.CodeHandleNotFound {
		t.Errorf("a tampered record: %v", err)
	}
}

func TestHandleExpires(t *testing.T) {
	ctx := context.Background()
	clk := mcptest.NewClock(time.Unix(1_800_000_000, 0))
	opt := DefaultOptions()
	opt.TTL = time.Minute
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, clk.Now), clk, opt)
	folded, err := f.Fold(ctx, alice, corpus.Listing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := "truncated"
	clk.Add(59 * time.Second)
	if _, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Path: path}); err != nil {
		t.Fatalf("before the TTL: %v", err)
	}
	clk.Add(time.Second)
	if _, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Path: path}); mcptest.Code(err) != toolerr.CodeHandleNotFound {
		t.Fatalf("at the TTL: %v", err)
	}
}

func TestMemoryStoreBound(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(3, DefaultStoreMaxBytes, nil), nil, Options{})
	var handles []string
	for range 5 {
		folded, err := f.Fold(ctx, alice, corpus.Listing(500), nil)
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, folded.Handle)
	}
	for i, h := range handles {
		_, err := f.Query(ctx, alice, Query{Handle: h, Path: "truncated"})
		if kept := i >= 2; kept != (err == nil) {
			t.Errorf("handle %d: kept %v, err %v", i, kept, err)
		}
	}
	// The byte bound drops the oldest too.
	m := NewMemoryStore(100, 100, nil)
	for i := range 5 {
		m.Put(ctx, fmt.Sprint(i), make([]byte, 40), time.Now().Add(time.Hour))
	}
	if m.Len() != 2 {
		t.Errorf("%d records under a 100-byte bound of 40-byte records", m.Len())
	}
	if _, err := m.Get(ctx, "4"); err != nil {
		t.Error("the newest record was dropped")
	}
}

func TestFoldKeepsWithinThreshold(t *testing.T) {
	ctx := context.Background()
	opt := DefaultOptions()
	opt.ThresholdBytes = MinThresholdBytes
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, opt)
	wide := &jsonvalue.Object{}
	for i := range 2000 {
		wide.Keys = append(wide.Keys, fmt.Sprintf("key-%04d", i))
		wide.Values = append(wide.Values, jsonvalue.Obj("nested", []any{strings.Repeat("x", 600), map[bool]any{}[true]}))
	}
	for name, data := range map[string][]byte{"wide": jsonvalue.Marshal(wide), "list": corpus.Listing(3000), "string list": jsonvalue.Marshal([]any{strings.Repeat("é", 5000)}), "long key": jsonvalue.Marshal(jsonvalue.Obj(strings.Repeat("k", 3000), []any{strings.Repeat("v", 3000)}))} {
		folded, err := f.Fold(ctx, alice, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(folded.Text()) > opt.ThresholdBytes {
			t.Errorf("%s: folded text %d bytes, threshold %d: %s", name, len(folded.Text()), opt.ThresholdBytes, folded.Text())
		}
	}
	for _, scalar := range []string{`42`, `true`, `null`} {
		if _, err := f.Fold(ctx, alice, []byte(scalar), nil); !errors.Is(err, errNotFoldable) {
			t.Errorf("%s folded: %v", scalar, err)
		}
	}
}

func compile(t *testing.T, s string) *schema.Checker {
	t.Helper()
	c, err := schema.Compile([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFoldRespectsOutputSchema(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	data := corpus.Listing(1000)
	strict := compile(t, `{"type":"object","properties":{"entries":{"type":"array"}},"required":["entries"]}`)
	if _, err := f.Fold(ctx, alice, data, strict); err == nil {
		t.Error("a schema that requires entries admitted the folded form")
	}
	union := compile(t, `{"anyOf":[{"type":"object","required":["entries"]},
		{"type":"object","properties":{"preview":{},"shape":{"type":"object"},"handle":{"type":"string"},"uri":{"type":"string"}},"required":["preview","shape","handle"],"additionalProperties":false}]}`)
	if _, err := f.Fold(ctx, alice, data, union); err != nil {
		t.Errorf("a union with the folded form: %v", err)
	}
}

func TestNewValidates(t *testing.T) {
	counter, _ := tokencount.New(tokencount.Estimate)
	store := NewMemoryStore(1, 1, nil)
	bad := []Options{
		{ThresholdBytes: 1023, TTL: time.Minute},
		{ThresholdBytes: 2048, TTL: time.Millisecond},
		{ThresholdBytes: 2048, TTL: time.Minute, PreviewItems: -1},
	}
	for _, opt := range bad {
		if _, err := New(testSecret(), store, counter, opt); err == nil {
			t.Errorf("New accepted %+v", opt)
		}
	}
	if _, err := New([]byte("short"), store, counter, DefaultOptions()); err == nil {
		t.Error("New accepted a short secret")
	}
}

func TestQueryBoundsFields(t *testing.T) {
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	folded, err := f.Fold(context.Background(), alice, corpus.Listing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	fields := make([]string, maxFields+1)
	_, err = f.Query(context.Background(), alice, Query{Handle: folded.Handle, Path: "entries", Fields: fields})
	if mcptest.Code(err) != toolerr.CodeInvalidArgument {
		t.Errorf("%d fields: %v", len(fields), err)
	}
}

// TestReferences: a folded answer carries its reference, which resolves
// to the answer or, with a JSON pointer fragment, to a part of it, for its
// owner only. A long string folds and reads back by characters.
func TestReferences(t *testing.T) {
	ctx := context.Background()
	f := newTestFolder(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil), nil, Options{})
	data := corpus.Listing(1000)
	folded, err := f.Fold(ctx, alice, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Handle, URI string }
	if err := json.Unmarshal(folded.JSON, &body); err != nil || body.URI != "mcp+cache://"+folded.Handle {
		t.Fatalf("folded %s: %v", folded.JSON, err)
	}
	whole, err := f.Resolve(ctx, alice, body.URI)
	if err != nil || !bytes.Equal(whole, data) {
		t.Fatalf("whole: %v", err)
	}
	part, err := f.Resolve(ctx, alice, body.URI+"#/entries/2/path")
	if err != nil || string(part) != `"dir2/file00002.go"` {
		t.Errorf("pointer: %s %v", part, err)
	}
	for uri, code := range map[string]string{
		body.URI + "#/entries/99999":         toolerr.CodePathNotFound,
		body.URI + "#entries":                toolerr.CodePathNotFound,
		"mcp+cache://AAAAAAAAAAAAAAAAAAAAAA": toolerr.CodeHandleNotFound,
		"mcp+cache://not-a-handle":           toolerr.CodeHandleNotFound,
	} {
		if _, err := f.Resolve(ctx, alice, uri); mcptest.Code(err) != code {
			t.Errorf("%s: %v, want %s", uri, err, code)
		}
	}
	if _, err := f.Resolve(ctx, Owner{Session: alice.Session, Subject: "bob"}, body.URI); mcptest.Code(err) != toolerr.CodeHandleNotFound {
		t.Errorf("another subject resolved alice's reference: %v", err)
	}
	text := strings.Repeat("a log line, not JSON\n", 2000)
	folded, err = f.Fold(ctx, alice, jsonvalue.Marshal(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A folded text comes back as text, a run at a time, then a line
	// that says which characters and the call that goes on.
	a, err := f.Query(ctx, alice, Query{Handle: folded.Handle})
	want := text[:defaultChars] + "\n" + fmt.Sprintf(`[folio] characters 0-%d of %d; more: result_query {"handle":%q,"offset":%d}`, defaultChars, len(text), folded.Handle, defaultChars)
	if err != nil || string(a.JSON) != want {
		t.Errorf("a folded string: %.300s %v", a.JSON, err)
	}
	budget := 300
	a, err = f.Query(ctx, alice, Query{Handle: folded.Handle, Offset: &budget, MaxTokens: &budget})
	run, footer, _ := strings.Cut(string(a.JSON), "\n[folio] ")
	if err != nil || a.Tokens > budget || !strings.HasPrefix(text[300:], run) || !strings.HasSuffix(run, "\n") || !strings.Contains(footer, `"max_tokens":300}`) {
		t.Errorf("a run of max_tokens: %d tokens, %.200q %v", a.Tokens, a.JSON, err)
	}
	last := len(text) - 5
	if a, err := f.Query(ctx, alice, Query{Handle: folded.Handle, Offset: &last}); err != nil || string(a.JSON) != "JSON\n\n"+fmt.Sprintf("[folio] characters %d-%d of %d, the end", last, len(text), len(text)) {
		t.Errorf("the last run: %q %v", a.JSON, err)
	}
}

// TestReferencesOfOneCall: the references of one call read each folded
// answer once, however often they name it, read no more than their limit
// in all, and take a pointer percent-encoded (RFC 6901, section 6) or
// not; an ended context stops them.
func TestReferencesOfOneCall(t *testing.T) {
	ctx := context.Background()
	store := &recordingStore{MemoryStore: NewMemoryStore(10, DefaultStoreMaxBytes, nil), puts: map[string][]byte{}}
	f := newTestFolder(t, store, nil, Options{})
	data := []byte(`{"A B":{"x/y":[1,2,3]},"100%":"p","rows":` + string(corpus.Listing(100)) + `}`)
	folded, err := f.Fold(ctx, alice, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.Fold(ctx, alice, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	uri := URI(folded.Handle, "")
	refs := f.References(alice, 2*len(data)-1)
	for ref, want := range map[string]string{
		uri + "#/A B/x~1y/1":          "2",
		uri + "#/A%20B/x~1y/2":        "3",
		uri + "#/100%":                `"p"`,
		uri + "#/100%25":              `"p"`,
		uri + "#/rows/entries/0/path": `"dir0/file00000.go"`,
	} {
		got, err := refs.Resolve(ctx, ref)
		if err != nil || string(got) != want {
			t.Errorf("%s: %s %v, want %s", ref, got, err, want)
		}
	}
	if len(store.gets) != 1 {
		t.Errorf("five references to one answer read the store %d times", len(store.gets))
	}
	// A second answer would read past the limit.
	if _, err := refs.Resolve(ctx, URI(other.Handle, "")); !errors.Is(err, ErrReadLimit) {
		t.Errorf("past the limit: %v", err)
	}
	// Without a limit, each answer is read once too; an ended context
	// stops a pointer.
	refs = f.References(alice, -1)
	if _, err := refs.Resolve(ctx, URI(other.Handle, "")); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := refs.Resolve(cancelled, URI(other.Handle, "/rows/entries/5")); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled pointer: %v", err)
	}
}

// TestFindDeep: a pointer as deep as the answer finds its bottom, and one
// that goes wrong on the way says where, in a message of bounded length.
func TestFindDeep(t *testing.T) {
	const depth = 9000
	data := []byte(strings.Repeat(`{"pad":"xxxx","a":`, depth) + `"bottom"` + strings.Repeat(`}`, depth))
	segs := slices.Repeat([]string{"a"}, depth)
	got, err := find(context.Background(), data, segs)
	if err != nil || string(got) != `"bottom"` {
		t.Fatalf("%s %v", got, err)
	}
	_, err = find(context.Background(), data, append(segs[:depth-1:depth-1], "b"))
	if err == nil || !strings.Contains(err.Error(), `has no key "b"; its keys: "pad", "a"`) || len(err.Error()) > 400 {
		t.Errorf("a wrong last step: %v", err)
	}
	// A key repeated at every level: the last wins, still in one pass.
	data = []byte(strings.Repeat(`{"a":1,"a":`, depth) + `"bottom"` + strings.Repeat(`}`, depth))
	if got, err := find(context.Background(), data, segs); err != nil || string(got) != `"bottom"` {
		t.Errorf("repeated keys: %.100s %v", got, err)
	}
}
