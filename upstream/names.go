package upstream

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// toolName is a tool name under MCP's rules: 1 to 64 of A-Za-z0-9_.-.
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })

// Separator parts an upstream's name from its tool's in the names folio
// offers: no tool of folio's own has it.
const Separator = "__"

// ToolName is the name folio offers an upstream's tool by: the server's
// name, Separator, and the tool's name with every character MCP does not allow
// in a name replaced by "_". Always prefixed, so that a server's tools
// keep their names whatever other servers offer (CheckNames makes the
// prefixes unambiguous). A name that cannot be made valid (empty, or over
// 64 characters) is an error.
func ToolName(server, tool string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		if r < 0x80 && toolName().MatchString(string(r)) {
			return r
		}
		return '_'
	}, tool)
	name := server + Separator + clean
	if tool == "" || !toolName().MatchString(name) {
		return "", fmt.Errorf("%w: server %q, tool %s: %s is not a valid MCP tool name (1 to 64 of A-Za-z0-9_.-): it is not offered", ErrConfig, server, quote(tool), quote(name))
	}
	return name, nil
}

// ToolNames gives the names folio offers the tools of one server by, keyed
// by the offered name, with the upstream's own name as the value. A tool
// whose name cannot be made valid is left out, and so is every tool of a
// group whose names would be offered alike (none of them comes first):
// each is an error of the second result, naming the tools.
func ToolNames(server string, tools []string) (map[string]string, []error) {
	var errs []error
	var order []string
	alike := map[string][]string{}
	for _, t := range tools {
		name, err := ToolName(server, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if alike[name] == nil {
			order = append(order, name)
		}
		alike[name] = append(alike[name], t)
	}
	out := make(map[string]string, len(order))
	for _, name := range order {
		own := alike[name]
		if len(own) > 1 {
			errs = append(errs, fmt.Errorf("%w: server %q: tools %s would all be offered as %q: none of them is offered", ErrConfig, server, quoteList(own), name))
			continue
		}
		out[name] = own[0]
	}
	return out, errs
}

// CheckNames refuses servers whose tools could be offered by the same
// name. SERVER__tool names one tool of one server unless a server's name
// is another's followed by "_" (e's _x and e_'s x are both e___x), or by
// "__" and more (e's t__x and e__t's x are both e__t__x): such a pair is
// an error naming both, so that the names folio offers map to upstreams
// one to one.
func CheckNames(servers []Server) error {
	for _, a := range servers {
		for _, b := range servers {
			var ours, theirs string
			switch {
			case b.Name == a.Name+"_":
				ours, theirs = "_x", "x"
			case strings.HasPrefix(b.Name, a.Name+Separator):
				ours, theirs = b.Name[len(a.Name)+2:]+"__x", "x"
			default:
				continue
			}
			return fmt.Errorf("%w: servers %q and %q could offer tools by the same name (%s's %s and %s's %s would both be %s__x): rename one", ErrConfig, a.Name, b.Name, a.Name, ours, b.Name, theirs, b.Name)
		}
	}
	return nil
}

// quote is s quoted for a message, cut short when long.
func quote(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return strconv.Quote(s)
}

// quoteList is "a" and "b", or "a", "b" and "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
