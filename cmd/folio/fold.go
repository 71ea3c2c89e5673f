package main

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/boltstore"
	"github.com/folio-mcp/folio/fold/redisstore"
	"github.com/folio-mcp/folio/keyfile"
	"github.com/folio-mcp/folio/pager"
)

// foldKeyFile is the name of the secret that handles' keys derive from,
// kept in the cursor key file's directory.
const foldKeyFile = "fold.key"

func foldFlags() []cli.Flag {
	d := fold.DefaultOptions()
	return []cli.Flag{
		&cli.IntFlag{Name: "fold-threshold-bytes", Value: d.ThresholdBytes, EnvVars: []string{"FOLIO_FOLD_THRESHOLD_BYTES"},
			Usage: fmt.Sprintf("tool answers whose JSON is larger fold into a preview, a shape and a handle for result_query (at least %d)", fold.MinThresholdBytes)},
		&cli.IntFlag{Name: "fold-preview-items", Value: d.PreviewItems, EnvVars: []string{"FOLIO_FOLD_PREVIEW_ITEMS"}, Usage: "items of each list the preview keeps"},
		&cli.IntFlag{Name: "fold-preview-chars", Value: d.PreviewChars, EnvVars: []string{"FOLIO_FOLD_PREVIEW_CHARS"}, Usage: "characters of each string the preview keeps"},
		&cli.DurationFlag{Name: "fold-ttl", Value: d.TTL, EnvVars: []string{"FOLIO_FOLD_TTL"}, Usage: "how long a folded answer can be read"},
		&cli.StringFlag{Name: "handle-store", Value: "memory", EnvVars: []string{"FOLIO_HANDLE_STORE"},
			Usage: "where folded answers are kept: memory, bolt:PATH (kept across restarts) or redis://HOST:PORT/DB (shared by replicas)"},
		&cli.IntFlag{Name: "handle-store-max-entries", Value: 1000, EnvVars: []string{"FOLIO_HANDLE_STORE_MAX_ENTRIES"}, Usage: "most answers the memory store keeps; the oldest go first"},
		&cli.Int64Flag{Name: "handle-store-max-bytes", Value: fold.DefaultStoreMaxBytes, EnvVars: []string{"FOLIO_HANDLE_STORE_MAX_BYTES"}, Usage: "most bytes the memory or bolt store keeps; the oldest go first"},
	}
}

// openFolder builds the folder of `folio serve` from its flags, with the
// secret in fold.key beside the cursor key file.
func openFolder(c *cli.Context, log *slog.Logger, counter pager.Counter) (*fold.Folder, func(), error) {
	keyPath, err := cursorKeyFile(c)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := keyfile.Load(filepath.Join(filepath.Dir(keyPath), foldKeyFile), fold.SecretLen, "fold key file")
	if err != nil {
		return nil, nil, err
	}
	store, err := openStore(c, log)
	if err != nil {
		return nil, nil, err
	}
	folder, err := fold.New(secrets[len(secrets)-1], store, counter, fold.Options{
		ThresholdBytes: c.Int("fold-threshold-bytes"),
		PreviewItems:   c.Int("fold-preview-items"),
		PreviewChars:   c.Int("fold-preview-chars"),
		TTL:            c.Duration("fold-ttl"),
		Now:            time.Now,
	})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return folder, func() { store.Close() }, nil
}

// openStore opens the store --handle-store names: "memory", "bolt:PATH" (an
// embedded bbolt file, kept across restarts) or "redis://HOST:PORT/DB" (a
// Redis server, shared by replicas).
func openStore(c *cli.Context, log *slog.Logger) (fold.Store, error) {
	spec, maxBytes := c.String("handle-store"), c.Int64("handle-store-max-bytes")
	if maxBytes < 1 {
		return nil, fmt.Errorf("--handle-store-max-bytes must be positive, not %d", maxBytes)
	}
	switch {
	case spec == "memory":
		if n := c.Int("handle-store-max-entries"); n < 1 {
			return nil, fmt.Errorf("--handle-store-max-entries: the memory store needs room for at least one entry, not %d", n)
		}
		return fold.NewMemoryStore(c.Int("handle-store-max-entries"), int(maxBytes), time.Now), nil
	case strings.HasPrefix(spec, "bolt:"):
		if len(spec) == len("bolt:") {
			return nil, fmt.Errorf("--handle-store %q: give a file, as bolt:PATH", spec)
		}
		return boltstore.Open(spec[len("bolt:"):], maxBytes, time.Now)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		s, err := redisstore.Open(spec, log)
		if err != nil {
			return nil, err
		}
		if err := s.Ping(c.Context); err != nil {
			log.Warn("the Redis handle store does not answer now; large answers go whole until it does", "err", err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("--handle-store: unknown store %q: want memory, bolt:PATH or redis://HOST:PORT/DB", spec)
}
