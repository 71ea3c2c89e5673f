package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/boltstore"
	"github.com/folio-mcp/folio/fold/redisstore"
)

// handleStore is one kind of handle store that --handle-store names:
// how the flag names it, how its spec is read, and how it is opened.
// Adding a store is adding a row to handleStores (and the store's own
// package, which passes fold/storetest).
type handleStore struct {
	// form is how the flag's help names the store (memory, bolt:PATH),
	// and note what the help says of it after, if anything.
	form, note string
	// takes reports whether spec (--handle-store as given) names this
	// kind of store.
	takes func(spec string) bool
	// parse checks spec and o's bounds for this store, and returns where
	// the store is (a file, a URL; "" for none). Its errors are usage
	// errors.
	parse func(spec string, o foldOptions) (at string, err error)
	// open opens the store at at, bounded by o.
	open func(ctx context.Context, at string, o foldOptions, log *slog.Logger) (fold.Store, error)
}

// handleStores are the handle stores folio keeps folded answers in, in
// the order the flag's help tells them and specs are matched.
func handleStores() []handleStore {
	return []handleStore{
		{
			form:  "memory",
			takes: func(spec string) bool { return spec == "memory" },
			parse: func(_ string, o foldOptions) (string, error) {
				if o.storeMaxEntries < 1 {
					return "", fmt.Errorf("--handle-store-max-entries: the memory store needs room for at least one entry, not %d", o.storeMaxEntries)
				}
				return "", nil
			},
			open: func(_ context.Context, _ string, o foldOptions, _ *slog.Logger) (fold.Store, error) {
				return fold.NewMemoryStore(o.storeMaxEntries, int(o.storeMaxBytes), time.Now), nil
			},
		},
		{
			form: "bolt:PATH", note: "kept across restarts",
			takes: func(spec string) bool { return strings.HasPrefix(spec, "bolt:") },
			parse: func(spec string, _ foldOptions) (string, error) {
				if len(spec) == len("bolt:") {
					return "", fmt.Errorf("--handle-store %q: give a file, as bolt:PATH", spec)
				}
				return spec[len("bolt:"):], nil
			},
			open: func(_ context.Context, at string, o foldOptions, _ *slog.Logger) (fold.Store, error) {
				return boltstore.Open(at, o.storeMaxBytes, time.Now)
			},
		},
		{
			form: "redis://HOST:PORT/DB", note: "shared by replicas",
			takes: func(spec string) bool {
				return strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://")
			},
			parse: func(spec string, _ foldOptions) (string, error) { return spec, nil },
			open: func(ctx context.Context, at string, _ foldOptions, log *slog.Logger) (fold.Store, error) {
				s, err := redisstore.Open(at, log)
				if err != nil {
					return nil, err
				}
				if err := s.Ping(ctx); err != nil {
					log.Warn("the Redis handle store does not answer now; large answers go whole until it does", "err", err)
				}
				return s, nil
			},
		},
	}
}

// storeForms lists the stores' forms, each with its note in parentheses
// when notes is set: "a, b (note) or c".
func storeForms(stores []handleStore, notes bool) string {
	var forms []string
	for _, s := range stores {
		f := s.form
		if notes && s.note != "" {
			f += " (" + s.note + ")"
		}
		forms = append(forms, f)
	}
	if len(forms) < 2 {
		return strings.Join(forms, "")
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1]
}

// handleStoreUsage is the help of --handle-store.
func handleStoreUsage() string {
	return "where folded answers are kept: " + storeForms(handleStores(), true)
}

// parseHandleStore finds the store spec names, and reads spec for it.
func parseHandleStore(spec string, o foldOptions) (handleStore, string, error) {
	stores := handleStores()
	for _, s := range stores {
		if s.takes(spec) {
			at, err := s.parse(spec, o)
			return s, at, err
		}
	}
	return handleStore{}, "", fmt.Errorf("--handle-store: unknown store %q: want %s", spec, storeForms(stores, false))
}
