package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestNote(t *testing.T) {
	for text, want := range map[string]string{
		"end":         "[folio] end\n",
		"no headings": "[folio] no headings\n",
		"":            "[folio] \n",
	} {
		if got := Note(text); got != want {
			t.Errorf("Note(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestNotePrefixHasOneHome: no string of the module's non-test Go files
// but NotePrefix writes a note by hand, that is starts one ("[folio] …")
// or ends a line before one ("…\n[folio] …"): notes are written with
// NotePrefix or Note, so that every answer's notes start alike. (A
// description that speaks of "a [folio] line" writes none.)
func TestNotePrefixHasOneHome(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == filepath.Join(root, "wire", "note.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && (strings.HasPrefix(s, NotePrefix) || strings.Contains(s, "\n"+NotePrefix)) {
				t.Errorf("%s: %s writes a note by hand: use wire.NotePrefix or wire.Note", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files under %s: is it the module's root?", files, root)
	}
}
