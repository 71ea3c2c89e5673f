package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/storetest"
	"github.com/folio-mcp/folio/internal/redistest"
)

// TestHandleStoreUsage holds the help of --handle-store, which the table
// of stores makes, to its words.
func TestHandleStoreUsage(t *testing.T) {
	t.Parallel()
	const want = "where folded answers are kept: memory, bolt:PATH (kept across restarts) or redis://HOST:PORT/DB (shared by replicas)"
	if got := handleStoreUsage(); got != want {
		t.Errorf("usage %q, want %q", got, want)
	}
}

// TestParseHandleStore: each spec finds its store and place, or the error
// --handle-store has always given, word for word.
func TestParseHandleStore(t *testing.T) {
	t.Parallel()
	o := foldOptions{storeMaxEntries: 1000, storeMaxBytes: fold.DefaultStoreMaxBytes}
	none := o
	none.storeMaxEntries = 0
	for _, tc := range []struct {
		spec      string
		o         foldOptions
		form, at  string
		wantError string
	}{
		{"memory", o, "memory", "", ""},
		{"bolt:/var/h.db", o, "bolt:PATH", "/var/h.db", ""},
		{"redis://127.0.0.1:6379/0", o, "redis://HOST:PORT/DB", "redis://127.0.0.1:6379/0", ""},
		{"rediss://h:6380/1", o, "redis://HOST:PORT/DB", "rediss://h:6380/1", ""},
		// The entries bound is the memory store's alone.
		{"bolt:h.db", none, "bolt:PATH", "h.db", ""},
		{"memory", none, "", "", "--handle-store-max-entries: the memory store needs room for at least one entry, not 0"},
		{"bolt:", o, "", "", `--handle-store "bolt:": give a file, as bolt:PATH`},
		{"postgres://x", o, "", "", `--handle-store: unknown store "postgres://x": want memory, bolt:PATH or redis://HOST:PORT/DB`},
		{"mem", o, "", "", `--handle-store: unknown store "mem": want memory, bolt:PATH or redis://HOST:PORT/DB`},
		{"redis:/x", o, "", "", `--handle-store: unknown store "redis:/x": want memory, bolt:PATH or redis://HOST:PORT/DB`},
		{"", o, "", "", `--handle-store: unknown store "": want memory, bolt:PATH or redis://HOST:PORT/DB`},
	} {
		s, at, err := parseHandleStore(tc.spec, tc.o)
		switch {
		case tc.wantError != "":
			if err == nil || err.Error() != tc.wantError {
				t.Errorf("%q: %v, want the error %q", tc.spec, err, tc.wantError)
			}
		case err != nil || s.form != tc.form || at != tc.at:
			t.Errorf("%q: %q at %q, %v; want %q at %q", tc.spec, s.form, at, err, tc.form, tc.at)
		}
	}
}

// TestOpenHandleStores opens each store of the table as serve does, and
// holds it to the contract every store keeps.
func TestOpenHandleStores(t *testing.T) {
	t.Parallel()
	o := foldOptions{storeMaxEntries: 10, storeMaxBytes: fold.DefaultStoreMaxBytes}
	for _, spec := range []string{"memory", "bolt:" + filepath.Join(t.TempDir(), "h.db"), "redis"} {
		t.Run(spec, func(t *testing.T) {
			if spec == "redis" {
				spec = redistest.Shared(t).URL
			}
			var err error
			o.store, o.storeAt, err = parseHandleStore(spec, o)
			if err != nil {
				t.Fatal(err)
			}
			s, err := openStore(context.Background(), o, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			storetest.Contract(t, s)
		})
	}
}
