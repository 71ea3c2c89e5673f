package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// resourcePageSize is how many files one resources/list answer holds.
const resourcePageSize = 200

// fileTemplate matches every file:// URI; the read handler confines it.
const fileTemplate = "file:///{+path}"

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "file",
		URITemplate: fileTemplate,
		Description: "A text file under the served roots, whole (use the read tool to page it).",
		MIMEType:    "text/plain",
	}, s.readResource)
	if s.cfg.Fold != nil {
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "folded-answer",
			URITemplate: fold.Scheme + "{+handle}",
			Description: "A folded answer, or a part of it by a JSON pointer fragment (#/rows), as JSON.",
			MIMEType:    "application/json",
		}, s.readReference)
	}
}

// readReference answers resources/read of an mcp+cache:// reference: the
// JSON it names, for the session and caller that own it, when it is no
// larger than a result_query answer may be.
func (s *Server) readReference(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	uri := req.Params.URI
	owner, ok := s.owner(req.Session, c)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	value, err := s.cfg.Fold.Resolve(ctx, owner, uri)
	if err != nil {
		if isNotFound(err) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, resourceError(uri, err)
	}
	if len(value) > s.cfg.Fold.Threshold() {
		return nil, resourceError(uri, toolerr.New(toolerr.CodeSliceTooLarge, "%s is %d bytes, over the %d a read gives: read it in parts with the result_query tool", uri, len(value), s.cfg.Fold.Threshold()))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(value)}}}, nil
}

// readResource answers resources/read: the file's whole text (within the
// size cap) and its version in _meta.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	contents, meta, err := s.fileContents(ctx, c, req.Params.URI)
	if err != nil {
		return nil, err
	}
	contents.URI = req.Params.URI // as it was asked for
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}, Meta: meta}, nil
}

// fileContents is a file's whole text as a resource, named by its
// canonical URI, when it is within the answer and token caps, and its version as
// _meta; or the JSON-RPC error of a resource request. A root's llms.txt
// and llms-full.txt that folio makes are read as files (see maker).
func (s *Server) fileContents(ctx context.Context, c *caller, name string) (*mcp.ResourceContents, mcp.Meta, error) {
	f, err := c.fs.Open(ctx, name)
	if err != nil {
		return nil, nil, resourceError(name, err)
	}
	if f.Size() > int64(s.cfg.MaxAnswerBytes) {
		return nil, nil, resourceError(name, overBound(name, int(f.Size()), 0, s.cfg.MaxAnswerBytes))
	}
	snap, err := c.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, nil, resourceError(name, err)
	}
	defer snap.Release()
	if len(snap.Window) > s.cfg.MaxAnswerBytes {
		return nil, nil, resourceError(name, overBound(name, len(snap.Window), 0, s.cfg.MaxAnswerBytes))
	}
	if s.overTokenCap(snap.Window) {
		return nil, nil, resourceError(name, toolerr.New(toolerr.CodeTooLarge, "%s is over the %d tokens a resource read gives: read it with the read tool, in pages (max_tokens) or in lines (offset and limit)", name, s.cfg.LineMaxTokens))
	}
	snap.Keep(ctx, int64(len(snap.Window)))
	contents := &mcp.ResourceContents{URI: f.URI, MIMEType: "text/plain", Text: string(snap.Window)}
	return contents, mcp.Meta{wire.MetaVersion: snap.Version.String()}, nil
}

// overTokenCap reports whether text counts more than the line cap: a
// token holds at least one byte and at most the counter's longest, so only
// a text between the two bounds is counted.
func (s *Server) overTokenCap(text []byte) bool {
	switch limit := s.cfg.LineMaxTokens; {
	case len(text) <= limit:
		return false
	case len(text) > limit*s.cfg.Counter.MaxBytesPerToken():
		return true
	default:
		return s.cfg.Counter.Count(string(text)) > limit
	}
}

// resourceError is the JSON-RPC error of a failed resource request: the
// SDK's resource-not-found for a missing or hidden file, otherwise invalid
// params with the error body of the page contract as data.
func resourceError(uri string, err error) error {
	e := toolerr.From(err)
	if e.Code == toolerr.CodeNotFound {
		return mcp.ResourceNotFoundError(uri)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message, Data: e.JSON()}
}

// listPosition is where a resources/list page resumes.
type listPosition struct {
	Root  int    `json:"r"`
	After string `json:"a"`
}

// listResources answers resources/list itself, since what a caller may see
// depends on the caller: the visible text files of every root, in walk
// order, a page at a time.
func (s *Server) listResources(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		c, err := s.caller(ctx)
		if err != nil {
			return nil, err
		}
		var pos listPosition
		if r.Params != nil && r.Params.Cursor != "" {
			b, err := base64.RawURLEncoding.DecodeString(r.Params.Cursor)
			if err != nil || json.Unmarshal(b, &pos) != nil || pos.Root < 0 || pos.Root >= len(c.fs.Roots()) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid resources/list cursor: pass nextCursor unchanged"}
			}
		}
		res, err := s.resourcePage(ctx, c.fs, pos)
		if err == nil {
			// Built here, not by the SDK: its hints too.
			s.cacheHint(ctx, r, &res.Cacheable)
		}
		return res, err
	}
}

// errPageFull stops the walk once a page and one more file are found.
var errPageFull = errors.New("page full")

func (s *Server) resourcePage(ctx context.Context, view *fsview.FS, pos listPosition) (*mcp.ListResourcesResult, error) {
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	var last listPosition
	roots := view.Roots()
	for i := pos.Root; i < len(roots); i++ {
		d, err := view.Resolve(roots[i])
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", roots[i], err)
		}
		after := ""
		if i == pos.Root {
			after = pos.After
		}
		if after == "" {
			// A root's made llms.txt and llms-full.txt open its
			// listing, on the page that starts it, beyond its 200.
			res.Resources = append(res.Resources, madeResources(view, d)...)
		}
		err = view.List(ctx, d, fsview.ListOptions{After: after}, func(f fsview.File) error {
			if f.IsDir() || !view.LooksText(f) {
				return nil
			}
			if len(res.Resources) == resourcePageSize {
				return errPageFull
			}
			res.Resources = append(res.Resources, &mcp.Resource{URI: f.URI, Name: f.Rel, MIMEType: "text/plain", Size: f.Size()})
			last = listPosition{Root: i, After: f.Rel}
			return nil
		})
		if errors.Is(err, errPageFull) {
			b, _ := json.Marshal(last)
			res.NextCursor = base64.RawURLEncoding.EncodeToString(b)
			return res, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// subscribe lets a caller subscribe to a file it can see, by its canonical
// URI (the one resources/list and pages give).
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	c, err := s.caller(ctx)
	if err != nil {
		return err
	}
	uri := req.Params.URI
	f, err := c.fs.Regular(uri)
	if err != nil {
		return resourceError(uri, err)
	}
	if f.URI != uri {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("subscribe to the canonical URI %s", f.URI)}
	}
	if c.tokenHash != "" {
		s.sessions.with(req.Session, func(st *sessionState) { st.subscribedWith = c.tokenHash })
	}
	return nil
}
