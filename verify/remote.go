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
	rep := NewReport()
	var files []remoteFile
	for _, u := range uris {
		fs, err := src.Files(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		for _, f := range fs {
			files = append(files, remoteFile{uri: f, named: len(fs) == 1 && f == u})
		}
	}
	return checkAll(ctx, rep, files, opt, func(f remoteFile) fileResult {
		return checkRemote(ctx, src, counter, f, opt.Budgets, opt.Format)
	})
}

// remoteFile is a file to verify through a server: its URI, and whether
// it was named to verify (rather than found in a listing), which holds
// it to exist.
type remoteFile struct {
	uri   string
	named bool
}

// checkRemote pages the file at every budget through src and checks the
// pages. A file named that the server does not find is missing (a
// failure); one found in a listing that it does not find, or that is not
// text or too large, is skipped.
func checkRemote(ctx context.Context, src Source, counter pager.Counter, file remoteFile, budgets []int, format pager.Format) fileResult {
	uri := file.uri
	var res fileResult
	fail := func(budget int, msg string, args ...any) {
		res.failures = append(res.failures, Failure{URI: uri, MaxTokens: budget, Message: fmt.Sprintf(msg, args...)})
	}
	var first []byte
	for i, budget := range budgets {
		done := res.timeCase(uri, budget)
		pages, got, pageURI, err := followRemote(ctx, src, uri, budget, format)
		if e := toolerr.From(err); e != nil {
			if i == 0 && len(pages) == 0 {
				if gone := firstPageError(file, e); gone.missing != "" || gone.skipCode != "" {
					return gone
				}
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

// firstPageError is what an error instead of a file's first page makes of
// it: missing when the file was named and is not found, skipped when it
// was found in a listing and is not found now, or is not text or too
// large; nothing otherwise (a failure of the budget).
func firstPageError(file remoteFile, e *toolerr.Error) fileResult {
	switch {
	case file.named && e.Code == toolerr.CodeNotFound:
		return fileResult{missing: e.Code + ": " + e.Message, uri: file.uri}
	case e.Code == toolerr.CodeNotText || e.Code == toolerr.CodeTooLarge || e.Code == toolerr.CodeNotFound:
		return fileResult{skipCode: e.Code}
	}
	return fileResult{}
}

// followRemote reads uri at budget through src, page after page: the
// pages, the content they give back, the URI they name the file by (the
// canonical one of a relative name), and the error that ended the read
// early, if any. A page that is not one of the contract ends it without
// error: checkPages says why.
func followRemote(ctx context.Context, src Source, uri string, budget int, format pager.Format) ([]pager.Page, *bytes.Buffer, string, error) {
	var pages []pager.Page
	var got bytes.Buffer
	pageURI := uri
	for page, err := range remote.Follow("", func(cur string) (pager.Page, error) { return src.Page(ctx, uri, budget, format.String(), cur) }) {
		if errors.Is(err, remote.ErrNotAPage) {
			break // checkPages says why
		}
		if err != nil || len(pages) == maxRemotePages {
			return pages, &got, pageURI, err
		}
		if page.Format != format {
			return pages, &got, pageURI, fmt.Errorf("page %d came in the %s format, not %s", len(pages)+1, page.Format, format)
		}
		pages = append(pages, page)
		if p, err := page.Decode(); err == nil {
			if len(pages) == 1 && !strings.HasPrefix(uri, "file:") {
				pageURI = p.URI // a relative name: its canonical URI
			}
			got.WriteString(p.Content)
		}
	}
	return pages, &got, pageURI, nil
}
