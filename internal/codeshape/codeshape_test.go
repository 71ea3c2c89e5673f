// Package codeshape holds the tree to its shape: no function of folio's
// code (tests aside) is over 20 in cyclomatic complexity or 80 lines
// long, so that each can be read at once.
package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The bounds of a function.
const (
	maxComplexity = 20
	maxLines      = 80
)

// TestFunctionShape: every function and method of the module's non-test
// Go files (the programs under bench and the test servers under internal
// included) is within maxComplexity, counted as gocyclo counts (1, and 1
// for each if, for, range, case and select case that is not default, &&
// and ||), and within maxLines, from its func line to its closing brace.
func TestFunctionShape(t *testing.T) {
	root := filepath.Join("..", "..")
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = receiver(fn.Recv.List[0].Type) + "." + name
			}
			if c := complexity(fn); c > maxComplexity {
				t.Errorf("%s: %s has cyclomatic complexity %d, over %d: split it", fset.Position(fn.Pos()), name, c, maxComplexity)
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxLines {
				t.Errorf("%s: %s is %d lines, over %d: split it", fset.Position(fn.Pos()), name, n, maxLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files under %s: is it the module's root?", files, root)
	}
}

// receiver is the name of a method's receiver type.
func receiver(e ast.Expr) string {
	switch r := e.(type) {
	case *ast.StarExpr:
		return "*" + receiver(r.X)
	case *ast.IndexExpr:
		return receiver(r.X)
	case *ast.IndexListExpr:
		return receiver(r.X)
	case *ast.Ident:
		return r.Name
	}
	return "?"
}

// complexity is fn's cyclomatic complexity as gocyclo counts it; the
// bodies of function literals count toward the function they are in.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// TestComplexityCounts holds complexity to gocyclo's counts of a few
// shapes, so that the bound means what gocyclo's would.
func TestComplexityCounts(t *testing.T) {
	for src, want := range map[string]int{
		`func f() {}`: 1,
		`func f(a, b bool) { if a && b || a {} }`:                                        4,
		`func f(x int) { switch x { case 1, 2: case 3: default: } }`:                     3,
		`func f(c chan int) { for { select { case <-c: default: } } }`:                   3,
		`func f(s []int) { for range s { g := func() { if true {} }; g() } }`:            3,
		`func f(x any) { switch x.(type) { case int: case string: }; for i := 0; ; {} }`: 4,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := complexity(f.Decls[0].(*ast.FuncDecl)); got != want {
			t.Errorf("%s: %d, want %d", src, got, want)
		}
	}
}
