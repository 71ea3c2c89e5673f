package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/llmstxt"
)

// Bounds of the llms.txt and llms-full.txt that serve makes for its roots.
const (
	// servedFullBytes bounds a served llms-full.txt: 8 MiB, about two
	// million tokens; past it a last line says what was left out.
	servedFullBytes = 8 << 20
	// madeCacheBytes bounds what the cache of made files holds.
	madeCacheBytes = 2 * servedFullBytes
	// madeTTL is how long a made file is served from the cache at most,
	// even when the watcher tells of no change (a directory it could not
	// watch).
	madeTTL = time.Minute
)

// made is a root's llms.txt or llms-full.txt as folio made it for one
// caller's view.
type made struct {
	text   []byte
	at     time.Time
	change int64 // Server.changes when it began to be made
}

// madeKey names a made file: the caller's grant (its token and allow
// list, which decide what it may see), the root and the file's name.
type madeKey struct{ grant, root, name string }

// madeFiles caches the files made for the roots, while the watcher tells
// of no change; without a watcher (a stateless server) each request makes
// them again. One is made at a time.
type madeFiles struct {
	// watching: the watcher runs, and counts changes in Server.changes.
	watching atomic.Bool
	// making is held by the one making a file (see turn).
	making     chan struct{}
	makingOnce sync.Once

	mu    sync.Mutex
	files map[madeKey]*made
	size  int
}

// get is the cached file of key, when it is current: made after the last
// change the watcher told of, within madeTTL.
func (m *madeFiles) get(key madeKey, change int64) *made {
	if !m.watching.Load() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files[key]
	if f == nil || f.change != change || time.Since(f.at) > madeTTL {
		return nil
	}
	return f
}

// turn waits until no other file is being made, or ctx ends; done ends
// the turn.
func (m *madeFiles) turn(ctx context.Context) (done func(), err error) {
	m.makingOnce.Do(func() { m.making = make(chan struct{}, 1) })
	select {
	case m.making <- struct{}{}:
		return func() { <-m.making }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put caches f under key, dropping the oldest files past madeCacheBytes.
func (m *madeFiles) put(key madeKey, f *made) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[madeKey]*made{}
	}
	if old := m.files[key]; old != nil {
		m.size -= len(old.text)
	}
	m.files[key] = f
	m.size += len(f.text)
	for m.size > madeCacheBytes {
		var oldest madeKey
		for k, g := range m.files {
			if m.files[oldest] == nil || g.at.Before(m.files[oldest].at) {
				oldest = k
			}
		}
		m.size -= len(m.files[oldest].text)
		delete(m.files, oldest)
	}
}

// maker makes the llms.txt and llms-full.txt of the roots for one
// caller (the grant that decides what it may see), cached in Server.made:
// the caller's view serves them (see fsview.FS.Open) when a root has no
// file of that name and the caller may see the name.
type maker struct {
	s     *Server
	grant string
}

// Makes reports whether base is llms.txt or llms-full.txt.
func (m maker) Makes(base string) bool { return base == llmstxt.IndexName || base == llmstxt.FullName }

// Make is the file named base of root, as view shows the tree: the
// cached one while the watcher tells of no change, else made again.
func (m maker) Make(ctx context.Context, view *fsview.FS, root, base string) ([]byte, error) {
	s := m.s
	key := madeKey{grant: m.grant, root: root, name: base}
	change := s.changes.Load()
	if f := s.made.get(key, change); f != nil {
		return f.text, nil
	}
	done, err := s.made.turn(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if f := s.made.get(key, change); f != nil {
		return f.text, nil // made while this call waited
	}
	watched := s.made.watching.Load()
	f, err := s.makeFile(ctx, view, root, base, change)
	if err != nil {
		return nil, err
	}
	if watched {
		// Made after the watcher began: a change from now on is told.
		s.made.put(key, f)
	}
	return f.text, nil
}

// makeFile makes the file named base of the root, as view shows the tree.
func (s *Server) makeFile(ctx context.Context, view *fsview.FS, root, base string, change int64) (*made, error) {
	f := &made{at: time.Now(), change: change}
	opt := llmstxt.Options{MaxFullBytes: servedFullBytes}
	var err error
	if base == llmstxt.IndexName {
		f.text, err = llmstxt.Index(ctx, view, root, opt)
	} else {
		var full bytes.Buffer
		_, err = llmstxt.Write(ctx, view, root, opt, &full)
		f.text = full.Bytes()
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// madeResources are the resources of the llms.txt and llms-full.txt of
// the root d that folio makes for the caller (see maker): those with
// no file of their name in the root, that the caller may see.
func madeResources(view *fsview.FS, d fsview.File) []*mcp.Resource {
	var res []*mcp.Resource
	for _, name := range []string{llmstxt.IndexName, llmstxt.FullName} {
		p := filepath.Join(d.Path, name)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && view.Permits(p) {
			res = append(res, &mcp.Resource{URI: fileuri.Of(p), Name: name, MIMEType: "text/plain",
				Description: "made by folio from the documents under this root (llmstxt.org)"})
		}
	}
	return res
}
