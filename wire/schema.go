package wire

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// ReadSchema is read's input schema: formats are the names of the page
// formats the server writes, defaultFormat the one of a read that names
// none.
func ReadSchema(formats []string, defaultFormat string) json.RawMessage {
	return derive[ReadArgs](map[string]func(*jsonschema.Schema){
		"path":       describe(PathForms),
		"limit":      atLeast(1),
		"max_tokens": between(1, MaxTokensLimit),
		"line":       atLeast(1),
		"format": func(s *jsonschema.Schema) {
			s.Enum = nil
			for _, name := range formats {
				s.Enum = append(s.Enum, name)
			}
			s.Description = "page format, default " + defaultFormat
		},
	})
}

// ListSchema is list's input schema.
func ListSchema() json.RawMessage {
	return derive[ListArgs](map[string]func(*jsonschema.Schema){
		"path":      describe("directory"),
		"max_depth": atLeast(0),
		"max_entries": func(s *jsonschema.Schema) {
			between(1, MaxEntriesLimit)(s)
			s.Description = fmt.Sprintf("default and most %d", MaxEntriesLimit)
		},
	})
}

// GrepSchema is grep's input schema.
func GrepSchema() json.RawMessage {
	return derive[GrepArgs](map[string]func(*jsonschema.Schema){
		"path":    describe("file or directory, default the first root"),
		"context": between(0, MaxContext),
		"max_matches": func(s *jsonschema.Schema) {
			between(1, MaxMatchesLimit)(s)
			s.Description = fmt.Sprintf("default %d", DefaultMaxMatches)
		},
	})
}

// ResultQuerySchema is result_query's input schema.
func ResultQuerySchema() json.RawMessage {
	return derive[ResultQueryArgs](map[string]func(*jsonschema.Schema){
		"offset":     atLeast(0),
		"limit":      atLeast(1),
		"page":       atLeast(1),
		"max_tokens": atLeast(1),
	})
}

// FindToolsSchema is find_tools' input schema.
func FindToolsSchema() json.RawMessage {
	return derive[FindToolsArgs](map[string]func(*jsonschema.Schema){"limit": between(1, MaxFound)})
}

// DescribeToolsSchema is describe_tools' input schema.
func DescribeToolsSchema() json.RawMessage {
	return derive[DescribeToolsArgs](map[string]func(*jsonschema.Schema){
		"names": func(s *jsonschema.Schema) {
			least, most := 1, MaxFound
			s.MinItems, s.MaxItems = &least, &most
		},
	})
}

// CallToolSchema is call_tool's input schema: its arguments are the
// upstream tool's, any object.
func CallToolSchema() json.RawMessage {
	return derive[CallToolArgs](map[string]func(*jsonschema.Schema){
		"arguments": func(s *jsonschema.Schema) { *s = jsonschema.Schema{Type: "object"} },
	})
}

// derive is the schema of the arguments T (see jsonschema.For: a property
// for each field, described by its jsonschema tag, required unless
// omitempty), each property shaped further by its entry in bounds. An
// absent argument is left out, never null: a pointer's property takes
// only its value's type. Arguments that take former names (see Renamed)
// do not offer them. No schema says "no other properties": a tool that
// takes a former name must let a client that checks calls against its
// schema send it, and the server refuses a name it does not know itself,
// saying which (so the words would buy nothing, in every tools/list).
func derive[T any](bounds map[string]func(*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types are this package's own
	}
	s.AdditionalProperties = nil
	if _, ok := any(new(T)).(Renamed); ok {
		for _, former := range []string{FormerPathName, FormerPathsName} {
			delete(s.Properties, former)
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(name string) bool { return name == former })
		}
	}
	for name, p := range s.Properties {
		if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 {
			p.Type, p.Types = p.Types[1-i], nil
		}
		if shape, ok := bounds[name]; ok {
			shape(p)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// describe gives a property its description. A path argument names the
// forms it takes (PathForms) in read's schema alone: the others take the
// same, as list's answers and pages name files, and the words would cost
// each tools/list four times over.
func describe(text string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) { s.Description = text }
}

func atLeast(n float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) { s.Minimum = &n }
}

func between(lo, hi float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) { s.Minimum, s.Maximum = &lo, &hi }
}
