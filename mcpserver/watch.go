package mcpserver

import (
	"context"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
)

// notifyDelay gathers the events of one save (write, chmod, rename) into
// one notification per file.
const notifyDelay = 50 * time.Millisecond

// Watch watches every visible directory under the roots and, until ctx
// ends, sends notifications/resources/updated to the subscribers of a file
// that changes (or goes) and notifications/resources/list_changed when
// files appear or disappear. A stateless server has no subscribers, so it
// does not watch.
func (s *Server) Watch(ctx context.Context) error {
	if s.cfg.Stateless {
		<-ctx.Done()
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	for _, root := range s.cfg.FS.Roots() {
		s.watchTree(ctx, w, root)
	}
	updated := map[string]bool{}
	listChanged, armed := false, false
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			s.log.Warn("watching files", "err", err)
		case ev := <-w.Events:
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					s.watchTree(ctx, w, ev.Name)
				}
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				listChanged = true
			}
			updated[fsview.URI(ev.Name)] = true
			if !armed {
				// Not reset by later events: a file written without pause
				// is still notified, once per delay.
				armed = true
				timer.Reset(notifyDelay)
			}
		case <-timer.C:
			armed = false
			for uri := range updated {
				s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
			clear(updated)
			if listChanged {
				listChanged = false
				s.resourceListChanged()
			}
		}
	}
}

// watchTree watches dir and every visible directory under it.
func (s *Server) watchTree(ctx context.Context, w *fsnotify.Watcher, dir string) {
	d, err := s.cfg.FS.Resolve(dir)
	if err != nil || !d.IsDir() {
		return // hidden: denied, or gone already
	}
	add := func(p string) {
		if err := w.Add(p); err != nil {
			s.log.Warn("cannot watch a directory: its changes will not be notified", "dir", p, "err", err)
		}
	}
	add(d.Path)
	s.cfg.FS.List(ctx, d, fsview.ListOptions{}, func(f fsview.File) error {
		if f.IsDir() {
			add(f.Path)
		}
		return nil
	})
}

// resourceListChanged sends notifications/resources/list_changed. The SDK
// sends it when its own resource set changes, and folio answers
// resources/list itself, so it registers the first root's directory as a
// resource again (reading it is the "is a directory" error that the
// template would give anyway).
func (s *Server) resourceListChanged() {
	root := fsview.URI(s.cfg.FS.Roots()[0])
	s.mcp.AddResource(&mcp.Resource{URI: root, Name: "root", MIMEType: "text/plain"}, s.readResource)
}
