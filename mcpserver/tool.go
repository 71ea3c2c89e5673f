package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// A tool is one of folio's tools as one value: what tools/list says of
// it, how a call of it is answered, and how the stages after the handler
// treat its answers. Each tool's file registers it (see register); the
// table is the one list of folio's tools, which tools/list, metrics,
// folding, search mode and the tests take them from.
type tool struct {
	name string
	// description is what tools/list says the tool does; a function of
	// the server, since some say its configuration.
	description func(*Server) string
	// schema is its input schema, derived from its argument type (see
	// package wire).
	schema func(*Server) json.RawMessage
	// handler answers a call (see handle).
	handler func(*Server) mcp.ToolHandler
	// offered reports whether the server offers the tool; nil for always.
	offered func(*Server) bool
	// meta marks a meta-tool of search mode: offered, in place of the
	// upstream tools it finds, only when search mode is on for the
	// session's catalog, and answered by searchTools. The others are
	// folio's own: read-only and closed-world, registered with go-sdk.
	meta bool
	// folds: a large answer folds into a handle (see foldOwn).
	folds bool
	// pages: each answer is a page or a window of a file, counted by the
	// folio.pages metric.
	pages bool
}

// tools is the table of folio's tools, in the order registered.
var tools []*tool

// register adds t to the table; each tool's file calls it from init.
func register(t *tool) {
	if t.name == "" || t.description == nil || t.schema == nil || t.handler == nil || toolNamed(t.name) != nil {
		panic("mcpserver: tool " + t.name + " registered twice or incomplete")
	}
	tools = append(tools, t)
}

// toolNamed is the tool of the table with the name, nil for none.
func toolNamed(name string) *tool {
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

// ownTool is the tool of folio's own (not a meta-tool) with the name, nil
// for none.
func ownTool(name string) *tool {
	if t := toolNamed(name); t != nil && !t.meta {
		return t
	}
	return nil
}

// metaTool reports whether name is one of search mode's meta-tools.
func metaTool(name string) bool {
	t := toolNamed(name)
	return t != nil && t.meta
}

// definition is t as tools/list offers it.
func (t *tool) definition(s *Server) *mcp.Tool {
	def := &mcp.Tool{Name: t.name, Description: t.description(s), InputSchema: t.schema(s)}
	if !t.meta {
		no := false
		def.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	}
	return def
}

// addTools registers folio's own tools that the server offers with go-sdk;
// the meta-tools are offered by the stage that lists upstream tools.
func (s *Server) addTools() {
	for _, t := range tools {
		if t.meta || (t.offered != nil && !t.offered(s)) {
			continue
		}
		def, handler := t.definition(s), t.handler(s)
		s.mcp.AddTool(def, handler)
		if s.relist.tool == nil {
			s.relist.tool, s.relist.handler = def, handler
		}
	}
}

// A toolRun answers a call of a tool whose arguments, a, were decoded
// strictly and passed their own checks, for the caller c. An error it
// returns becomes the tool result the model sees (see toolError).
type toolRun[A any] func(s *Server, ctx context.Context, req *mcp.CallToolRequest, c *caller, a A) (*mcp.CallToolResult, error)

// handle is the handler of a tool whose arguments are an A: it decodes
// them strictly, moves those given by former names to their names now
// (when A is a wire.Renamed), has them check themselves (when A is a
// wire.Args), resolves the caller, and runs run, mapping its error.
func handle[A any](run toolRun[A]) func(*Server) mcp.ToolHandler {
	return func(s *Server) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a A
			if e := decodeArgs(req.Params.Arguments, &a); e != nil {
				return errorResult(e), nil
			}
			if renamed, ok := any(&a).(wire.Renamed); ok {
				if e := renamed.Rename(); e != nil {
					return errorResult(e), nil
				}
			}
			if checked, ok := any(a).(wire.Args); ok {
				if e := checked.Check(); e != nil {
					return errorResult(e), nil
				}
			}
			c, err := s.caller(ctx)
			if err != nil {
				return s.toolError(err)
			}
			res, err := run(s, ctx, req, c, a)
			if err != nil {
				return s.toolError(err)
			}
			return res, nil
		}
	}
}

// decodeArgs reads a tool's arguments strictly: unknown names and wrong
// types are invalid_argument.
func decodeArgs(raw json.RawMessage, v any) *toolerr.Error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return toolerr.Invalid("argument %s must be a JSON %s, not %s", te.Field, kind(te.Type.String()), te.Value)
		}
		return toolerr.Invalid("bad arguments: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return toolerr.Invalid("bad arguments: more than one JSON value")
	}
	return nil
}

func kind(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "int":
		return "integer"
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "[]string":
		return "array of strings"
	}
	return goType
}

func errorResult(e *toolerr.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(e.JSON())}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError turns a failure into the tool result the model sees; a caller
// with no identity is the one failure that is a protocol error.
func (s *Server) toolError(err error) (*mcp.CallToolResult, error) {
	if errors.Is(err, errUnauthorized) {
		return nil, err
	}
	e := toolerr.From(err)
	if e.Code == toolerr.CodeInternal && !errors.Is(err, context.Canceled) {
		s.log.Error("tool failed", "err", err)
	}
	return errorResult(e), nil
}
