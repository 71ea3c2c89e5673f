package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// Tool is an upstream tool as folio offers it.
type Tool struct {
	// Name is the name folio offers it by (see ToolName).
	Name string
	// Upstream is its server's name, and Original its own name there.
	Upstream, Original string
	// Def is the tool as the upstream advertised it, under Name; its
	// schemas are json.RawMessage, as they came.
	Def *mcp.Tool
	// Raw is the upstream's definition as it came (under Original): the
	// fields mcp.Tool has no place for are in it.
	Raw json.RawMessage
}

// Catalog is a fixed list of upstream tools: what one session is offered
// for its whole life.
type Catalog struct {
	Tools  []Tool
	byName map[string]Tool
	// ttl is the least of the upstreams' own tools/list ttlMs, when
	// any gave one (hasTTL).
	ttl    time.Duration
	hasTTL bool
}

// maxListTTL bounds what an upstream's ttlMs is taken to say.
const maxListTTL = 24 * time.Hour

// TTL is the least time any of the catalog's upstreams said a client may
// keep its tool list (the ttlMs of its tools/list), when one said.
func (c *Catalog) TTL() (time.Duration, bool) { return c.ttl, c.hasTTL }

// Lookup finds a tool of the catalog by the name folio offers it by.
func (c *Catalog) Lookup(name string) (Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// Bounds on what folio offers of one upstream.
const (
	// MaxTools is the most tools of one upstream offered; the rest are
	// left out.
	MaxTools = 1000
	// MaxToolBytes bounds one tool's definition, as JSON.
	MaxToolBytes = 256 << 10
)

// newCatalog offers the tools of each entry, upstreams in name order. A
// tool that cannot be offered (see checkTool and ToolNames) is left out,
// and each such problem is among the errors of its upstream's name: one
// upstream's tools never keep another's from being offered.
func newCatalog(servers []Server, entries map[string]Entry) (*Catalog, map[string][]error) {
	c := &Catalog{byName: map[string]Tool{}}
	problems := map[string][]error{}
	for _, s := range servers {
		e, ok := entries[s.Name]
		if !ok {
			continue
		}
		if ms := e.ToolsTTLMs; ms != nil {
			// Bounded, as the upstream's word (or the cache file's) may
			// be anything: a day is longer than folio keeps a list.
			if ttl := time.Duration(min(max(*ms, 0), int(maxListTTL.Milliseconds()))) * time.Millisecond; !c.hasTTL || ttl < c.ttl {
				c.ttl, c.hasTTL = ttl, true
			}
		}
		var errs []error
		var own []string
		defs := map[string]*mcp.Tool{}
		raws := map[string]json.RawMessage{}
		for i, raw := range e.Tools {
			if i == MaxTools {
				errs = append(errs, fmt.Errorf("server %q advertises more than %d tools: only the first %d are offered", s.Name, MaxTools, MaxTools))
				break
			}
			t, err := parseTool(raw)
			if err != nil {
				errs = append(errs, fmt.Errorf("server %q: %w: it is not offered", s.Name, err))
				continue
			}
			if taskRequired(raw) || slices.Contains(e.TaskRequired, t.Name) {
				errs = append(errs, fmt.Errorf("server %q: tool %s can only be called as a task (execution.taskSupport \"required\"), which folio cannot send: it is not offered", s.Name, quote(t.Name)))
				continue
			}
			own = append(own, t.Name)
			defs[t.Name], raws[t.Name] = t, raw
		}
		names, nameErrs := ToolNames(s.Name, own)
		errs = append(errs, nameErrs...)
		for offered, original := range names {
			def := *defs[original]
			def.Name = offered
			t := Tool{Name: offered, Upstream: s.Name, Original: original, Def: &def, Raw: raws[original]}
			c.Tools = append(c.Tools, t)
			c.byName[offered] = t
		}
		if len(errs) > 0 {
			problems[s.Name] = errs
		}
	}
	slices.SortFunc(c.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return c, problems
}

// parseTool is the tool raw defines, its schemas as they came
// (json.RawMessage), or what keeps folio from offering it: a definition
// over MaxToolBytes or that is no JSON object, or an input schema (or
// output schema, when there is one) that is not a JSON object of type
// "object", as MCP requires and clients check.
func parseTool(raw json.RawMessage) (*mcp.Tool, error) {
	if len(raw) > MaxToolBytes {
		var head struct {
			Name string `json:"name"`
		}
		json.Unmarshal(raw, &head)
		return nil, fmt.Errorf("tool %s is defined in %d bytes, over %d", quote(head.Name), len(raw), MaxToolBytes)
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, errors.New("a tool is null")
	}
	raw = jsonvalue.Trim(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, errors.New("a tool is not defined by a JSON object")
	}
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		return nil, errors.New("a tool is not defined by a JSON object")
	}
	// The fields by their exact keys, as go-sdk's clients read them
	// (encoding/json would take "InputSchema" too).
	var name string
	var in, out json.RawMessage
	for _, m := range members {
		switch m.Key {
		case "name":
			json.Unmarshal(raw[m.Start:m.End], &name)
		case "inputSchema":
			in = raw[m.Start:m.End]
		case "outputSchema":
			out = raw[m.Start:m.End]
		}
	}
	if bytes.Equal(out, []byte("null")) {
		out = nil
	}
	t := &mcp.Tool{InputSchema: new(json.RawMessage), OutputSchema: new(json.RawMessage)} // not decoded into maps
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("tool %s: its definition does not decode: %v", quote(name), err)
	}
	t.Name, t.InputSchema, t.OutputSchema = name, nil, nil
	for _, sc := range []struct {
		what   string
		schema json.RawMessage
		to     *any
	}{{"input schema", in, &t.InputSchema}, {"output schema", out, &t.OutputSchema}} {
		if len(sc.schema) == 0 && sc.what == "output schema" {
			continue
		}
		var head struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(sc.schema, &head) != nil || head.Type != "object" {
			return nil, fmt.Errorf("tool %s: its %s is not a JSON schema of type \"object\"", quote(t.Name), sc.what)
		}
		*sc.to = sc.schema
	}
	return t, nil
}

// same reports whether c offers what o does: the same tools, as defined.
func (c *Catalog) same(o *Catalog) bool {
	return len(Diff(o, c)) == 0
}

// Change is how one upstream's tools differ between two catalogs.
type Change struct {
	Upstream                string
	Added, Removed, Changed []string // offered names
}

// Diff tells, upstream by upstream, how the tools of catalog now differ
// from those of was.
func Diff(was, now *Catalog) []Change {
	by := map[string]*Change{}
	change := func(upstream string) *Change {
		if by[upstream] == nil {
			by[upstream] = &Change{Upstream: upstream}
		}
		return by[upstream]
	}
	for _, t := range now.Tools {
		old, ok := was.Lookup(t.Name)
		switch {
		case !ok:
			c := change(t.Upstream)
			c.Added = append(c.Added, t.Name)
		case !bytes.Equal(old.Raw, t.Raw):
			c := change(t.Upstream)
			c.Changed = append(c.Changed, t.Name)
		}
	}
	for _, t := range was.Tools {
		if _, ok := now.Lookup(t.Name); !ok {
			c := change(t.Upstream)
			c.Removed = append(c.Removed, t.Name)
		}
	}
	var out []Change
	for _, c := range by {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Upstream, b.Upstream) })
	return out
}
