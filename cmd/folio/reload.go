package main

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/folio-mcp/folio/upstream"
)

// reloadSettle is how long the upstreams file must be left alone after a
// change before it is read: an editor's save is several events.
const reloadSettle = 200 * time.Millisecond

// watchUpstreams reloads the gateway's upstreams from path each time the
// file changes (watched through its directory, so that an editor's
// rename-into-place counts) and on SIGHUP, until ctx ends. A file that
// does not parse changes nothing: the error, which names the server and
// field at fault, is logged. A file whose bytes did not change is not
// reloaded, but SIGHUP always reloads.
func watchUpstreams(ctx context.Context, log *slog.Logger, path string, g *upstream.Gateway) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var events <-chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err != nil {
		log.Warn("the upstreams file is not watched: SIGHUP reloads it", "err", err)
	} else {
		defer w.Close()
		if err := w.Add(filepath.Dir(path)); err != nil {
			log.Warn("the upstreams file is not watched: SIGHUP reloads it", "err", err)
		} else {
			events = w.Events
		}
	}
	last := fileSum(path)
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	reload := func(why string) {
		servers, err := upstream.Load(path)
		if err != nil {
			log.Error("the upstreams file was not reloaded: nothing changed", "why", why, "err", err)
			return
		}
		r, err := g.Reload(servers)
		if err != nil {
			log.Error("the upstreams file was not reloaded: nothing changed", "why", why, "err", err)
			return
		}
		log.Info("upstreams reloaded", "why", why, "added", strings.Join(r.Added, ","), "removed", strings.Join(r.Removed, ","), "changed", strings.Join(r.Changed, ","))
	}
	base := filepath.Base(path)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			last = fileSum(path)
			reload("SIGHUP")
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Base(ev.Name) == base {
				settle.Reset(reloadSettle)
			}
		case <-settle.C:
			if sum := fileSum(path); sum != last {
				last = sum
				reload("the file changed")
			}
		}
	}
}

// fileSum is the SHA-256 of the file at path, zero when it cannot be read.
func fileSum(path string) [32]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(data)
}
