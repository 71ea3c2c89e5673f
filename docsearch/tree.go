package docsearch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/atomicfile"
	"github.com/folio-mcp/folio/outline"
)

// A Tree keeps an Index of the documents under a view's roots: built in
// the background from a walk (the files `list` shows, with the view's
// deny rules, ignore files, size cap and text detection), then kept
// current a file at a time (see Refresh). It answers through a caller's
// own view, so a caller is only ever quoted what it may read.
type Tree struct {
	ix   atomic.Pointer[Index]
	fs   *fsview.FS
	keep func(name string) bool
	// maxBytes caps the text indexed; over it, files are left out.
	maxBytes int64
	// file is where the index is kept between runs, "" for nowhere.
	file string

	built   atomic.Bool
	indexed atomic.Int64 // documents builds have indexed (not found current)
	capped  atomic.Bool
	mu      sync.Mutex // serialises Refresh's reads of one file
}

// TreeOptions shape a Tree.
type TreeOptions struct {
	// Extensions are the extensions of the files indexed (with the dot,
	// any case); nil for outline.DocExtensions.
	Extensions []string
	// MaxBytes caps the text indexed, 0 for no cap.
	MaxBytes int64
	// Dir, when set, keeps the index between runs: Build starts from the
	// index saved there for the same roots and extensions, reading each
	// file again (to hash it, not to index it unless it changed), and
	// Save writes it there.
	Dir string
}

// NewTree returns a Tree over fs's roots, empty until Build.
func NewTree(fs *fsview.FS, o TreeOptions) *Tree {
	exts := o.Extensions
	if exts == nil {
		exts = outline.DocExtensions()
	}
	set := map[string]bool{}
	for _, e := range exts {
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		set[strings.ToLower(e)] = true
	}
	t := &Tree{fs: fs, maxBytes: o.MaxBytes, keep: func(name string) bool {
		return set[strings.ToLower(path.Ext(name))]
	}}
	t.ix.Store(New())
	if o.Dir != "" {
		exts := slices.Sorted(maps.Keys(set))
		key := fsview.VersionOf([]byte(strings.Join(fs.Roots(), "\x00") + "\x01" + strings.Join(exts, "\x00"))).String()
		t.file = filepath.Join(o.Dir, "docs-"+key[:16]+".index")
	}
	return t
}

// Index is the tree's index.
func (t *Tree) Index() *Index { return t.ix.Load() }

// Built reports whether the first build is over.
func (t *Tree) Built() bool { return t.built.Load() }

// Build walks every root and indexes each document it finds, until ctx is
// done; it marks the tree built when it ends, done or not, and returns
// ctx's error (wrapped) when ctx ended first. With a Dir, it
// starts from the index saved there: a document whose version is the one
// indexed is not indexed again, and one the walk no longer finds is
// dropped.
func (t *Tree) Build(ctx context.Context) error {
	defer t.built.Store(true)
	t.load()
	seen := map[string]bool{}
	var errs []error
	for _, root := range t.fs.Roots() {
		err := t.fs.WalkFiles(ctx, root, nil, func(f fsview.File) bool { return t.keep(f.Rel) }, func(e *fsview.Entry, err error) error {
			if err != nil {
				return nil // hidden or gone: not indexed
			}
			return t.put(ctx, e, seen)
		})
		if err != nil && !errors.Is(err, errFull) {
			errs = append(errs, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("docsearch: the build stopped before its end, %d documents indexed: %w", t.Index().Stats().Documents, err)
	}
	if len(errs) == 0 {
		t.Index().retain(seen)
	}
	return errors.Join(errs...)
}

// load starts the index from the one saved in Dir, if there is one it can
// use.
func (t *Tree) load() {
	if t.file == "" {
		return
	}
	f, err := os.Open(t.file)
	if err != nil {
		return
	}
	defer f.Close()
	if ix, err := Load(bufio.NewReader(f)); err == nil {
		t.ix.Store(ix)
	}
}

// Save writes the index to Dir (nothing without one), atomically.
func (t *Tree) Save() error {
	if t.file == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(t.file), 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Index().Save(&buf); err != nil {
		return err
	}
	return atomicfile.Write(t.file, buf.Bytes())
}

// MaxDocBytes is the largest file a Tree indexes: one larger is seldom a
// document, and indexing holds several times its size for a moment.
const MaxDocBytes = 16 << 20

// errFull stops a build at the tree's cap.
var errFull = errors.New("docsearch: index full")

// put indexes the entry unless its version is indexed already, and marks
// it seen; errFull once the cap is reached.
func (t *Tree) put(ctx context.Context, e *fsview.Entry, seen map[string]bool) error {
	if e.Size() > MaxDocBytes {
		e.Drop()
		return nil
	}
	if t.maxBytes > 0 && t.Index().Stats().Bytes+e.Size() > t.maxBytes {
		e.Drop()
		t.capped.Store(true)
		return errFull
	}
	s, err := t.fs.ReadEntry(ctx, e, nil)
	if err != nil {
		return ctx.Err() // unreadable (not text, too large, gone): not indexed
	}
	defer s.Release()
	name, version := t.fs.Name(s.File), fsview.VersionOf(s.Window).String()
	seen[name] = true
	if t.Index().Version(name) != version {
		t.Index().Put(name, version, s.Window)
		t.indexed.Add(1)
	}
	return nil
}

// Refresh brings what is at the absolute path p up to date: a document
// indexed again if it changed, a directory's documents likewise, and what
// went or is no longer shown dropped.
func (t *Tree) Refresh(ctx context.Context, p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.fs.Resolve(p)
	if err != nil {
		if name, ok := t.nameOf(p); ok {
			t.Index().RemoveUnder(name)
		}
		return
	}
	if !f.IsDir() {
		t.refreshFile(ctx, f)
		return
	}
	t.fs.Walk(ctx, p, nil, func(f fsview.File, err error) error {
		if err == nil {
			t.refreshFile(ctx, f)
		}
		return ctx.Err()
	})
}

// refreshFile indexes f again if it changed since it was indexed.
func (t *Tree) refreshFile(ctx context.Context, f fsview.File) {
	name := t.fs.Name(f)
	if !t.keep(name) {
		return
	}
	if f.Size() > MaxDocBytes {
		t.Index().Remove(name)
		return
	}
	s, err := t.fs.Content(ctx, f)
	if err != nil {
		t.Index().Remove(name)
		return
	}
	defer s.Release()
	if v := fsview.VersionOf(s.Window).String(); v != t.Index().Version(name) {
		t.Index().Put(name, v, s.Window)
	}
}

// nameOf is the name the tree would index the absolute path p by.
func (t *Tree) nameOf(p string) (string, bool) {
	for i, root := range t.fs.Roots() {
		rel, ok := strings.CutPrefix(p, root+"/")
		if !ok {
			continue
		}
		if i == 0 {
			return rel, true
		}
		return p, true
	}
	return "", false
}

// Ask answers q through the view cfs (the caller's: its allow list and
// policy): only documents it shows are quoted, read fresh through it.
// under, when not empty, keeps to the documents under that path (a name
// as cfs resolves it). Test fixtures (see Fixture) are left out unless
// under is inside a fixture folder or names a file; when nothing else
// matches and they would, the answer's note says so.
func (t *Tree) Ask(ctx context.Context, cfs *fsview.FS, under string, q Query, count func(string) int) (Answer, error) {
	keep, fixtures, err := t.scope(cfs, under)
	if err != nil {
		return Answer{}, err
	}
	q.Keep = keep
	if !fixtures {
		q.Keep = func(name string) bool { return !Fixture(t.relOf(name)) && keep(name) }
	}
	if !t.Built() {
		q.Note = joinNote(q.Note, fmt.Sprintf("the index is still being built (%d documents so far): search again for a whole answer", t.Index().Stats().Documents))
	} else if t.capped.Load() {
		q.Note = joinNote(q.Note, fmt.Sprintf("the index stopped at its %d-byte cap: some documents are not searched", t.maxBytes))
	}
	read := func(ctx context.Context, name string) ([]byte, string, error) {
		return readVersion(ctx, cfs, name)
	}
	ans, err := t.Index().Answer(ctx, q, count, read)
	if err != nil || ans.Found > 0 || fixtures {
		return ans, err
	}
	// Nothing but fixtures may match: say where, so that the caller can
	// search there.
	hits, err := t.Index().Search(ctx, q.Text, 1, func(name string) bool { return Fixture(t.relOf(name)) && keep(name) })
	if err != nil || len(hits) == 0 {
		return ans, err
	}
	q.Note = joinNote(q.Note, fmt.Sprintf("test fixtures match (%s, say), which are searched only with a path inside their folder", hits[0].Path))
	return t.Index().Answer(ctx, q, count, read)
}

// readVersion reads the document name through the view cfs whole, with
// its version: the view's (see fsview.FS.Snapshot), the BLAKE3 of the
// very bytes given, hashed while they were read or remembered from an
// earlier read of the file unchanged since, so that a document is not
// hashed again each time it is quoted. A file that grew while it was read
// is given as it was opened, its version that of the bytes given.
func readVersion(ctx context.Context, cfs *fsview.FS, name string) ([]byte, string, error) {
	f, err := cfs.Regular(name)
	if err != nil {
		return nil, "", err
	}
	s, err := cfs.Snapshot(ctx, f, 0, math.MaxInt64)
	if err != nil {
		return nil, "", err
	}
	s.Release()
	if !s.EOF() {
		return s.Window, fsview.VersionOf(s.Window).String(), nil
	}
	return s.Window, s.Version.String(), nil
}

// fixtureDirs are the names of the folders that hold test fixtures by
// convention: Go's testdata (which the go command ignores), Jest's
// __fixtures__, and the fixtures folders of test suites (Rails, RSpec,
// pytest, Mocha).
var fixtureDirs = map[string]bool{"testdata": true, "__fixtures__": true, "fixtures": true}

// Fixture reports whether the document at rel, a path relative to its
// root, is a test fixture: whether a folder it is in is named testdata,
// __fixtures__ or fixtures (in any case). Fixtures are indexed, but an
// answer quotes them only when asked to search inside their folder (see
// Tree.Ask): they are other documents' copies or made-up text, not the
// project's docs.
func Fixture(rel string) bool {
	dirs := strings.Split(path.Dir(rel), "/")
	return slices.ContainsFunc(dirs, func(d string) bool { return fixtureDirs[strings.ToLower(d)] })
}

// relOf is name, a name the tree indexes a document by, relative to its
// root (the documents of the roots after the first are named by their
// absolute paths).
func (t *Tree) relOf(name string) string {
	if !path.IsAbs(name) {
		return name
	}
	roots := t.fs.Roots()
	for _, root := range roots[min(1, len(roots)):] {
		if rel, ok := strings.CutPrefix(name, root+"/"); ok {
			return rel
		}
	}
	return name
}

// scope is what a search through cfs under the path under may quote, and
// whether it searches test fixtures: when under is inside a fixture
// folder, or names a file.
func (t *Tree) scope(cfs *fsview.FS, under string) (func(string) bool, bool, error) {
	if under == "" {
		return cfs.Permits, false, nil
	}
	d, err := cfs.Resolve(under)
	if err != nil {
		return nil, false, err
	}
	prefix := cfs.Name(d)
	if !d.IsDir() {
		return func(name string) bool { return name == prefix && cfs.Permits(name) }, true, nil
	}
	fixtures := Fixture(d.Rel + "/x")
	if prefix == "." || prefix == "" {
		return cfs.Permits, fixtures, nil
	}
	return func(name string) bool {
		return strings.HasPrefix(name, prefix+"/") && cfs.Permits(name)
	}, fixtures, nil
}
