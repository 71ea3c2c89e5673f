package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/reader"
)

// MetaResultHandle is the _meta key of a folded answer: {handle, bytes,
// ttlSeconds}.
const MetaResultHandle = "folio/result-handle"

const resultQueryDescription = `Read part of a folded answer. A tool answer too large to send whole comes as {"preview","shape","handle"}: the preview cuts lists and strings short, the shape gives the lengths and keys. Pass the handle and a path (entries.2.path or /entries/2/path; default the whole answer); of a list, offset and limit (default 20) or page select items, of a string characters (default 2000); fields keeps only those keys; max_tokens gives as much as fits. Answers {"path","value","total","offset","next_offset"}; next_offset is set while more remains.`

const resultQuerySchema = `{"type":"object","properties":{
"handle":{"type":"string"},
"path":{"type":"string"},
"offset":{"type":"integer","minimum":0},
"limit":{"type":"integer","minimum":1},
"page":{"type":"integer","minimum":1,"description":"from 1, in place of offset"},
"fields":{"type":"array","items":{"type":"string"}},
"max_tokens":{"type":"integer","minimum":1}},
"required":["handle"],"additionalProperties":false}`

type resultQueryArgs struct {
	Handle    string   `json:"handle"`
	Path      string   `json:"path"`
	Offset    *int     `json:"offset"`
	Limit     *int     `json:"limit"`
	Page      *int     `json:"page"`
	Fields    []string `json:"fields"`
	MaxTokens *int     `json:"max_tokens"`
}

func (s *Server) resultQuery(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a resultQueryArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	c, err := s.caller(ctx, req.Extra)
	if err != nil {
		return s.toolError(err)
	}
	owner, ok := s.owner(req, c)
	if !ok {
		// Nothing was folded for this caller, so no handle is theirs.
		owner = fold.Owner{Subject: c.subject}
	}
	ans, err := s.cfg.Fold.Query(ctx, owner, fold.Query{
		Handle: a.Handle, Path: a.Path, Offset: a.Offset, Limit: a.Limit, Page: a.Page, Fields: a.Fields, MaxTokens: a.MaxTokens,
	})
	if fe := (*fold.Error)(nil); errors.As(err, &fe) {
		return errorResult(&reader.Error{Code: fe.Code, Message: fe.Message}), nil
	}
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(string(ans.JSON))
	if a.MaxTokens != nil {
		res.Meta = mcp.Meta{MetaTokens: ans.Tokens, MetaTokenizer: s.cfg.Counter.Name()}
	}
	return res, nil
}

// owner is whom a folded answer of this call belongs to: the session and
// the subject. An anonymous call without a session (stateless HTTP with no
// tokens file) has no owner: nobody could read its handle back.
func (s *Server) owner(req *mcp.CallToolRequest, c *caller) (fold.Owner, bool) {
	session := ""
	if !s.cfg.Stateless && req.Session != nil {
		session = req.Session.ID()
		if session == "" {
			session = s.connectionID(req.Session)
		}
	}
	if session == "" && s.cfg.Tokens == nil {
		return fold.Owner{}, false
	}
	return fold.Owner{Session: session, Subject: c.subject}, true
}

// connectionID names a session that has no ID of its own (stdio, or any
// transport of one connection) for as long as it lasts.
func (s *Server) connectionID(ss *mcp.ServerSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.connections[ss]; ok {
		return id
	}
	raw := make([]byte, 16)
	rand.Read(raw)
	id := "connection:" + base64.RawURLEncoding.EncodeToString(raw)
	s.connections[ss] = id
	go func() {
		ss.Wait()
		s.mu.Lock()
		delete(s.connections, ss)
		s.mu.Unlock()
	}()
	return id
}

// answer sends a tool's JSON answer, folded when it should be.
func (s *Server) answer(ctx context.Context, req *mcp.CallToolRequest, c *caller, data []byte) *mcp.CallToolResult {
	return s.fold(ctx, req, c, nil, textResult(string(data)))
}

// fold returns res folded (see package fold) when folding is on, res is
// one JSON answer over the threshold, the caller can read a handle back,
// and the tool's output schema admits the folded form; else res itself.
// When the store fails the answer goes whole and a warning is logged.
func (s *Server) fold(ctx context.Context, req *mcp.CallToolRequest, c *caller, outputSchema json.RawMessage, res *mcp.CallToolResult) *mcp.CallToolResult {
	if s.cfg.Fold == nil {
		return res
	}
	data, ok := foldable(res)
	if !ok || len(data) <= s.cfg.Fold.Threshold() {
		return res
	}
	owner, ok := s.owner(req, c)
	if !ok {
		return res
	}
	folded, err := s.cfg.Fold.Fold(ctx, owner, data, outputSchema)
	if err != nil {
		s.log.Warn("answer sent whole: it could not be folded", "tool", req.Params.Name, "bytes", len(data), "err", err)
		return res
	}
	meta := mcp.Meta{}
	for k, v := range res.Meta {
		meta[k] = v
	}
	meta[MetaResultHandle] = map[string]any{"handle": folded.Handle, "bytes": folded.Bytes, "ttlSeconds": int(folded.TTL.Seconds())}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: folded.Text()}},
		StructuredContent: json.RawMessage(folded.JSON),
		Meta:              meta,
	}
}

// foldable returns the JSON of an answer that may fold: one text block
// holding a JSON object or array, or structuredContent with at most one
// text block that repeats it. Errors, images, resources and several texts
// are sent as they are.
func foldable(res *mcp.CallToolResult) ([]byte, bool) {
	if res.IsError || len(res.Content) > 1 {
		return nil, false
	}
	var text []byte
	if len(res.Content) == 1 {
		t, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return nil, false
		}
		text = bytes.TrimSpace([]byte(t.Text))
	}
	if res.StructuredContent == nil {
		if len(text) == 0 || text[0] != '{' && text[0] != '[' || !json.Valid(text) {
			return nil, false
		}
		return text, true
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil || len(data) == 0 || data[0] != '{' && data[0] != '[' {
		return nil, false
	}
	if text != nil && !sameJSON(text, data) {
		return nil, false
	}
	return data, true
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}
