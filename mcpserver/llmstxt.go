package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/llmstxt"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
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
	uri     string
	text    []byte
	version fsview.Version // the BLAKE3 of text
	at      time.Time
	change  int64 // Server.changes when it began to be made
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

// madeFile is the llms.txt or llms-full.txt that name (a path or URI) asks
// for, as folio makes it for the caller: when name is one of the two in a
// root, the caller may see that name, and no file by that name is there
// (a real one wins, and keeps its own answers, not_found included).
// ok is false for any other name.
func (s *Server) madeFile(ctx context.Context, c *caller, name string) (f *made, ok bool, err error) {
	base := path.Base(filepath.ToSlash(name))
	if base != llmstxt.IndexName && base != llmstxt.FullName {
		return nil, false, nil
	}
	root, ok := madeRoot(c.fs, name)
	if !ok {
		return nil, false, nil
	}
	p := filepath.Join(root.Path, base)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) || !c.fs.Permits(p) {
		return nil, false, nil
	}
	key := madeKey{grant: c.grant, root: root.Path, name: base}
	change := s.changes.Load()
	if f := s.made.get(key, change); f != nil {
		return f, true, nil
	}
	done, err := s.made.turn(ctx)
	if err != nil {
		return nil, true, err
	}
	defer done()
	if f := s.made.get(key, change); f != nil {
		return f, true, nil // made while this call waited
	}
	watched := s.made.watching.Load()
	f, err = s.makeFile(ctx, c.fs, root, base, change)
	if err != nil {
		return nil, true, err
	}
	if watched {
		// Made after the watcher began: a change from now on is told.
		s.made.put(key, f)
	}
	return f, true, nil
}

// madeRoot is the root whose llms.txt or llms-full.txt name (a path or
// URI that ends in either) names, when the view shows it: a name without
// a slash is the first root's, as any relative name resolves.
func madeRoot(view *fsview.FS, name string) (fsview.File, bool) {
	dir := "."
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir = name[:max(i, 1)] // "/llms.txt": "/"
	}
	d, err := view.Resolve(dir)
	if err != nil || !d.IsDir() || d.Rel != "." {
		return fsview.File{}, false
	}
	return d, true
}

// makeFile makes the file named base of the root, as view shows the tree.
func (s *Server) makeFile(ctx context.Context, view *fsview.FS, root fsview.File, base string, change int64) (*made, error) {
	f := &made{uri: fileuri.Of(filepath.Join(root.Path, base)), at: time.Now(), change: change}
	opt := llmstxt.Options{MaxFullBytes: servedFullBytes}
	var err error
	if base == llmstxt.IndexName {
		f.text, err = llmstxt.Index(ctx, view, root.Path, opt)
	} else {
		var full bytes.Buffer
		_, err = llmstxt.Write(ctx, view, root.Path, opt, &full)
		f.text = full.Bytes()
	}
	if err != nil {
		return nil, err
	}
	f.version = fsview.VersionOf(f.text)
	return f, nil
}

// madeResources are the resources of the llms.txt and llms-full.txt of
// the root d that folio makes for the caller (see madeFile): those with
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

// page is a page of the file pr names, or of the llms.txt or
// llms-full.txt folio makes for the caller (see madeFile): the read tool's
// pages of either are alike.
func (s *Server) page(ctx context.Context, c *caller, pr reader.PageRequest) (pager.Page, error) {
	f, ok, err := s.madeFile(ctx, c, pr.Name)
	switch {
	case err != nil:
		return pager.Page{}, err
	case ok:
		return c.reader.PageOf(ctx, f.text, f.uri, pr)
	}
	return c.reader.Page(ctx, pr)
}

// lines is ReadLines of the file lr names, or of a made file (see page).
func (s *Server) lines(ctx context.Context, c *caller, lr reader.LineRequest) (*reader.Lines, error) {
	f, ok, err := s.madeFile(ctx, c, lr.Name)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return c.reader.LinesOf(ctx, f.text, f.uri, lr)
	}
	return c.reader.ReadLines(ctx, lr)
}

// madeContents is a made file whole as a resource, within the caps of any
// resource read (see fileContents).
func (s *Server) madeContents(name string, f *made) (*mcp.ResourceContents, mcp.Meta, error) {
	if len(f.text) > s.cfg.MaxAnswerBytes {
		return nil, nil, resourceError(name, overBound(name, len(f.text), 0, s.cfg.MaxAnswerBytes))
	}
	if s.overTokenCap(f.text) {
		return nil, nil, resourceError(name, toolerr.New(toolerr.CodeTooLarge, "%s is over the %d tokens a resource read gives: read it with the read tool, in pages (max_tokens) or in lines (offset and limit)", name, s.cfg.LineMaxTokens))
	}
	contents := &mcp.ResourceContents{URI: f.uri, MIMEType: "text/plain", Text: string(f.text)}
	return contents, mcp.Meta{wire.MetaVersion: f.version.String()}, nil
}
