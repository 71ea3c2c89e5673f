package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/toolerr"
)

// Source pages files through a server with folio's page contract. Its
// errors are *toolerr.Error when the server answered with an error body.
type Source interface {
	// Files returns the URIs of the files under uri, or uri itself when it
	// is a file.
	Files(ctx context.Context, uri string) ([]string, error)
	// Page returns one page, the first with an empty cursor, in the
	// format named (the server's default when empty).
	Page(ctx context.Context, uri string, maxTokens int, format, cursor string) (pager.Page, error)
}

// maxRemotePages bounds the pages of one file, so that a server whose
// cursors never end cannot hold a run.
const maxRemotePages = 1 << 20

// RunRemote verifies every file under uris through src, with no local
// copy of the files: each page must count at most its budget with
// counter, be a page of the contract, and the BLAKE3 of the bytes the
// pages give back must be the pages' version. src must be safe for
// concurrent use: opt.Workers files are paged at once.
func RunRemote(ctx context.Context, src Source, counter pager.Counter, uris []string, opt Options) (*Report, error) {
	if len(opt.Budgets) == 0 {
		return nil, errors.New("verify needs at least one budget")
	}
	rep := &Report{SkippedBy: map[string]int{}, Failures: []Failure{}}
	var files []string
	for _, u := range uris {
		fs, err := src.Files(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		files = append(files, fs...)
	}
	return checkAll(ctx, rep, files, opt, func(uri string) fileResult {
		return checkRemote(ctx, src, counter, uri, opt.Budgets, opt.Format)
	})
}

func checkRemote(ctx context.Context, src Source, counter pager.Counter, uri string, budgets []int, format pager.Format) fileResult {
	var res fileResult
	fail := func(budget int, msg string, args ...any) {
		res.failures = append(res.failures, Failure{URI: uri, MaxTokens: budget, Message: fmt.Sprintf(msg, args...)})
	}
	var first []byte
	for i, budget := range budgets {
		var pages []pager.Page
		var got bytes.Buffer
		done := res.timeCase(uri, budget)
		pageURI := uri
		var err error
		for page, ferr := range remote.Follow("", func(cur string) (pager.Page, error) { return src.Page(ctx, uri, budget, format.String(), cur) }) {
			if errors.Is(ferr, remote.ErrNotAPage) {
				break // checkPages says why
			}
			if err = ferr; err != nil || len(pages) == maxRemotePages {
				break
			}
			if page.Format != format {
				err = fmt.Errorf("page %d came in the %s format, not %s", len(pages)+1, page.Format, format)
				break
			}
			pages = append(pages, page)
			if p, err := page.Decode(); err == nil {
				if len(pages) == 1 && !strings.HasPrefix(uri, "file:") {
					pageURI = p.URI // a relative name: its canonical URI
				}
				got.WriteString(p.Content)
			}
		}
		if e := toolerr.From(err); e != nil {
			if i == 0 && len(pages) == 0 && (e.Code == toolerr.CodeNotText || e.Code == toolerr.CodeTooLarge || e.Code == toolerr.CodeNotFound) {
				return fileResult{skipCode: e.Code}
			}
			fail(budget, "page %d: %s: %s", len(pages)+1, e.Code, e.Message)
			done(len(pages))
			continue
		}
		version := fsview.Version(blake3.Sum256(got.Bytes())).String()
		for _, msg := range checkPages(counter, budget, format, pageURI, got.Bytes(), version, pages, &res) {
			fail(budget, "%s", msg)
		}
		if first == nil {
			first = bytes.Clone(got.Bytes())
			res.bytes = int64(len(first))
		} else if !bytes.Equal(first, got.Bytes()) {
			fail(budget, "the pages give back other bytes than at %d tokens", budgets[0])
		}
		done(len(pages))
	}
	return res
}
