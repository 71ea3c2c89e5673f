package fold

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

// FuzzQuery: any query on a folded answer gives either valid JSON within
// the threshold (and within max_tokens when given) or an Error with one of
// the documented codes.
func FuzzQuery(f *testing.F) {
	f.Add("entries", 0, 20, 0, "", 0, uint8(3))
	f.Add("/entries/3/path", 2, 5, 0, "", 0, uint8(2))
	f.Add("$.entries[1]", 0, 0, 2, "path,size", 0, uint8(4))
	f.Add("", 0, 0, 0, "", 50, uint8(8))
	f.Add("uri", 3, 1, 0, "", 10, uint8(3))
	counter, err := tokencount.New(tokencount.Estimate)
	if err != nil {
		f.Fatal(err)
	}
	opt := DefaultOptions()
	opt.ThresholdBytes = 2048
	folder, err := New(testSecret(), NewMemoryStore(10, DefaultStoreMaxBytes, nil), counter, opt)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	folded, err := folder.Fold(ctx, alice, corpus.Listing(200), nil)
	if err != nil {
		f.Fatal(err)
	}
	codes := map[string]bool{toolerr.CodeHandleNotFound: true, toolerr.CodePathNotFound: true, toolerr.CodeSliceTooLarge: true, toolerr.CodeInvalidArgument: true, toolerr.CodeBudgetTooSmall: true}
	f.Fuzz(func(t *testing.T, path string, offset, limit, page int, fields string, maxTokens int, set uint8) {
		q := Query{Handle: folded.Handle, Path: path}
		if set&1 != 0 {
			q.Offset = &offset
		}
		if set&2 != 0 {
			q.Limit = &limit
		}
		if set&4 != 0 {
			q.Page = &page
		}
		if set&8 != 0 {
			q.MaxTokens = &maxTokens
		}
		if fields != "" {
			q.Fields = strings.Split(fields, ",")
		}
		a, err := folder.Query(ctx, alice, q)
		if err != nil {
			var fe *toolerr.Error
			if !errors.As(err, &fe) || !codes[fe.Code] || fe.Message == "" {
				t.Fatalf("%+v: %v", q, err)
			}
			return
		}
		if !json.Valid(a.JSON) || len(a.JSON) > opt.ThresholdBytes {
			t.Fatalf("%+v: %d bytes, valid %v", q, len(a.JSON), json.Valid(a.JSON))
		}
		if q.MaxTokens != nil && counter.Count(string(a.JSON)) > maxTokens {
			t.Fatalf("%+v: %d tokens", q, counter.Count(string(a.JSON)))
		}
	})
}
