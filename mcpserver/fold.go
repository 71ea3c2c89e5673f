package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/schema"
	"github.com/folio-mcp/folio/wire"
)

const resultQueryDescription = `Read a folded answer (one too large to send whole, given as {"preview","shape","handle"}) by its handle: path selects a part (entries.2 or /entries/2; default all); of a list, offset and limit (20) or page, of a string characters; fields keeps those keys; max_tokens gives as much as fits. Answers {"path","value","total","offset","next_offset"}; go on from next_offset.`

func init() {
	register(&tool{
		name:        wire.ResultQuery,
		description: func(*Server) string { return resultQueryDescription },
		schema:      func(*Server) json.RawMessage { return wire.ResultQuerySchema() },
		handler:     handle((*Server).resultQuery),
		// Offered to every caller, as one endpoint's tools must be
		// (2026-07-28 callers fold even when anonymous; see owner).
		offered: func(s *Server) bool { return s.cfg.Fold != nil },
	})
}

// resultQuery answers a result_query: a part of a folded answer.
func (s *Server) resultQuery(ctx context.Context, req *mcp.CallToolRequest, c *caller, a wire.ResultQueryArgs) (*mcp.CallToolResult, error) {
	// Without an owner nothing was folded for this caller, and the zero
	// owner holds no handle.
	owner, _ := s.owner(req.Session, c)
	ans, err := s.cfg.Fold.Query(ctx, owner, fold.Query{
		Handle: a.Handle, Path: a.Path, Offset: a.Offset, Limit: a.Limit, Page: a.Page, Fields: a.Fields, MaxTokens: a.MaxTokens,
	})
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(string(ans.JSON))
	if a.MaxTokens != nil {
		res.Meta = mcp.Meta{wire.MetaTokens: ans.Tokens, wire.MetaTokenizer: s.cfg.Counter.Name()}
	}
	return res, nil
}

// owner is whom a folded answer of this call belongs to: the session and
// the subject. A request of the sessionless era (2026-07-28) has no
// session: its answers are the caller's (subject and grant), found by its
// later requests through any replica. An anonymous call without a session
// of the older era (stateless HTTP with no tokens file) has no owner:
// folio keeps nothing for it.
func (s *Server) owner(ss *mcp.ServerSession, c *caller) (fold.Owner, bool) {
	session := ""
	if !s.cfg.Stateless && ss != nil && !c.sessionless {
		session = ss.ID()
		if session == "" {
			session = s.connectionID(ss)
		}
	}
	if session == "" && !s.authenticates() && !c.sessionless {
		return fold.Owner{}, false
	}
	return fold.Owner{Session: session, Subject: c.subject, Grant: c.grant}, true
}

// callOwner is the owner of a call's folded answer, if it has one (a call
// with no valid token has none).
func (s *Server) callOwner(ctx context.Context, req *mcp.CallToolRequest) (fold.Owner, bool) {
	c, err := s.caller(ctx)
	if err != nil {
		return fold.Owner{}, false
	}
	return s.owner(req.Session, c)
}

// connectionID names a session that has no ID of its own (stdio, or any
// transport of one connection) for as long as it lasts.
func (s *Server) connectionID(ss *mcp.ServerSession) string {
	id := ""
	s.sessions.with(ss, func(st *sessionState) {
		if st.connection == "" {
			raw := make([]byte, 16)
			rand.Read(raw)
			st.connection = "connection:" + base64.RawURLEncoding.EncodeToString(raw)
		}
		id = st.connection
	})
	return id
}

// foldOwn folds the answer of list or grep, one text, when it is over the
// threshold and the caller can read a handle back; else it goes whole. A
// JSON object (list's details) folds as JSON; text folds as one string,
// which result_query gives back in as few calls as max_tokens lets, at
// about the text's own cost. When the store fails the answer goes whole
// and a warning is logged.
func (s *Server) foldOwn(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	if len(res.Content) != 1 {
		return res
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || len(text.Text) <= s.cfg.Fold.Threshold() {
		return res
	}
	owner, ok := s.callOwner(ctx, req)
	if !ok {
		return res
	}
	data := []byte(text.Text)
	if !strings.HasPrefix(text.Text, "{") {
		data = jsonvalue.AppendString(nil, text.Text)
	}
	// folio's own tools have no output schema.
	folded, err := s.cfg.Fold.Fold(ctx, owner, data, nil)
	if err != nil {
		s.log.Warn("answer sent whole: it could not be folded", "tool", req.Params.Name, "bytes", len(text.Text), "err", err)
		return res
	}
	return foldedResult(folded)
}

// foldedResult is the tool result of a folded answer: its JSON as
// structuredContent and, with the hint, as text.
func foldedResult(folded *fold.Folded) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: folded.Text()}},
		StructuredContent: json.RawMessage(folded.JSON),
		Meta:              mcp.Meta{wire.MetaResultHandle: map[string]any{"handle": folded.Handle, "uri": fold.URI(folded.Handle, ""), "bytes": folded.Bytes, "ttlSeconds": int(folded.TTL.Seconds())}},
	}
}

// foldUpstream folds an upstream tool's answer by the rules of folio's
// own, when it is one text content that is JSON (or plain text, which
// folds as a string), or structuredContent with at most a text that
// repeats it or that it wraps (as servers on today's SDKs answer: a text,
// and {"content": that text} under an output schema); over the threshold;
// with an owner; and admitted by the output schema folio advertises for
// the tool (see admitFolded). Anything else (errors, images, audio,
// resources, several texts) goes as it came. A tool whose large answers
// are sent whole is named once in the log, with the reason.
func (s *Server) foldUpstream(ctx context.Context, req *mcp.CallToolRequest, cs *catalogState, tool *mcp.Tool, res *mcp.CallToolResult) *mcp.CallToolResult {
	data, why := foldable(res)
	if data == nil {
		if answerSize(res) > s.cfg.Fold.Threshold() {
			s.sentWhole(cs, tool, why)
		}
		return res
	}
	if len(data) <= s.cfg.Fold.Threshold() {
		return res
	}
	owner, ok := s.callOwner(ctx, req)
	if !ok {
		return res
	}
	out, err := s.outputChecker(cs, tool)
	if err != nil {
		s.sentWhole(cs, tool, err.Error())
		return res
	}
	folded, err := s.cfg.Fold.Fold(ctx, owner, data, out)
	if err != nil {
		s.sentWhole(cs, tool, err.Error())
		return res
	}
	return foldedResult(folded)
}

// outputChecker is the compiled output schema folio advertises for an
// upstream tool (nil for none), compiled once per tool definition: a
// schema folio cannot judge is an error, since the client might judge it
// and refuse the folded form.
func (s *Server) outputChecker(cs *catalogState, tool *mcp.Tool) (*schema.Checker, error) {
	type compiled struct {
		c   *schema.Checker
		err error
	}
	if v, ok := cs.outputs.Load(tool); ok {
		return v.(compiled).c, v.(compiled).err
	}
	var c compiled
	if out := s.advertised(cs, tool).OutputSchema; out != nil {
		raw, _ := json.Marshal(out)
		if c.c, c.err = schema.Compile(raw); c.err != nil {
			c.err = fmt.Errorf("the output schema: %w", c.err)
		}
	}
	v, _ := cs.outputs.LoadOrStore(tool, c)
	return v.(compiled).c, v.(compiled).err
}

// sentWhole logs, once per tool, why its large answers are sent whole.
func (s *Server) sentWhole(cs *catalogState, tool *mcp.Tool, why string) {
	if _, warned := cs.unfoldable.LoadOrStore(tool.Name, true); !warned {
		s.log.Warn("answers of this tool are sent whole: they could not be folded", "tool", tool.Name, "why", why)
	}
}

// foldable is the JSON of an answer that may fold, or nil and why not.
func foldable(res *mcp.CallToolResult) ([]byte, string) {
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, "its structuredContent is not JSON"
		}
		switch {
		case len(res.Content) == 0:
			return data, ""
		case len(res.Content) == 1:
			if t, ok := res.Content[0].(*mcp.TextContent); ok && (sameJSON([]byte(t.Text), data) || wraps(data, t.Text)) {
				return data, ""
			}
		}
		return nil, "its structuredContent neither repeats nor wraps its one text"
	}
	if len(res.Content) != 1 {
		return nil, "it answers with several contents"
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return nil, "it answers with an image, audio or a resource"
	}
	if trimmed := bytes.TrimSpace([]byte(t.Text)); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return trimmed, ""
	}
	data, _ := json.Marshal(t.Text)
	return data, ""
}

// wraps reports whether the JSON object data has one member, and its
// value is the string text.
func wraps(data []byte, text string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || len(m) != 1 {
		return false
	}
	for _, v := range m {
		var s string
		return json.Unmarshal(v, &s) == nil && s == text
	}
	return false
}

// foldedForm is the JSON schema of a folded answer as structuredContent.
// A preview is of the answer's type (an object, a list, or the string a
// text folds as), each a branch of its own for clients that take one type
// to a schema.
const foldedForm = `{"type":"object","properties":{"preview":{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"}]},"shape":{"type":"object"},"handle":{"type":"string"},"uri":{"type":"string"}},"required":["preview","shape","handle","uri"]}`

// admitFolded is an upstream tool's output schema widened to admit the
// folded form of its answers too, so that a client that checks
// structuredContent against the schema folio advertised takes a folded
// answer: {"type":"object","anyOf":[the schema, the folded form]}, with
// the schema's definitions moved up to the root, where its references
// look for them (when nothing moves, the schema's own bytes stay as they
// are, see spliceFolded). A schema that is not a JSON object stays as it
// is.
func admitFolded(schema any) any {
	raw, err := json.Marshal(schema)
	if err != nil {
		return schema
	}
	if spliced := spliceFolded(raw); spliced != nil {
		return spliced
	}
	var inner map[string]any
	if json.Unmarshal(raw, &inner) != nil {
		return schema
	}
	var folded map[string]any
	json.Unmarshal([]byte(foldedForm), &folded)
	out := map[string]any{"type": "object", "anyOf": []any{inner, folded}}
	for _, k := range []string{"$schema", "$id", "$defs", "definitions"} {
		if v, ok := inner[k]; ok {
			out[k] = v
			delete(inner, k)
		}
	}
	return out
}

// spliceFolded is the schema raw (a JSON object with no definitions or
// identity to move up) widened as admitFolded widens it, its bytes kept as
// they are; nil for any other schema.
func spliceFolded(raw json.RawMessage) json.RawMessage {
	raw = jsonvalue.Trim(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		return nil
	}
	for _, m := range members {
		switch m.Key {
		case "$schema", "$id", "$defs", "definitions":
			return nil
		}
	}
	return json.RawMessage(`{"type":"object","anyOf":[` + string(raw) + `,` + foldedForm + `]}`)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
