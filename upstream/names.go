package upstream

import (
	"fmt"
	"regexp"
	"strings"
)

// toolName is a tool name under MCP's rules: 1 to 64 of A-Za-z0-9_.-.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// ToolName is the name folio offers an upstream's tool by: the server's
// name, "__", and the tool's name with every character MCP does not allow
// in a name replaced by "_". Always prefixed, so that a server's tools
// keep their names whatever other servers offer. A name that cannot be
// made valid (empty, or over 64 characters) is an error.
func ToolName(server, tool string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		if r < 0x80 && toolName.MatchString(string(r)) {
			return r
		}
		return '_'
	}, tool)
	name := server + "__" + clean
	if tool == "" || !toolName.MatchString(name) {
		return "", fmt.Errorf("%w: server %q, tool %q: %q is not a valid MCP tool name (1 to 64 of A-Za-z0-9_.-)", ErrConfig, server, tool, name)
	}
	return name, nil
}

// ToolNames gives the names folio offers the tools of one server by, keyed
// by the offered name, with the upstream's own name as the value. Two
// tools whose names become the same are an error naming both.
func ToolNames(server string, tools []string) (map[string]string, error) {
	out := make(map[string]string, len(tools))
	for _, t := range tools {
		name, err := ToolName(server, t)
		if err != nil {
			return nil, err
		}
		if other, ok := out[name]; ok {
			return nil, fmt.Errorf("%w: server %q: tools %q and %q would both be offered as %q", ErrConfig, server, other, t, name)
		}
		out[name] = t
	}
	return out, nil
}
