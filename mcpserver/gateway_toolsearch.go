package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/toolsearch"
	"github.com/folio-mcp/folio/upstream"
	"github.com/folio-mcp/folio/wire"
)

// Tool search modes (Config.ToolSearch).
const (
	// SearchAuto searches when the upstream tools would cost more than
	// Config.ToolSearchThreshold tokens in tools/list.
	SearchAuto = "auto"
	SearchOn   = "on"
	SearchOff  = "off"
	// DefaultToolSearchThreshold is the tokens of upstream tools past
	// which auto searches: about what three small servers cost.
	DefaultToolSearchThreshold = 5000
)

func init() {
	register(&tool{
		name:        wire.FindTools,
		description: func(*Server) string { return findToolsDescription },
		schema:      func(*Server) json.RawMessage { return wire.FindToolsSchema() },
		handler:     handle((*Server).findTools),
		meta:        true,
	})
	register(&tool{
		name: wire.DescribeTools,
		description: func(*Server) string {
			return "The full definitions of upstream tools by name, as tools/list would give them."
		},
		schema:  func(*Server) json.RawMessage { return wire.DescribeToolsSchema() },
		handler: handle((*Server).describeTools),
		meta:    true,
	})
	register(&tool{
		name: wire.CallTool,
		description: func(*Server) string {
			return "Call an upstream tool by name with its arguments: the same call as if it were listed."
		},
		schema:  func(*Server) json.RawMessage { return wire.CallToolSchema() },
		handler: handle((*Server).callTool),
		meta:    true,
	})
}

var findToolsDescription = fmt.Sprintf(`Find upstream tools for a task, described in your own words (naming the server helps): answers up to limit (default %d) lines "server__tool: what it does", best first. Then describe_tools for their arguments, and call_tool to call one.`, wire.DefaultFound)

// searchState is what search mode knows of one catalog: whether it is on
// for it, and the index of the tools it does not list.
type searchState struct {
	on     bool
	tokens int // of the tools it does not list, in tools/list
	hidden []upstream.Tool
	index  *toolsearch.Index
	// topics are the catalog's servers, as find_tools' description says
	// them (see describeServers).
	topics []toolsearch.Topic
}

// searchFor is the search state of catalog c, made once with the
// catalog's state (sessions of the older era keep the catalog they
// started with, so a few live at once).
func (s *Server) searchFor(c *upstream.Catalog) *searchState {
	cs := s.stateOf(c)
	cs.searchOnce.Do(func() { cs.search = s.newSearchState(cs, c) })
	return cs.search
}

// newSearchState is the search state of catalog c, whose state is cs.
func (s *Server) newSearchState(cs *catalogState, c *upstream.Catalog) *searchState {
	st := &searchState{}
	var docs []toolsearch.Doc
	for _, t := range c.Tools {
		if s.cfg.Gateway.AlwaysListed(t) {
			continue
		}
		ad, b := s.offered(cs, t)
		st.tokens += s.cfg.Counter.Count(string(b))
		st.hidden = append(st.hidden, t)
		schema, _ := json.Marshal(ad.InputSchema)
		docs = append(docs, toolsearch.Doc{Name: t.Name, Upstream: t.Upstream, Description: ad.Description, Schema: schema})
	}
	switch s.cfg.ToolSearch {
	case SearchOn:
		st.on = len(st.hidden) > 0
	case SearchAuto, "":
		st.on = st.tokens > s.cfg.ToolSearchThreshold
	}
	if st.on {
		st.index = toolsearch.New(docs)
		st.topics = toolsearch.Topics(docs, topicWords)
	}
	return st
}

// toolsListBudget is the most tokens search mode's tools/list is to cost,
// as it is written: what find_tools' description says of the catalog's
// servers is cut to fit it.
const toolsListBudget = 1700

// topicWords is the most words find_tools' description gives of each
// server.
const topicWords = 3

// describeServers adds to find_tools' description in list, search mode's
// tools/list in answer to req, what the catalog (whose state is cs)
// says of its servers: each on a line, with the words that tell its tools
// apart, as much as keeps the list, counted as it is written (see
// writtenTokens), within toolsListBudget: fewer words, or only as many
// servers' names as fit, or nothing when even one name does not.
func (s *Server) describeServers(req mcp.Request, list *mcp.ListToolsResult, st *searchState, cs *catalogState) {
	i := slices.IndexFunc(list.Tools, func(t *mcp.Tool) bool { return t.Name == wire.FindTools })
	if i < 0 || len(st.topics) == 0 {
		return
	}
	// From the most said to the least, each costing no more than the one
	// before: the first that fits is found in a few counts of the list.
	var choices []string
	for words := topicWords; words >= 0; words-- {
		choices = append(choices, serverLines(st.topics, words, len(st.topics)))
	}
	for n := len(st.topics) - 1; n > 0; n-- {
		choices = append(choices, serverLines(st.topics, 0, n))
	}
	base := list.Tools[i].Description
	k := sort.Search(len(choices), func(k int) bool {
		list.Tools[i].Description = base + choices[k]
		return s.writtenTokens(req, list, cs) <= toolsListBudget
	})
	list.Tools[i].Description = base
	if k < len(choices) {
		list.Tools[i].Description += choices[k]
	}
}

// writtenTokens is what list costs as it is written in answer to req:
// as outgoing writes it (upstream tools by their own definitions, of the
// catalog whose state is cs; nothing HTML-escaped), with what go-sdk adds
// to each result of the 2026-07-28 era after the last stage (its
// resultType, and the server's name and version in _meta, SEP-2575).
func (s *Server) writtenTokens(req mcp.Request, list *mcp.ListToolsResult, cs *catalogState) int {
	out := *list
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && sessionlessEra(ss) {
		out.ResultType = "complete"
		out.Meta = mcp.Meta{mcp.MetaKeyServerInfo: s.impl}
		maps.Copy(out.Meta, list.Meta)
	}
	b, _ := marshalCompact(toolList(&listedCatalog{state: cs}, &out))
	return s.cfg.Counter.Count(string(b))
}

// serverLines say the first n of the catalog's servers, each on a line of
// its own with at most words of the words that tell its tools apart, and
// how many are left unsaid.
func serverLines(topics []toolsearch.Topic, words, n int) string {
	var b strings.Builder
	b.WriteString(" Servers:")
	for _, t := range topics[:n] {
		b.WriteString("\n" + t.Upstream)
		if words > 0 && len(t.Words) > 0 {
			b.WriteString(": " + strings.Join(t.Words[:min(words, len(t.Words))], " "))
		}
	}
	if n < len(topics) {
		fmt.Fprintf(&b, "\n(and %d more)", len(topics)-n)
	}
	return b.String()
}

// listed is the upstream tools tools/list offers of catalog c: all of
// them, or in search mode those always listed and the meta-tools.
func (s *Server) listed(c *upstream.Catalog) []*mcp.Tool {
	st, cs := s.searchFor(c), s.stateOf(c)
	var out []*mcp.Tool
	for _, t := range c.Tools {
		if !st.on || s.cfg.Gateway.AlwaysListed(t) {
			ad, _ := s.offered(cs, t)
			out = append(out, ad)
		}
	}
	if st.on {
		for _, t := range tools {
			if t.meta {
				out = append(out, t.definition(s))
			}
		}
	}
	return out
}

// searchTools answers the meta-tools in search mode: find_tools and
// describe_tools here, and call_tool by making it the call it names, so
// that every stage after this one (the token's tool filter, references,
// schema checks, folding, progress and cancellation) sees the same call
// as for a listed tool. A meta-tool is unknown where search mode is off.
func (s *Server) searchTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if s.cfg.Gateway == nil || method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		t := targetOf(ctx, call)
		if t.kind != targetMeta {
			return next(ctx, method, req)
		}
		catalog, _, _, err := t.catalog(ctx, s)
		if err != nil {
			return nil, err
		}
		st := s.searchFor(catalog)
		if !st.on {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", call.Params.Name)}
		}
		if _, err := s.caller(ctx); err != nil {
			return nil, err
		}
		// The meta-tool works on the catalog judged here, however the
		// gateway's changes meanwhile.
		ctx = context.WithValue(ctx, searchKey{}, searched{catalog, st})
		res, err := t.own.handler(s)(ctx, call)
		if res == nil && err == nil {
			// call_tool made the call the one it names, judged by
			// the same catalog.
			targetOf(ctx, call).judged(catalog)
			return next(ctx, method, req)
		}
		return res, err
	}
}

// searchKey is where searchTools leaves, in a meta-tool's context, the
// catalog it judged the call by and its search state (a searched).
type searchKey struct{}

// searched is a catalog in search mode, and its search state.
type searched struct {
	catalog *upstream.Catalog
	state   *searchState
}

// findTools answers find_tools (see found) over the catalog searchTools
// judged the call by.
func (s *Server) findTools(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.FindToolsArgs) (*mcp.CallToolResult, error) {
	sc := ctx.Value(searchKey{}).(searched)
	limit := wire.DefaultFound
	if a.Limit != nil {
		limit = *a.Limit
	}
	return textResult(s.found(sc.state, c, a.Query, limit)), nil
}

// describeTools answers describe_tools (see described) of the catalog
// searchTools judged the call by.
func (s *Server) describeTools(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.DescribeToolsArgs) (*mcp.CallToolResult, error) {
	return s.described(ctx.Value(searchKey{}).(searched).catalog, c, a.Names)
}

// callTool makes a call_tool the call of the tool it names, with its
// arguments (none is {}), and answers nothing: searchTools passes the
// call on.
func (s *Server) callTool(_ context.Context, req *mcp.CallToolRequest, _ *caller, a wire.CallToolArgs) (*mcp.CallToolResult, error) {
	if args := bytes.TrimSpace(a.Arguments); len(args) == 0 || string(args) == "null" {
		a.Arguments = json.RawMessage(`{}`)
	}
	req.Params.Name, req.Params.Arguments = a.Name, a.Arguments
	return nil, nil
}

// found is find_tools' answer: a line for each tool found that the caller
// may use, "name: its description's first sentence".
func (s *Server) found(st *searchState, c *caller, query string, limit int) string {
	var b strings.Builder
	n := 0
	// All that match: the caller may use few of them.
	for _, h := range st.index.Search(query, len(st.hidden)) {
		t := st.hidden[h.Doc]
		if !c.mayUse(t.Name) {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", t.Name, firstSentence(t.Def.Description))
		if n++; n == limit {
			break
		}
	}
	if n == 0 {
		return wire.Note("no tool matches: say the task in other words")
	}
	return b.String()
}

// described is describe_tools' answer: the tools' definitions as
// tools/list would give them, a JSON array; a name that is no tool the
// caller may use is an error naming it.
func (s *Server) described(catalog *upstream.Catalog, c *caller, names []string) (*mcp.CallToolResult, error) {
	b, cs := []byte{'['}, s.stateOf(catalog)
	for i, name := range names {
		t, ok := catalog.Lookup(name)
		if !ok || !c.mayUse(name) {
			return errorResult(toolerr.New(toolerr.CodeNotFound, "no tool %q: find_tools gives the names", name)), nil
		}
		if i > 0 {
			b = append(b, ',')
		}
		_, def := s.offered(cs, t)
		b = append(b, def...)
	}
	return textResult(string(append(b, ']'))), nil
}

// firstSentence is the start of a description, up to its first sentence
// and at most 160 characters, on one line.
func firstSentence(d string) string {
	d = strings.Join(strings.Fields(d), " ")
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	if r := []rune(d); len(r) > 160 {
		d = string(r[:159]) + "…"
	}
	return d
}
