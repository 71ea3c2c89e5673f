package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
)

// Options say what to verify and how.
type Options struct {
	// Budgets are the max_tokens to page every file at.
	Budgets []int
	// Format is the page format to read and check.
	Format pager.Format
	// Workers is how many files are paged at once (GOMAXPROCS when 0).
	Workers int
	// Progress, when set, is called after each file with the files done
	// and the files found.
	Progress func(done, total int)
}

// Report is the outcome of a run.
type Report struct {
	Files   int   `json:"files"`
	Pages   int   `json:"pages"`
	Bytes   int64 `json:"bytes"`
	Skipped int   `json:"skipped"`
	// SkippedBy counts the skipped files by error code (not_text,
	// not_found for denied names, too_large).
	SkippedBy map[string]int `json:"skipped_by"`
	Failures  []Failure      `json:"failures"`
	// Missing are the paths named to verify that are not there: each is a
	// failure too, and a failed case. (Files found by walking a
	// directory that cannot be read are skipped, not missing.)
	Missing []string `json:"missing"`
	// LargestPage is the most tokens any page counted.
	LargestPage int `json:"largest_page_tokens"`
	// MeanFill is the mean of tokens/budget over the pages that are not a
	// file's last.
	MeanFill float64 `json:"mean_fill"`
	// Cases are every file paged at every budget, in the order they were
	// checked: what a test report lists (see WriteJUnit).
	Cases   []Case `json:"-"`
	fillSum float64
	fillN   int
}

// Case is one file paged at one budget, and what failed of it; a Case
// with MaxTokens 0 is a path named to verify that is not there.
type Case struct {
	URI       string
	MaxTokens int
	Pages     int
	Failures  []string
	Seconds   float64
}

// Failure is one broken promise.
type Failure struct {
	URI       string `json:"uri"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	Message   string `json:"message"`
}

// Merge adds another run's report to r.
func (r *Report) Merge(o *Report) {
	r.Files += o.Files
	r.Pages += o.Pages
	r.Bytes += o.Bytes
	r.Skipped += o.Skipped
	for k, n := range o.SkippedBy {
		r.SkippedBy[k] += n
	}
	r.Failures = append(r.Failures, o.Failures...)
	r.Missing = append(r.Missing, o.Missing...)
	r.Cases = append(r.Cases, o.Cases...)
	r.LargestPage = max(r.LargestPage, o.LargestPage)
	r.fillSum += o.fillSum
	r.fillN += o.fillN
	if r.fillN > 0 {
		r.MeanFill = r.fillSum / float64(r.fillN)
	}
}

// OK reports whether nothing failed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

// Run verifies every file under paths (local files or directories, as
// fs.Walk takes them) with rd, which must read through fs. A path that is
// not there is a failure of the run (see Report.Missing), and the other
// paths are verified still.
func Run(ctx context.Context, fs *fsview.FS, rd *reader.Reader, paths []string, opt Options) (*Report, error) {
	if len(opt.Budgets) == 0 {
		return nil, errors.New("verify needs at least one budget")
	}
	rep := NewReport()
	var files []fsview.File
	for _, p := range paths {
		err := fs.Walk(ctx, p, nil, func(f fsview.File, err error) error {
			if err != nil {
				rep.skip(toolerr.From(err).Code)
				return nil
			}
			files = append(files, f)
			return nil
		})
		if e := toolerr.From(err); e != nil && e.Code == toolerr.CodeNotFound {
			rep.missing(p, notThere(p, e))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, toolerr.From(err))
		}
	}
	return checkAll(ctx, rep, files, opt, func(f fsview.File) fileResult {
		return checkFile(ctx, rd, f, opt.Budgets, opt.Format)
	})
}

// checkAll checks the files with opt.Workers workers, adds what they find
// to rep and finishes it.
func checkAll[F any](ctx context.Context, rep *Report, files []F, opt Options, check func(F) fileResult) (*Report, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	done := 0
	jobs := make(chan F)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				res := check(f)
				mu.Lock()
				rep.add(res)
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rep.fillN > 0 {
		rep.MeanFill = rep.fillSum / float64(rep.fillN)
	}
	return rep, nil
}

// NewReport is an empty report, for runs to Merge into.
func NewReport() *Report {
	return &Report{SkippedBy: map[string]int{}, Failures: []Failure{}, Missing: []string{}}
}

// notThere is the failure of a local path named to verify that fs did
// not find, in the command line's terms: no such file, when there is
// none.
func notThere(p string, e *toolerr.Error) string {
	if _, err := os.Stat(p); errors.Is(err, iofs.ErrNotExist) {
		return toolerr.CodeNotFound + ": no such file or directory"
	}
	return e.Code + ": " + e.Message
}

// missing records a path named to verify that is not there, with why: a
// failure, and a failed case of its own.
func (r *Report) missing(name, message string) {
	r.Missing = append(r.Missing, name)
	r.Failures = append(r.Failures, Failure{URI: name, Message: message})
	r.Cases = append(r.Cases, Case{URI: name, Failures: []string{message}})
}

func (r *Report) skip(code string) {
	r.Skipped++
	r.SkippedBy[code]++
}

// fileResult is what checking one file found.
type fileResult struct {
	skipCode string
	// missing, when set, says why uri, named to verify, is not there.
	missing, uri string
	bytes        int64
	pages        int
	largest      int
	fillSum      float64
	fillN        int
	failures     []Failure
	// cases are the file at each budget; the failures name theirs.
	cases []Case
}

// timeCase times the checks of the file at a budget: call the function
// it returns when they are done, with the pages they read.
func (res *fileResult) timeCase(uri string, budget int) func(pages int) {
	start := time.Now()
	return func(pages int) {
		c := Case{URI: uri, MaxTokens: budget, Pages: pages, Seconds: time.Since(start).Seconds()}
		for _, f := range res.failures {
			if f.MaxTokens == budget || f.MaxTokens == 0 {
				c.Failures = append(c.Failures, f.Message)
			}
		}
		res.cases = append(res.cases, c)
	}
}

func (r *Report) add(res fileResult) {
	if res.missing != "" {
		r.missing(res.uri, res.missing)
		return
	}
	if res.skipCode != "" {
		r.skip(res.skipCode)
		return
	}
	r.Cases = append(r.Cases, res.cases...)
	r.Files++
	r.Bytes += res.bytes
	r.Pages += res.pages
	r.LargestPage = max(r.LargestPage, res.largest)
	r.fillSum += res.fillSum
	r.fillN += res.fillN
	r.Failures = append(r.Failures, res.failures...)
}

// checkFile pages f at every budget and checks each page against bytes read
// independently of the pager.
func checkFile(ctx context.Context, rd *reader.Reader, f fsview.File, budgets []int, format pager.Format) fileResult {
	var res fileResult
	fail := func(budget int, msg string, args ...any) {
		res.failures = append(res.failures, Failure{URI: f.URI, MaxTokens: budget, Message: fmt.Sprintf(msg, args...)})
	}
	counter := rd.Counter()
	var want []byte
	var wantVersion string
	loaded := false
	for i, budget := range budgets {
		var pages []pager.Page
		done := res.timeCase(f.URI, budget)
		err := rd.Pages(ctx, reader.PageRequest{Name: f.Path, Subject: reader.LocalSubject, MaxTokens: budget, Format: format}, func(p pager.Page) error {
			pages = append(pages, p)
			return nil
		})
		if e := toolerr.From(err); e != nil {
			if i == 0 && (e.Code == toolerr.CodeNotText || e.Code == toolerr.CodeTooLarge || e.Code == toolerr.CodeNotFound) {
				return fileResult{skipCode: e.Code}
			}
			fail(budget, "%s: %s", e.Code, e.Message)
			done(len(pages))
			continue
		}
		if !loaded {
			// The file as the pager did not read it: the reference.
			loaded = true
			if want, err = os.ReadFile(f.Path); err != nil {
				fail(budget, "reading it again: %v", err)
				return res
			}
			wantVersion = fsview.Version(blake3.Sum256(want)).String()
			res.bytes = int64(len(want))
		}
		for _, msg := range checkPages(counter, budget, format, f.URI, want, wantVersion, pages, &res) {
			fail(budget, "%s", msg)
		}
		done(len(pages))
	}
	return res
}

// RunText verifies text that is not a file (standard input), named name
// in its pages, as Run verifies a file: rd pages it at every budget, and
// each page is checked against text and its BLAKE3.
func RunText(ctx context.Context, rd *reader.Reader, name string, text []byte, opt Options) (*Report, error) {
	if len(opt.Budgets) == 0 {
		return nil, errors.New("verify needs at least one budget")
	}
	rep := NewReport()
	var res fileResult
	res.bytes = int64(len(text))
	version := fsview.Version(blake3.Sum256(text)).String()
	for _, budget := range opt.Budgets {
		var pages []pager.Page
		done := res.timeCase(name, budget)
		err := rd.PagesOf(ctx, text, name, reader.PageRequest{Subject: reader.LocalSubject, MaxTokens: budget, Format: opt.Format}, func(p pager.Page) error {
			pages = append(pages, p)
			return nil
		})
		if e := toolerr.From(err); e != nil {
			res.failures = append(res.failures, Failure{URI: name, MaxTokens: budget, Message: e.Code + ": " + e.Message})
		} else {
			for _, msg := range checkPages(rd.Counter(), budget, opt.Format, name, text, version, pages, &res) {
				res.failures = append(res.failures, Failure{URI: name, MaxTokens: budget, Message: msg})
			}
		}
		done(len(pages))
	}
	rep.add(res)
	if rep.fillN > 0 {
		rep.MeanFill = rep.fillSum / float64(rep.fillN)
	}
	return rep, nil
}

// checkPages checks the pages of one file at one budget against the bytes
// and version it should give back, adds their figures to res and returns
// what failed.
func checkPages(counter pager.Counter, budget int, format pager.Format, uri string, want []byte, wantVersion string, pages []pager.Page, res *fileResult) []string {
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	var got bytes.Buffer
	for i, p := range pages {
		n := counter.Count(string(p.JSON))
		res.largest = max(res.largest, n)
		if n > budget {
			fail("page %d counts %d tokens, over the budget", i+1, n)
		}
		if p.Format != format {
			fail("page %d came in the %s format, not %s", i+1, p.Format, format)
			continue
		}
		pj, err := p.Decode()
		if err != nil {
			fail("page %d is not a page (format %s): %v", i+1, format, err)
			continue
		}
		if pj.Version != wantVersion {
			fail("page %d has version %s, the file's BLAKE3 is %s", i+1, pj.Version, wantVersion)
		}
		if pj.URI != uri {
			fail("page %d has uri %s", i+1, pj.URI)
		}
		last := i == len(pages)-1
		if pj.HasMore == last {
			fail("page %d of %d says has_more %v", i+1, len(pages), pj.HasMore)
		}
		if !last {
			res.fillSum += float64(n) / float64(budget)
			res.fillN++
		}
		got.WriteString(pj.Content)
	}
	res.pages += len(pages)
	if !bytes.Equal(got.Bytes(), want) {
		fail("the pages give back %d bytes that differ from the file's %d", got.Len(), len(want))
	}
	return failures
}
