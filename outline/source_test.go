package outline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sourceCase is a source file and what its outline must be: its title,
// its sections' titles ("#" a level), and some of its blocks, each by its
// first line: its kind and the start of its text.
type sourceCase struct {
	name, src, title string
	sections         []string
	blocks           map[int]string
}

// check reads c's file through Of and holds it to c.
func (c sourceCase) check(t *testing.T) {
	t.Helper()
	d := Of(c.name, []byte(c.src))
	checkShape(t, []byte(c.src), d)
	if d.Title != c.title {
		t.Errorf("title %q, want %q", d.Title, c.title)
	}
	if _, titles := blocksOf(d); !slices.Equal(titles, c.sections) {
		t.Errorf("sections\n%q\nwant\n%q", titles, c.sections)
	}
	seen := map[int]bool{}
	for _, b := range d.Blocks {
		want, ok := c.blocks[b.First]
		if !ok {
			continue
		}
		seen[b.First] = true
		if got := b.Kind.String() + " " + b.Text; !strings.HasPrefix(got, want) {
			t.Errorf("block at line %d: %q, want it to start %q", b.First, got, want)
		}
	}
	for line := range c.blocks {
		if !seen[line] {
			t.Errorf("no block starts at line %d", line)
		}
	}
}

const sampleGo = "// Copyright 2024 The Example Authors. All rights reserved.\n" + // 1
	"\n" +
	"//go:build linux && !race\n" + // 3
	"\n" +
	"// Package shapes draws shapes.\n" + // 5
	"//\n" +
	"// It knows circles and squares.\n" +
	"package shapes\n" +
	"\n" +
	"import (\n" + // 10
	"\t\"fmt\"\n" +
	")\n" +
	"\n" +
	"// The kinds of shapes.\n" + // 14
	"const (\n" +
	"\t// Circle is round.\n" + // 16
	"\tCircle Kind = iota\n" +
	"\tSquare\n" +
	"\tTriangle\n" +
	"\tHexagon\n" +
	")\n" +
	"\n" +
	"// Kind is a kind of shape.\n" + // 23
	"type Kind int\n" +
	"\n" +
	"// A Shape has an area.\n" + // 26
	"type Shape interface {\n" +
	"\t// Area is the shape's area.\n" + // 28
	"\tArea() float64\n" +
	"}\n" +
	"\n" +
	"// String names the kind.\n" + // 32
	"func (k Kind) String() string {\n" +
	"\treturn [...]string{\"circle\", \"square\"}[k]\n" + // 34
	"}\n" +
	"\n" +
	"// Stack is a stack of T.\n" + // 37
	"type Stack[T any] struct {\n" +
	"\titems []T // the items, the top last\n" + // 39
	"}\n" +
	"\n" +
	"// Push puts v on top.\n" + // 42
	"func (s *Stack[T]) Push(v T) {\n" +
	"\ts.items = append(s.items, v)\n" +
	"}\n" +
	"\n" +
	"// Map applies f to each of xs.\n" + // 47
	"func Map[T, U any](\n" +
	"\txs []T,\n" +
	"\tf func(T) U,\n" +
	") []U {\n" +
	"\treturn nil\n" + // 52
	"}\n" +
	"\n" +
	"const sample = `\n" + // 55
	"func NotADeclaration() {\n" +
	"`\n"

// TestSourceGo reads a Go file: its package doc (the license and the
// build constraint Meta), a group of constants, types, methods (named by
// their receiver, generic or not), a generic function whose signature
// spans lines, and a raw string holding what looks like a declaration.
func TestSourceGo(t *testing.T) {
	sourceCase{
		name:  "shapes.go",
		src:   sampleGo,
		title: "Package shapes draws shapes.",
		sections: []string{"#const Circle, Square, Triangle, …", "#type Kind", "#type Shape", "#func Kind.String",
			"#type Stack", "#func Stack.Push", "#func Map", "#const sample"},
		blocks: map[int]string{
			1:  "meta ",
			3:  "meta ",
			5:  "paragraph Package shapes draws shapes.\nIt knows circles and squares.\npackage shapes\n",
			10: "meta ",
			14: "paragraph The kinds of shapes.\nconst (\n",
			16: "paragraph Circle is round.\nCircle Kind = iota\nSquare\nTriangle\nHexagon\n)\n",
			26: "paragraph A Shape has an area.\ntype Shape interface {\n",
			28: "paragraph Area is the shape's area.\nArea() float64\n}\n",
			32: "paragraph String names the kind.\nfunc (k Kind) String() string {\n",
			34: "meta ",
			39: "paragraph items []T // the items, the top last\n}\n",
			47: "paragraph Map applies f to each of xs.\nfunc Map[T, U any](\nxs []T,\nf func(T) U,\n) []U {\n",
			52: "meta ",
			55: "code const sample = `\n",
		},
	}.check(t)
}

// TestSourceGoBroken reads a Go file that does not compile: a brace
// never closed, a declaration cut short at the end. The declarations
// at the margin after the unclosed brace are still found.
func TestSourceGoBroken(t *testing.T) {
	src := "package broken\n" +
		"\n" +
		"// Open opens it.\n" + // 3
		"func Open(name string) (*File, error) {\n" +
		"\tif name == \"\" {\n" +
		"\t\treturn nil, errEmpty\n" +
		"\n" +
		"// Close closes it.\n" + // 8
		"func Close() error {\n" +
		"\treturn nil\n" +
		"}\n" +
		"\n" +
		"type T struct { x int\n" + // 13
		"var s = \"unterminated\n" +
		"func (\n"
	sourceCase{
		name:     "broken.go",
		src:      src,
		sections: []string{"#func Open", "#func Close", "#type T", "#var s", "#func"},
		blocks: map[int]string{
			1:  "paragraph package broken\n",
			3:  "paragraph Open opens it.\n",
			8:  "paragraph Close closes it.\nfunc Close() error {\n",
			13: "code type T struct { x int\n",
		},
	}.check(t)
}

// readSample is a file of testdata/outline.
func readSample(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "outline", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestSourcePython reads a Python module: its docstring the title (the
// shebang and license above it Meta), a documented constant, a class
// with its docstring, an attribute and methods (decorated, one decorator
// over lines), each method's docstring with its signature, and a string
// holding what looks like a function.
func TestSourcePython(t *testing.T) {
	sourceCase{
		name:     "resize.py",
		src:      readSample(t, "resize.py"),
		title:    "Tools to resize images.",
		sections: []string{"#MAX_SIDE", "#class Resizer", "##def __init__", "##def box", "##def parse", "#def resize"},
		blocks: map[int]string{
			1:  "meta ",
			3:  "paragraph Tools to resize images.\nReads PNG and JPEG.\n",
			8:  "meta ",
			11: "paragraph The largest side, in pixels.\nMAX_SIDE = 4096\n",
			15: "paragraph Resizes images to fit a box.\nclass Resizer(Base):\n",
			18: "code quality = 90\n",
			20: "paragraph Makes a resizer for a box of width by height.\ndef __init__(self, width: int, height: int):\n",
			22: "meta ",
			24: "code @property\ndef box(self) -> tuple:\n",
			29: "paragraph Reads \"WxH\".\n@staticmethod\n@cache(\nsize=10,\n)\ndef parse(spec: str) -> \"Resizer\":\n",
			39: "paragraph Resize the image at path.\nArgs:\npath: where the image is.\nasync def resize(path, box=None):\n",
			45: "meta ",
			52: "code if __name__ == \"__main__\":\n",
		},
	}.check(t)
}

// TestSourceTypeScript reads a TypeScript file: a JSDoc @file comment the
// title, imports (and require) Meta, an interface's documented members,
// a class's field, constructor and methods with their JSDoc (a regular
// expression and a template literal with quotes in a body), a generic
// function, an arrow function and a type alias.
func TestSourceTypeScript(t *testing.T) {
	sourceCase{
		name:  "client.ts",
		src:   readSample(t, "client.ts"),
		title: "HTTP client helpers for the example service.",
		sections: []string{"#const DEFAULT_TIMEOUT", "#interface ClientOptions", "#class Client", "##method constructor",
			"##method get", "##method close", "#function makeClient", "#const handler", "#type Mode"},
		blocks: map[int]string{
			5:  "meta ",
			6:  "meta ",
			8:  "paragraph The default timeout of a request, in milliseconds.\nexport const DEFAULT_TIMEOUT = 30_000;\n",
			15: "paragraph Base URL every request is resolved against.\nbaseUrl: string;\n",
			21: "paragraph A client of the service.\n@example\nconst c = new Client({ baseUrl: \"https://x.test\" });\nexport class Client {\n",
			28: "code private agent",
			32: "paragraph Fetches a resource.\n@param url - where it is, relative to the base URL\n@returns the body as text\nasync get(url: string): Promise<string> {\n",
			38: "meta ",
			42: "paragraph Closes the client's connections.\nclose(): void {\n",
			48: "paragraph Makes a client with the default options.\nexport function makeClient<T extends ClientOptions>(opts: T): Client {\n",
			56: "meta ",
		},
	}.check(t)
}

// TestSourceRust reads a Rust file: its //! doc the title, uses Meta, ///
// docs with attributes, a struct's documented fields (lifetimes are not
// characters), impls named for what they implement, an enum's variants,
// a where clause, a raw string with braces in a body, and a test module.
func TestSourceRust(t *testing.T) {
	sourceCase{
		name:  "config.rs",
		src:   readSample(t, "config.rs"),
		title: "Parsing of configuration files.",
		sections: []string{"#const MAX_SIZE", "#struct Config", "#impl Config<'a>", "##fn parse", "##fn get",
			"#impl fmt::Display for Config<'_>", "##fn fmt", "#enum Error", "#fn read", "#mod tests", "##fn parses"},
		blocks: map[int]string{
			1:  "paragraph Parsing of configuration files.\nThe format is TOML-like.\n",
			5:  "meta ",
			11: "paragraph A parsed configuration.\n#[derive(Debug, Clone)]\npub struct Config<'a> {\n",
			14: "paragraph The name of the service.\npub name: &'a str,\n",
			21: "paragraph Parses a configuration from text.\n# Errors\nWhen a line is not `key = value`.\npub fn parse",
			26: "meta ",
			31: "paragraph Looks a setting up.\n",
			45: "paragraph A line that is not a setting.\nBadLine(usize),\n",
			51: "paragraph Reads a file's settings.\npub fn read<P>(path: P) -> Result<String, Error>\nwhere\nP: AsRef<std::path::Path>,\n{\n",
			63: "code #[test]\nfn parses() {\n",
		},
	}.check(t)
}

// FuzzSource: whatever the bytes, the reader of each family of languages
// keeps the structure's shape (see checkShape).
func FuzzSource(f *testing.F) {
	f.Add([]byte(sampleGo))
	for _, name := range []string{"resize.py", "client.ts", "config.rs"} {
		src, err := os.ReadFile(filepath.Join("..", "testdata", "outline", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("class A {\n  class B {\n    def f():\n      '''x\n}\n/* a\n*/ b <<EOF\nr#\"\n"))
	f.Add([]byte("static int\nf(void)\n{\n}\n#define X 1\ntypedef struct {\n} T;\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, ext := range []string{".go", ".c", ".ts", ".rs", ".kt", ".py", ".sh", ".rb", ".yaml"} {
			checkShape(t, src, Source(ext, src))
		}
	})
}

// TestSourceGoCorpus reads net/http's Go files from the Go distribution
// (skipped without it): each keeps its shape, and has a section for each
// line gofmt starts a declaration with ("func", "type", "var", "const"
// at the margin), and no other.
func TestSourceGoCorpus(t *testing.T) {
	globs := goHTTP()
	if len(globs) == 0 {
		t.Skip("no Go distribution")
	}
	files, _ := filepath.Glob(globs[0])
	if len(files) < 20 {
		t.Skipf("%d files of net/http", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := Of(f, src)
		checkShape(t, src, d)
		want := 0
		for _, l := range strings.Split(string(src), "\n") {
			for _, kw := range []string{"func ", "type ", "var ", "const "} {
				if strings.HasPrefix(l, kw) {
					want++
				}
			}
		}
		if len(d.Sections) != want {
			t.Errorf("%s: %d sections, %d declarations", f, len(d.Sections), want)
		}
	}
}
