package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/schema"
	"github.com/folio-mcp/folio/toolerr"
)

// uriSuffix marks an argument that passes a value by reference: X_uri in
// place of X.
const uriSuffix = "_uri"

// substitute replaces, on a call of an upstream tool, each argument X_uri
// that folio added to the tool's advertised schema (see referable) whose
// value is a reference, or an array of them, by the argument X holding the
// values referred to:
// mcp+cache:// references (a folded answer, or a part of it by its JSON
// pointer fragment, for the caller's session and subject only) and
// file:// URIs of files the caller may read (their text). Other values of
// X_uri go on untouched. A reference that cannot be resolved stops the
// call before the tool runs: reference_not_found, with the missing URIs.
// The references of a call are counted, in all its arguments, before any
// is decoded or read: more than MaxReferences stop it (too_large). What
// they read, and what they put in its arguments, are each bounded by
// MaxAnswerBytes (too_large past either, naming the argument and the
// references that did not fit), and the arguments with their values are
// built once all fit.
func (s *Server) substitute(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || !bytes.Contains(call.Params.Arguments, []byte(uriSuffix+`"`)) {
			return next(ctx, method, req)
		}
		allowed, err := s.referenceArgs(ctx, call)
		if err != nil || len(allowed) == 0 {
			return next(ctx, method, req)
		}
		args, ok := scanRefArgs(call.Params.Arguments, allowed)
		if !ok || len(args.list) == 0 {
			return next(ctx, method, req)
		}
		if stop := tooManyReferences(args); stop != nil {
			return stop, nil
		}
		c, err := s.caller(ctx)
		if err != nil {
			return nil, err
		}
		values, stop, err := s.resolveArgs(ctx, s.callReferences(call, c), args)
		if stop != nil || err != nil {
			return stop, err
		}
		substituted := map[string]string{} // argument → the X_uri it came from
		for _, arg := range args.list {
			if args.given[arg.name] {
				s.log.Info("both an argument and its reference were given: the reference wins", "tool", call.Params.Name, "argument", arg.name)
			}
			substituted[arg.name] = arg.key
		}
		call.Params.Arguments = args.expand(values)
		return next(context.WithValue(ctx, substitutedKey{}, substituted), method, req)
	}
}

// tooManyReferences is the answer that stops a call whose arguments pass
// more than MaxReferences references in all (too_large, naming the
// argument at which they passed it), or nil.
func tooManyReferences(args *refArgs) *mcp.CallToolResult {
	if args.total <= MaxReferences {
		return nil
	}
	counted := 0
	for _, arg := range args.list {
		if counted += arg.n; counted > MaxReferences {
			return errorResult(toolerr.New(toolerr.CodeTooLarge, "%s: the call passes more than %d references; pass fewer (a reference to a whole list, or to a part of an answer by a JSON pointer fragment, counts once); the tool was not called", arg.key, MaxReferences))
		}
	}
	return nil
}

// resolveArgs resolves the references of args, in the order of their
// arguments' names: values[i] are those of args.list[i]. It returns the
// answer that stops the call before the tool runs, if any: one that
// cannot be read or does not fit (see unresolvedReference), or, once all
// are resolved, those that do not exist (reference_not_found).
func (s *Server) resolveArgs(ctx context.Context, refs *callReferences, args *refArgs) ([][]json.RawMessage, *mcp.CallToolResult, error) {
	values := make([][]json.RawMessage, len(args.list))
	var missing []string
	for i, arg := range args.list {
		uris := arg.uris()
		values[i] = make([]json.RawMessage, len(uris))
		for j, uri := range uris {
			v, err := refs.resolve(ctx, uri)
			if err != nil {
				if stop, err := s.unresolvedReference(arg.key, j, len(uris), arg.many, err); stop != nil || err != nil {
					return nil, stop, err
				}
				missing = append(missing, uri)
			}
			values[i][j] = v
		}
	}
	if len(missing) > 0 {
		return nil, referenceNotFound(missing), nil
	}
	return values, nil, nil
}

// unresolvedReference is the answer that stops the call when the
// reference i of the n of argument key (an array of them when many)
// failed to resolve with err: too_large when its value does not fit what
// a call may read or pass, naming the references that did not fit; any
// other failure as toolError has it. A reference that does not exist
// for the caller stops nothing (nil, nil): the call names it among the
// missing ones, once all are resolved.
func (s *Server) unresolvedReference(key string, i, n int, many bool, err error) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(err, errReferencesTooLarge) || errors.Is(err, fold.ErrReadLimit):
		which := fmt.Sprintf("its reference %d", i+1)
		if many {
			which = fmt.Sprintf("its references %d to %d (of %d)", i+1, n, n)
		}
		return errorResult(toolerr.New(toolerr.CodeTooLarge, "%s: %s do not fit: %v; pass fewer references, or smaller parts of an answer (a JSON pointer fragment); the tool was not called", key, which, err)), nil
	case !isNotFound(err):
		return s.toolError(err)
	}
	return nil, nil
}

// referenceArgs is what substitute may fill in on call: for a tool of the
// caller's upstream catalog, the arguments folio invites references for
// (none with NoReferenceArgs); folio's own tools declare none.
func (s *Server) referenceArgs(ctx context.Context, call *mcp.CallToolRequest) (map[string]string, error) {
	t := targetOf(ctx, call)
	if s.cfg.Gateway == nil || s.cfg.NoReferenceArgs || t.kind != targetUpstream {
		return nil, nil
	}
	catalog, tool, found, err := t.catalog(ctx, s)
	if err != nil || !found {
		return nil, err
	}
	cs := s.stateOf(catalog)
	v, ok := cs.referables.Load(tool.Def)
	if !ok {
		_, props := inputProperties(tool.Def)
		v, _ = cs.referables.LoadOrStore(tool.Def, referable(props))
	}
	return v.(map[string]string), nil
}

// isReference reports whether s is a reference substitute resolves: an
// mcp+cache:// or a file:// URI.
func isReference(s string) bool {
	return fold.IsReference(s) || len(s) >= 7 && strings.EqualFold(s[:7], "file://")
}

// MaxReferences is the most references one call may pass, in all its
// arguments.
const MaxReferences = 10_000

// errReferencesTooLarge: the values of a call's references come to more
// than its arguments may hold.
var errReferencesTooLarge = errors.New("the values referred to come to more than one call's arguments may hold")

// callReferences resolves the references of one call, for its caller:
// each folded answer is read and decrypted once, and each file read
// once, however often they are named; what they read, and what they
// substitute, each come to at most MaxAnswerBytes.
type callReferences struct {
	s      *Server
	c      *caller
	folded *fold.References // nil without an owner or a Folder
	files  map[string]json.RawMessage
	// read counts the bytes of the files read; folded counts its own.
	read, substituted int
}

func (s *Server) callReferences(call *mcp.CallToolRequest, c *caller) *callReferences {
	r := &callReferences{s: s, c: c, files: map[string]json.RawMessage{}}
	if owner, ok := s.owner(call.Session, c); ok && s.cfg.Fold != nil {
		r.folded = s.cfg.Fold.References(owner, s.cfg.MaxAnswerBytes)
	}
	return r
}

// resolve is the JSON value a reference names, for the caller.
func (r *callReferences) resolve(ctx context.Context, uri string) (json.RawMessage, error) {
	v, err := r.value(ctx, uri)
	if err != nil {
		return nil, err
	}
	if r.substituted+len(v) > r.s.cfg.MaxAnswerBytes {
		return nil, fmt.Errorf("%w: %d bytes, and the bound is %d (--max-answer-bytes)", errReferencesTooLarge, r.substituted+len(v), r.s.cfg.MaxAnswerBytes)
	}
	r.substituted += len(v)
	return v, nil
}

func (r *callReferences) value(ctx context.Context, uri string) (json.RawMessage, error) {
	if fold.IsReference(uri) {
		if r.folded == nil {
			return nil, toolerr.New(toolerr.CodeHandleNotFound, "no folded answers here")
		}
		return r.folded.Resolve(ctx, uri)
	}
	if v, ok := r.files[uri]; ok {
		return v, nil
	}
	f, err := r.c.fs.Regular(uri)
	if err != nil {
		return nil, err
	}
	bound := r.s.cfg.MaxAnswerBytes
	if f.Size() > int64(bound) {
		return nil, toolerr.New(toolerr.CodeTooLarge, "%s is %d bytes, over the %d a reference may carry", f.URI, f.Size(), bound)
	}
	if r.read+int(f.Size()) > bound {
		return nil, fmt.Errorf("%w: %s is %d bytes, past the %d the references of one call may read", fold.ErrReadLimit, f.URI, f.Size(), bound)
	}
	snap, err := r.c.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	v, err := json.Marshal(string(snap.Window))
	if err != nil {
		return nil, err
	}
	r.read += len(snap.Window)
	r.files[uri] = v
	return v, nil
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

// substitutedKey is where substitute leaves, for the stages after it, the
// arguments it made from references: argument X → "X_uri".
type substitutedKey struct{}

// missingShown is how many missing references an error names.
const missingShown = 10

// referenceNotFound is the tool error of references that do not resolve:
// the first missingShown of them, and how many there were.
func referenceNotFound(missing []string) *mcp.CallToolResult {
	shown := make([]string, 0, missingShown)
	for _, uri := range missing[:min(len(missing), missingShown)] {
		shown = append(shown, cutURI(uri))
	}
	e := toolerr.New(toolerr.CodeReferenceNotFound, "a reference passed as an argument is unknown or has expired (or is not this session's): run the tool that made it again, and pass its new uri; the tool was not called").
		With("missing_uris", shown)
	if len(missing) > missingShown {
		e.With("missing", len(missing))
	}
	return errorResult(e)
}

// inviteReferences is the tool as folio advertises it: beside each
// top-level input property X that referable names, an X_uri of type
// string (or string or array, for an array), and a required X no longer
// required (the call is checked against the upstream's own schema after
// substitution, and says what is missing). The form is as short as it can
// be, since every session's tools/list carries it: what an X_uri takes is
// said once, in the server's instructions (referenceInstructions).
func inviteReferences(def *mcp.Tool) *mcp.Tool {
	schema, props := inputProperties(def)
	refs := referable(props)
	if len(refs) == 0 {
		return def
	}
	required, _ := schema["required"].([]any)
	for name, kind := range refs {
		if kind == "array" {
			props[name+uriSuffix] = map[string]any{"type": []any{"string", "array"}}
		} else {
			props[name+uriSuffix] = map[string]any{"type": "string"}
		}
		if i := slices.Index(required, any(name)); i >= 0 {
			required = slices.Delete(required, i, i+1)
		}
	}
	if len(required) > 0 {
		schema["required"] = required
	} else {
		delete(schema, "required")
	}
	invited := *def
	invited.InputSchema = schema
	return &invited
}

// referenceInstructions tells, once, what the X_uri arguments of upstream
// tools take.
const referenceInstructions = " An upstream tool's argument X_uri takes, in place of X, a reference: an mcp+cache:// uri of a folded answer (a part of it by a #/json/pointer), a file:// uri of a file here, or an array of them for an array."

// inputProperties is a copy of the tool's input schema, and its
// top-level properties (nil when it has none).
func inputProperties(def *mcp.Tool) (map[string]any, map[string]any) {
	raw, err := json.Marshal(def.InputSchema)
	if err != nil {
		return nil, nil
	}
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil {
		return nil, nil
	}
	props, _ := schema["properties"].(map[string]any)
	return schema, props
}

// referable names the top-level input properties X that folio invites
// references for, with their types: arrays and objects, and strings that
// carry content (named for it, neither enumerated nor formatted: a file's
// text into content, not a path or a pattern); none that has an X_uri of
// its own or is one (doc_uri gets no doc_uri_uri). Only these are
// substituted on a call of the tool: any other argument, an X_uri the
// upstream declares itself say, reaches it as it was sent.
func referable(props map[string]any) map[string]string {
	out := map[string]string{}
	for name, v := range props {
		p, _ := v.(map[string]any)
		if _, has := props[name+uriSuffix]; has || p == nil || strings.HasSuffix(name, uriSuffix) {
			continue
		}
		switch t := typeOf(p); t {
		case "array", "object":
			out[name] = t
		case "string":
			_, enum := p["enum"]
			_, format := p["format"]
			if !enum && !format && carriesContent(name) {
				out[name] = t
			}
		}
	}
	return out
}

// contentWords are the words of a string argument's name that say it
// carries content, as against naming something (a path, a pattern, an id).
var contentWords = map[string]bool{
	"content": true, "contents": true, "text": true, "data": true, "body": true, "message": true,
	"markdown": true, "html": true, "json": true, "yaml": true, "csv": true, "xml": true,
	"document": true, "doc": true, "input": true, "payload": true, "code": true, "source_code": true,
	"script": true, "patch": true, "diff": true, "template": true, "prompt": true, "note": true, "notes": true,
}

// carriesContent reports whether the last word of an argument's name
// (snake_case, kebab-case or camelCase) is one of contentWords.
func carriesContent(name string) bool {
	last := name
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			last = name[i+1:]
		case r >= 'A' && r <= 'Z' && i > 0:
			last = name[i:]
		}
	}
	return contentWords[strings.ToLower(last)]
}

// typeOf is a schema's one type, or "" when it has none or several.
func typeOf(p map[string]any) string {
	t, _ := p["type"].(string)
	return t
}

// cutURI is a URI cut short for a message.
func cutURI(uri string) string {
	if r := []rune(uri); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return uri
}

// checkArgs checks the arguments of a call (after substitution) against
// the upstream's own input schema: invalid_argument, saying where and why
// (and, for an argument made from a reference, which), never the value,
// when they do not fit. A schema folio cannot judge within its bounds
// (see package schema) is passed over, and logged once: the upstream
// judges.
func (s *Server) checkArgs(ctx context.Context, cs *catalogState, def *mcp.Tool, args json.RawMessage) error {
	v, ok := cs.schemas.Load(def)
	if !ok {
		raw, err := json.Marshal(def.InputSchema)
		var c *schema.Checker
		if err == nil {
			c, err = schema.Compile(raw)
		}
		if err != nil {
			s.log.Warn("arguments of this tool are not checked: the upstream judges them", "tool", def.Name, "err", err)
		}
		v, _ = cs.schemas.LoadOrStore(def, c)
	}
	c := v.(*schema.Checker)
	if c == nil {
		return nil
	}
	instance := []byte("{}")
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		if !json.Valid(trimmed) {
			return toolerr.Invalid("the arguments are not JSON; the tool was not called")
		}
		instance = trimmed
	}
	err := c.Validate(instance)
	if errors.Is(err, schema.ErrCannotJudge) {
		s.log.Debug("arguments not checked: the upstream judges them", "tool", def.Name, "err", err)
		return nil
	}
	var inv *schema.Invalid
	if errors.As(err, &inv) && inv.Property != "" {
		refs, _ := ctx.Value(substitutedKey{}).(map[string]string)
		if ref, ok := refs[inv.Property]; ok {
			return toolerr.Invalid("%s, the value %s refers to, does not fit %s's input schema %v; pass a reference to a value that does (a part of an answer, by a JSON pointer fragment); the tool was not called", inv.Property, ref, def.Name, err)
		}
		return toolerr.Invalid("argument %s does not fit %s's input schema %v; the tool was not called", inv.Property, def.Name, err)
	}
	if err != nil {
		return toolerr.Invalid("the arguments do not fit %s's input schema %v; the tool was not called", def.Name, err)
	}
	return nil
}
