package docsearch

import (
	"slices"
	"strings"
	"testing"
)

// TestUnitsOfSource: a Go file's passages are its package doc (under no
// heading) and its declarations' doc comments with their signatures,
// each under the declaration's heading; function bodies are none.
func TestUnitsOfSource(t *testing.T) {
	src := "// Package srv serves.\npackage srv\n\n" +
		"// Server answers requests.\ntype Server struct {\n\t// Addr is where it listens.\n\tAddr string\n}\n\n" +
		"// Close stops it.\nfunc (s *Server) Close() error {\n\treturn s.ln.Close()\n}\n"
	var got []string
	for _, u := range Units("srv.go", []byte(src)) {
		got = append(got, strings.Join(u.Headings, "/")+": "+strings.ReplaceAll(u.Text, "\n", " | "))
	}
	want := []string{
		": Package srv serves. | package srv | ",
		"type Server: Server answers requests. | type Server struct { | ",
		"type Server: Addr is where it listens. | Addr string | } | ",
		"func Server.Close: Close stops it. | func (s *Server) Close() error { | ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("units\n%q\nwant\n%q", got, want)
	}
}
