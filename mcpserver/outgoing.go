package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/upstream"
)

// Two things an answer must carry are beyond go-sdk v1.8's types, which
// every stage works with:
//
//   - In the 2026-07-28 era every result has a resultType. go-sdk sets it
//     on the results of the handlers it calls itself, in a field only its
//     own code can write; a result a stage makes (an upstream's answer, a
//     folded one, a tool error, call_tool's) has none, and clients such as
//     the AI SDK refuse it.
//   - An upstream tool is offered with every field of its definition as the
//     upstream gave it (execution, say, or any later field), which
//     mcp.Tool has no place for.
//
// outgoing writes both into the answer as it leaves.

// outgoing gives a 2026-07-28 request's call, prompt and resource results
// their resultType, and a tools/list answer its upstream tools' own
// definitions (see offered).
func (s *Server) outgoing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var listed *listedCatalog
		if method == "tools/list" && s.cfg.Gateway != nil {
			listed = &listedCatalog{}
			ctx = context.WithValue(ctx, listedKey{}, listed)
		}
		res, err := next(ctx, method, req)
		if err != nil || res == nil {
			return res, err
		}
		if list, ok := res.(*mcp.ListToolsResult); ok {
			return toolList(listed, list), nil
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); !ok || !sessionlessEra(ss) {
			return res, nil
		}
		switch r := res.(type) {
		case *mcp.CallToolResult:
			return withResultType(r, &s.typed.call), nil
		case *mcp.GetPromptResult:
			return withResultType(r, &s.typed.prompt), nil
		case *mcp.ReadResourceResult:
			return withResultType(r, &s.typed.resource), nil
		}
		return res, nil
	}
}

// typedResults are results of each kind that carry nothing but a
// resultType: "complete" ([0]) and "input_required" ([1]). go-sdk reads the
// field when it decodes a result, and nowhere else can it be set from
// outside: so these are decoded once, and withResultType copies the rest
// of a result into a copy of one.
type typedResults struct {
	call     [2]mcp.CallToolResult
	prompt   [2]mcp.GetPromptResult
	resource [2]mcp.ReadResourceResult
}

// newTypedResults decodes the typed results.
func newTypedResults() (*typedResults, error) {
	t := &typedResults{}
	for i, kind := range []string{`{"resultType":"complete"}`, `{"resultType":"input_required"}`} {
		for _, into := range []any{&t.call[i], &t.prompt[i], &t.resource[i]} {
			if err := json.Unmarshal([]byte(kind), into); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// withResultType is res with its resultType set: "input_required" when it
// asks the client for input, else "complete" (of typed, see typedResults).
func withResultType[R any, P interface {
	*R
	NeedsInput() bool
}](res P, typed *[2]R) P {
	out := P(new(R))
	*out = typed[0]
	if res.NeedsInput() {
		*out = typed[1]
	}
	to, from := reflect.ValueOf(out).Elem(), reflect.ValueOf(res).Elem()
	for i := range to.NumField() {
		if to.Type().Field(i).IsExported() {
			to.Field(i).Set(from.Field(i))
		}
	}
	return out
}

// offered is an upstream tool as folio offers it: as advertised (see
// advertised), and as it goes out, JSON: the upstream's definition, every
// field as it came and in its order, but for the name folio offers it by
// and the schemas as advertised (which differ from the upstream's by
// folio's additions: the X_uri arguments that take references, and the
// folded form its output schema admits).
func (s *Server) offered(cs *catalogState, t upstream.Tool) (*mcp.Tool, json.RawMessage) {
	ad := s.advertised(cs, t.Def)
	if v, ok := cs.definitions.Load(ad); ok {
		return ad, v.(json.RawMessage)
	}
	def := definition(t.Raw, ad)
	v, _ := cs.definitions.LoadOrStore(ad, def)
	return ad, v.(json.RawMessage)
}

// definition is raw, a tool's definition (compact JSON), with its name and
// schemas those of ad; ad as JSON when raw is no object.
func definition(raw json.RawMessage, ad *mcp.Tool) json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		b, _ := marshalCompact(ad)
		return b
	}
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		b, _ := marshalCompact(ad)
		return b
	}
	out := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		key, _ := marshalCompact(m.Key)
		out = append(append(out, key...), ':')
		var v any
		switch m.Key {
		case "name":
			v = ad.Name
		case "inputSchema":
			v = ad.InputSchema
		case "outputSchema":
			v = ad.OutputSchema
		default:
			out = append(out, raw[m.Start:m.End]...)
			continue
		}
		b, err := marshalCompact(v)
		if err != nil {
			b = raw[m.Start:m.End]
		}
		out = append(out, b...)
	}
	return append(out, '}')
}

// listedKey is where outgoing leaves, in a tools/list request's context,
// the listedCatalog that listUpstreamTools fills.
type listedKey struct{}

// listedCatalog is the state of the catalog a tools/list listed the
// upstream tools of, nil when it listed none: its tools' definitions are
// written as that catalog offered them, whatever the gateway's catalog
// is by the time the answer goes out.
type listedCatalog struct {
	state *catalogState
}

// toolList is list, with the upstream tools among its tools written as
// the catalog they were listed from offered them (see offered); list
// itself when there are none.
func toolList(listed *listedCatalog, list *mcp.ListToolsResult) mcp.Result {
	if listed == nil || listed.state == nil {
		return list
	}
	var defs map[*mcp.Tool]json.RawMessage
	for _, t := range list.Tools {
		if v, ok := listed.state.definitions.Load(t); ok {
			if defs == nil {
				defs = map[*mcp.Tool]json.RawMessage{}
			}
			defs[t] = v.(json.RawMessage)
		}
	}
	if defs == nil {
		return list
	}
	return &toolListResult{ListToolsResult: list, defs: defs}
}

// toolListResult is a tools/list answer some of whose tools go out as the
// JSON defs holds for them.
type toolListResult struct {
	*mcp.ListToolsResult
	defs map[*mcp.Tool]json.RawMessage
}

func (l *toolListResult) MarshalJSON() ([]byte, error) {
	type plain mcp.ListToolsResult // its fields, without this method
	tools := make([]json.RawMessage, len(l.Tools))
	for i, t := range l.Tools {
		if def, ok := l.defs[t]; ok {
			tools[i] = def
			continue
		}
		b, err := marshalCompact(t)
		if err != nil {
			return nil, err
		}
		tools[i] = b
	}
	// As go-sdk writes a message: no HTML escaped.
	return marshalCompact(struct {
		*plain
		Tools []json.RawMessage `json:"tools"`
	}{(*plain)(l.ListToolsResult), tools})
}
