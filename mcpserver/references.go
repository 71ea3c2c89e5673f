package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
)

// uriSuffix marks an argument that passes a value by reference: X_uri in
// place of X.
const uriSuffix = "_uri"

// substitute replaces, on every tools/call (folio's own tools and
// upstream ones), each argument X_uri whose value is a reference, or an
// array of them, by the argument X holding the values referred to:
// mcp+cache:// references (a folded answer, or a part of it by its JSON
// pointer fragment, for the caller's session and subject only) and
// file:// URIs of files the caller may read (their text). Other values of
// X_uri go on untouched. A reference that cannot be resolved stops the
// call before the tool runs: reference_not_found, with the missing URIs.
func (s *Server) substitute(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || !bytes.Contains(call.Params.Arguments, []byte(uriSuffix+`"`)) {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if json.Unmarshal(call.Params.Arguments, &args) != nil {
			return next(ctx, method, req)
		}
		c, err := s.caller(ctx, call.Extra)
		if err != nil {
			return nil, err
		}
		changed := false
		var missing []string
		for key, raw := range args {
			name, isRef := strings.CutSuffix(key, uriSuffix)
			if !isRef || name == "" {
				continue
			}
			uris, many := references(raw)
			if uris == nil {
				continue
			}
			values := make([]json.RawMessage, len(uris))
			for i, uri := range uris {
				v, err := s.resolve(ctx, call, c, uri)
				if err != nil {
					if !isNotFound(err) {
						return s.toolError(err)
					}
					missing = append(missing, uri)
				}
				values[i] = v
			}
			if _, both := args[name]; both {
				s.log.Info("both an argument and its reference were given: the reference wins", "tool", call.Params.Name, "argument", name)
			}
			if many {
				args[name], _ = json.Marshal(values)
			} else {
				args[name] = values[0]
			}
			delete(args, key)
			changed = true
		}
		if len(missing) > 0 {
			return referenceNotFound(missing), nil
		}
		if changed {
			call.Params.Arguments, _ = json.Marshal(args)
		}
		return next(ctx, method, req)
	}
}

// references reads an argument's value as one reference or an array of
// them; nil when it is neither.
func references(raw json.RawMessage) (uris []string, many bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if isReference(one) {
			return []string{one}, false
		}
		return nil, false
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return nil, false
	}
	for _, u := range list {
		if !isReference(u) {
			return nil, false
		}
	}
	return list, true
}

func isReference(s string) bool {
	return fold.IsReference(s) || len(s) >= 7 && strings.EqualFold(s[:7], "file://")
}

// resolve is the JSON value a reference names, for the caller.
func (s *Server) resolve(ctx context.Context, call *mcp.CallToolRequest, c *caller, uri string) (json.RawMessage, error) {
	if fold.IsReference(uri) {
		owner, ok := s.owner(call.Session, c)
		if s.cfg.Fold == nil || !ok {
			return nil, toolerr.New(toolerr.CodeHandleNotFound, "no folded answers here")
		}
		return s.cfg.Fold.Resolve(ctx, owner, uri)
	}
	f, err := c.fs.Regular(uri)
	if err != nil {
		return nil, err
	}
	if f.Size() > int64(s.cfg.MaxAnswerBytes) {
		return nil, toolerr.New(toolerr.CodeTooLarge, "%s is %d bytes, over the %d a reference may carry", f.URI, f.Size(), s.cfg.MaxAnswerBytes)
	}
	snap, err := c.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	return json.Marshal(string(snap.Window))
}

// isNotFound reports whether err means the referenced value does not
// exist for this caller: unknown, expired or another's handle, a pointer
// to nothing, or a file that is missing or hidden.
func isNotFound(err error) bool {
	var e *toolerr.Error
	if errors.As(err, &e) {
		switch e.Code {
		case toolerr.CodeHandleNotFound, toolerr.CodePathNotFound, toolerr.CodeNotFound:
			return true
		}
	}
	return errors.Is(err, fsview.ErrNotFound)
}

// referenceNotFound is the tool error of references that do not resolve.
func referenceNotFound(missing []string) *mcp.CallToolResult {
	var body struct {
		Error struct {
			Code        string   `json:"code"`
			Message     string   `json:"message"`
			MissingURIs []string `json:"missing_uris"`
		} `json:"error"`
	}
	body.Error.Code = toolerr.CodeReferenceNotFound
	body.Error.Message = "a reference passed as an argument is unknown or has expired (or is not this session's): run the tool that made it again, and pass its new uri; the tool was not called"
	body.Error.MissingURIs = missing
	b, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// inviteReferences is the tool as folio advertises it: beside each
// top-level input property X of type array, object or string that has no
// X_uri sibling, an X_uri that takes a reference (an array of them, for an
// array), and a required X becomes "X or X_uri". The upstream's own schema
// is untouched: calls are checked against it after substitution.
func inviteReferences(def *mcp.Tool) *mcp.Tool {
	raw, err := json.Marshal(def.InputSchema)
	if err != nil {
		return def
	}
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil {
		return def
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return def
	}
	required, _ := schema["required"].([]any)
	var either []any
	names := slices.Sorted(maps.Keys(props))
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if _, has := props[name+uriSuffix]; has || p == nil {
			continue
		}
		var ref map[string]any
		switch typeOf(p) {
		case "array":
			ref = map[string]any{"type": []any{"string", "array"}, "items": map[string]any{"type": "string"}}
		case "object", "string":
			ref = map[string]any{"type": "string"}
		default:
			continue
		}
		ref["description"] = "reference (mcp+cache:// or file://) in place of " + name
		props[name+uriSuffix] = ref
		if i := slices.Index(required, any(name)); i >= 0 {
			required = slices.Delete(required, i, i+1)
			either = append(either, map[string]any{"anyOf": []any{map[string]any{"required": []any{name}}, map[string]any{"required": []any{name + uriSuffix}}}})
		}
	}
	if len(required) > 0 {
		schema["required"] = required
	} else {
		delete(schema, "required")
	}
	if len(either) > 0 {
		all, _ := schema["allOf"].([]any)
		schema["allOf"] = append(all, either...)
	}
	invited := *def
	invited.InputSchema = schema
	return &invited
}

// typeOf is a schema's one type, or "" when it has none or several.
func typeOf(p map[string]any) string {
	t, _ := p["type"].(string)
	return t
}

// checkArgs checks the arguments of a call (after substitution) against
// the upstream's own input schema: invalid_argument, naming the field,
// when they do not fit.
func (s *Server) checkArgs(def *mcp.Tool, args json.RawMessage) error {
	v, ok := s.schemas.Load(def)
	if !ok {
		raw, err := json.Marshal(def.InputSchema)
		if err != nil {
			return nil
		}
		var schema jsonschema.Schema
		if json.Unmarshal(raw, &schema) != nil {
			return nil
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			return nil // not ours to judge: the upstream will
		}
		v, _ = s.schemas.LoadOrStore(def, resolved)
	}
	var instance any = map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(args, &instance); err != nil {
			return toolerr.New(toolerr.CodeInvalidArgument, "the arguments are not JSON: %v", err)
		}
	}
	if err := v.(*jsonschema.Resolved).Validate(instance); err != nil {
		return toolerr.New(toolerr.CodeInvalidArgument, "the arguments do not fit %s's input schema: %v; the tool was not called", def.Name, err)
	}
	return nil
}
