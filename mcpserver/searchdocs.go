package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

const searchDocsDescription = `Answer a question from the served docs: the passages most likely to answer it, best first, within max_tokens. Each passage starts with a line "path:first-last @version § headings"; read {path, line} goes on from it. A [folio] line says when nothing matches well.`

func init() {
	register(&tool{
		name:        wire.SearchDocs,
		description: func(*Server) string { return searchDocsDescription },
		schema:      func(*Server) json.RawMessage { return wire.SearchDocsSchema() },
		handler:     handle((*Server).searchDocs),
		offered:     func(s *Server) bool { return s.cfg.Docs != nil },
	})
}

// searchDocs answers a question with the passages of the docs index that
// answer it best, read fresh through the caller's view.
func (s *Server) searchDocs(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.SearchDocsArgs) (*mcp.CallToolResult, error) {
	budget := wire.DefaultAnswerTokens
	if a.MaxTokens != nil {
		budget = *a.MaxTokens
	}
	ans, err := s.cfg.Docs.Ask(ctx, c.fs, a.Path, docsearch.Query{Text: a.Query, MaxTokens: budget}, s.cfg.Counter.Count)
	if errors.Is(err, docsearch.ErrBudget) {
		return s.toolError(toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d cannot hold an answer's note: ask with a larger max_tokens", budget))
	}
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(ans.Text)
	res.Meta = mcp.Meta{wire.MetaTokens: ans.Tokens, wire.MetaTokenizer: s.cfg.Counter.Name(), wire.MetaPassages: ans.Passages}
	return res, nil
}

// buildDocs builds the docs index from the roots, logging what it took
// (or, when ctx ends first, that the build stopped and how far it got),
// and saves it when built and when ctx ends.
func (s *Server) buildDocs(ctx context.Context) {
	start := time.Now()
	err := s.cfg.Docs.Build(ctx)
	st := s.cfg.Docs.Index().Stats()
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		s.log.Info("docs index build stopped before it finished", "documents", st.Documents, "passages", st.Passages, "bytes", st.Bytes, "took", took)
	case err != nil:
		s.log.Warn("docs index built in part", "err", err, "documents", st.Documents, "passages", st.Passages, "bytes", st.Bytes, "took", took)
	default:
		s.log.Info("docs index built", "documents", st.Documents, "passages", st.Passages, "bytes", st.Bytes, "took", took)
	}
	s.saveDocs()
	<-ctx.Done()
	s.saveDocs()
}

// saveDocs keeps the docs index for the next start (--index-dir).
func (s *Server) saveDocs() {
	if err := s.cfg.Docs.Save(); err != nil {
		s.log.Warn("docs index not saved: the next start builds it again", "err", err)
	}
}

// refreshDocs brings the docs index up to date with the files of the
// updated URIs, in the background (the watch goes on meanwhile).
func (s *Server) refreshDocs(ctx context.Context, updated map[string]bool) {
	if s.cfg.Docs == nil || len(updated) == 0 {
		return
	}
	paths := make([]string, 0, len(updated))
	for uri := range updated {
		if u, err := url.Parse(uri); err == nil {
			paths = append(paths, u.Path)
		}
	}
	go func() {
		for _, p := range paths {
			s.cfg.Docs.Refresh(ctx, p)
		}
	}()
}
