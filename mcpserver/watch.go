package mcpserver

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
)

// notifyDelay gathers the events of one save (write, chmod, rename) into
// one notification per file.
const notifyDelay = 50 * time.Millisecond

// Watch watches every visible directory under the roots and, until ctx
// ends, sends notifications/resources/updated to the subscribers of a file
// that changes (or goes) and notifications/resources/list_changed when
// files appear or disappear. With a docs index (Config.Docs), it builds
// the index in the background and keeps it current from the same events.
// A stateless server has no subscribers, so without a docs index it does
// not watch. It returns once the index's build has ended, logged and been
// saved.
func (s *Server) Watch(ctx context.Context) error {
	if s.cfg.Docs != nil {
		built := make(chan struct{})
		go func() { s.buildDocs(ctx); close(built) }()
		defer func() { <-built }()
	} else if s.cfg.Stateless {
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
	// The files made for the roots are kept while no change is told.
	s.made.watching.Store(true)
	defer s.made.watching.Store(false)
	updated := map[string]bool{}
	var came []string // names that appeared or went since the last notification
	armed := false
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
			came = s.followListing(ctx, w, ev, came)
			updated[fileuri.Of(ev.Name)] = true
			if !armed {
				// Not reset by later events: a file written without pause
				// is still notified, once per delay.
				armed = true
				timer.Reset(notifyDelay)
			}
		case <-timer.C:
			armed = false
			s.changes.Add(1)
			s.refreshDocs(ctx, updated)
			if !s.cfg.Stateless {
				s.notifyChanges(ctx, updated, came)
			}
			clear(updated)
			came = nil
		}
	}
}

// notifyChanges sends resources/updated for each updated URI, and
// resources/list_changed when names came or went.
func (s *Server) notifyChanges(ctx context.Context, updated map[string]bool, came []string) {
	for uri := range updated {
		s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
	if len(came) > 0 {
		s.setListChange(came)
		s.resourceListChanged()
	}
}

// followListing keeps the watch and the list change up with the event
// ev: a listed directory that was created is watched, and a listed name
// that appeared or went is added to came (while it holds fewer than
// maxListChange), which it returns.
func (s *Server) followListing(ctx context.Context, w *fsnotify.Watcher, ev fsnotify.Event, came []string) []string {
	// What the ignore files exclude is not listed: its coming and
	// going change no list, and a new ignored directory is not
	// watched. A subscriber to an ignored file still hears of it.
	info, err := os.Lstat(ev.Name)
	isDir := err == nil && info.IsDir()
	listed := !s.cfg.FS.Ignored(ev.Name, isDir)
	if ev.Has(fsnotify.Create) && isDir && listed {
		s.watchTree(ctx, w, ev.Name)
	}
	if (ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && listed && len(came) < maxListChange {
		came = append(came, ev.Name)
	}
	return came
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
	root := fileuri.Of(s.cfg.FS.Roots()[0])
	s.mcp.AddResource(&mcp.Resource{URI: root, Name: "root", MIMEType: "text/plain"}, s.readResource)
}

// maxListChange bounds the names one list_changed notification is judged
// by: a session that may see only names past it (in a change of thousands
// of files at once) is not told.
const maxListChange = 4096

// listChange is what a list_changed notification is about: the names that
// appeared or went, and those of the change before when it is recent (the
// SDK sends the notification a little later, and a newer change may be set
// by then).
type listChange struct {
	own, names []string
	at         time.Time
}

func (s *Server) setListChange(came []string) {
	c := &listChange{own: came, names: came, at: time.Now()}
	if prev := s.listChange.Load(); prev != nil && c.at.Sub(prev.at) < time.Second {
		c.names = append(slices.Clip(came), prev.own...)
	}
	s.listChange.Store(c)
}

// guardNotifications sends resources/updated only to a session whose token
// may still see the file (a static token not revoked, its allow list not
// narrowed since it subscribed; an OAuth grant while a token that gave it
// is unexpired, revoked or not), and resources/list_changed only to a
// session that may see
// one of the names that appeared or went. A notification that cannot be
// delivered is logged once per change, not once per session.
func (s *Server) guardNotifications(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		switch p := req.GetParams().(type) {
		case *mcp.ResourceUpdatedNotificationParams:
			if s.authenticates() {
				hash := ""
				s.sessions.with(ss, func(st *sessionState) { hash = st.subscribedWith })
				if _, view, err := s.identity(hash); err != nil || !view.Permits(p.URI) {
					return nil, nil
				}
			}
		case *mcp.ToolListChangedParams:
			// Only the sessionless era is told: a session keeps its
			// tools, and hears of drift (see tellDrift).
			if ss == nil || !sessionlessEra(ss) {
				return nil, nil
			}
		case *mcp.ResourceListChangedParams:
			if !s.mayHear(ss, s.listChange.Load()) {
				return nil, nil
			}
		default:
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		if err != nil {
			if change := s.changes.Load(); s.failLogged.Swap(change) != change {
				s.log.Warn("a notification could not be delivered to a session (logged once per change)", "method", method, "err", err)
			}
			return nil, nil
		}
		return res, nil
	}
}

// mayHear reports whether the session ss may see a name of change c.
func (s *Server) mayHear(ss *mcp.ServerSession, c *listChange) bool {
	if c == nil {
		return false
	}
	view := s.cfg.FS
	if s.authenticates() {
		// An HTTP session is its opener's; a listen stream of the
		// sessionless era, its caller's.
		hash := ""
		if who, ok := s.openerOf(ss); ok {
			hash = who.tokenHash
		} else {
			s.sessions.with(ss, func(st *sessionState) { hash = st.tokenHash })
		}
		if hash == "" {
			return false
		}
		var err error
		if _, view, err = s.identity(hash); err != nil {
			return false
		}
	}
	for _, name := range c.names {
		if view.Permits(name) {
			return true
		}
	}
	return false
}
