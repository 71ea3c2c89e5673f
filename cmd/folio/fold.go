package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fold"
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
	store, err := fold.OpenStore(c.String("handle-store"), fold.StoreOptions{MaxEntries: c.Int("handle-store-max-entries"), MaxBytes: c.Int64("handle-store-max-bytes")})
	if err != nil {
		return nil, nil, err
	}
	if r, ok := store.(*fold.RedisStore); ok {
		// go-redis logs to the standard logger; its news goes to the
		// debug log, as folio warns of a failed store itself.
		redis.SetLogger(redisLog{log})
		if err := r.Ping(c.Context); err != nil {
			log.Warn("the Redis handle store does not answer now; large answers go whole until it does", "err", err)
		}
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

// redisLog passes go-redis's messages to the debug log.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
