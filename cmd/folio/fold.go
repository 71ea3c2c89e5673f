package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

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
			Usage: handleStoreUsage()},
		&cli.IntFlag{Name: "handle-store-max-entries", Value: 1000, EnvVars: []string{"FOLIO_HANDLE_STORE_MAX_ENTRIES"}, Usage: "most answers the memory store keeps; the oldest go first"},
		&cli.Int64Flag{Name: "handle-store-max-bytes", Value: fold.DefaultStoreMaxBytes, EnvVars: []string{"FOLIO_HANDLE_STORE_MAX_BYTES"}, Usage: "most bytes the memory or bolt store keeps; the oldest go first"},
	}
}

// foldOptions are the fold and handle-store flags of serve, checked.
type foldOptions struct {
	fold.Options
	// cursorKeyFile is --cursor-key-file ("" for the default): fold.key,
	// the secret of handles' keys, is beside it.
	cursorKeyFile string
	// store is the store --handle-store names (see handleStores), and
	// storeAt its place (the bolt file, the Redis URL).
	store           handleStore
	storeAt         string
	storeMaxEntries int
	storeMaxBytes   int64
}

// readFoldOptions reads and checks the fold and handle-store flags.
func readFoldOptions(c *cli.Context) (foldOptions, error) {
	o := foldOptions{
		Options: fold.Options{
			ThresholdBytes: c.Int("fold-threshold-bytes"),
			PreviewItems:   c.Int("fold-preview-items"),
			PreviewChars:   c.Int("fold-preview-chars"),
			TTL:            c.Duration("fold-ttl"),
			Now:            time.Now,
		},
		storeMaxEntries: c.Int("handle-store-max-entries"),
		storeMaxBytes:   c.Int64("handle-store-max-bytes"),
	}
	if err := o.Check(); err != nil {
		return o, err
	}
	o.cursorKeyFile = c.String("cursor-key-file")
	if o.storeMaxBytes < 1 {
		return o, fmt.Errorf("--handle-store-max-bytes must be positive, not %d", o.storeMaxBytes)
	}
	var err error
	o.store, o.storeAt, err = parseHandleStore(c.String("handle-store"), o)
	if err != nil {
		return o, err
	}
	return o, nil
}

// openFolder builds the folder of `folio serve`, with the secret in
// fold.key beside the cursor key file.
func openFolder(ctx context.Context, o foldOptions, log *slog.Logger, counter pager.Counter) (*fold.Folder, func(), error) {
	keyPath, err := keyFilePath(o.cursorKeyFile)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := keyfile.Load(filepath.Join(filepath.Dir(keyPath), foldKeyFile), fold.SecretLen, "fold key file")
	if err != nil {
		return nil, nil, err
	}
	store, err := openStore(ctx, o, log)
	if err != nil {
		return nil, nil, err
	}
	folder, err := fold.New(secrets[len(secrets)-1], store, counter, o.Options)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return folder, func() { store.Close() }, nil
}

// openStore opens the handle store --handle-store named (see
// handleStores).
func openStore(ctx context.Context, o foldOptions, log *slog.Logger) (fold.Store, error) {
	return o.store.open(ctx, o.storeAt, o, log)
}
