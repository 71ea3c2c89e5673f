package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
)

// docFile is one of the project's Markdown documents: README.md,
// CONTRIBUTING.md and docs/*.md.
type docFile struct {
	name string // relative to the module root: "README.md", "docs/tools.md"
	text string
}

// docFiles reads README.md, CONTRIBUTING.md and every docs/*.md, in that
// order; tests that hold the docs to folio read them all, wherever a
// topic now lives.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	names := []string{"README.md", "CONTRIBUTING.md"}
	more, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(more) == 0 {
		t.Fatal("no docs/*.md")
	}
	for _, m := range more {
		names = append(names, filepath.ToSlash(strings.TrimPrefix(m, filepath.Join("..", "..")+string(filepath.Separator))))
	}
	var out []docFile
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, docFile{n, string(b)})
	}
	return out
}

// readmeExample is an answer the docs (README.md, docs/*.md) show, after
// the comment that names the call that makes it:
//
//	<!-- answer: TOOL ARGS [| TOOL ARGS] -->
//
// followed by a fenced block or an inline code span. "answer tail:" says
// the example is the answer's last lines (a footer), not all of it;
// "answer _meta:" that it is the answer's _meta (folio's keys, in any
// order).
// A second call takes the handle of the first call's folded answer.
type readmeExample struct {
	file  string // the document, as docFile names it
	line  int    // of the comment in file
	calls []readmeCall
	part  string // "", "tail" or "_meta"
	text  string
}

type readmeCall struct {
	tool string
	args map[string]any
}

// minReadmeExamples is how many examples the docs mark, in all: one taken
// away unnoticed would no longer be held to anything.
const minReadmeExamples = 17

var answerComment = regexp.MustCompile(`<!-- answer(?: (tail|_meta))?: (.*?) -->`)

// readmeExamples parses the marked examples of readme, the text of the
// document named name.
func readmeExamples(name, readme string) ([]readmeExample, error) {
	var out []readmeExample
	for _, m := range answerComment.FindAllStringSubmatchIndex(readme, -1) {
		ex := readmeExample{file: name, line: 1 + strings.Count(readme[:m[0]], "\n")}
		if m[2] >= 0 {
			ex.part = readme[m[2]:m[3]]
		}
		for _, step := range strings.Split(readme[m[4]:m[5]], " | ") {
			tool, args, _ := strings.Cut(strings.TrimSpace(step), " ")
			c := readmeCall{tool: tool}
			if json.Unmarshal([]byte(args), &c.args) != nil || c.args == nil {
				return nil, fmt.Errorf("%s:%d: the call %q is not TOOL {ARGUMENTS}", name, ex.line, step)
			}
			ex.calls = append(ex.calls, c)
		}
		rest := readme[m[1]:]
		switch after := strings.TrimLeft(rest, " \t\n"); {
		case strings.HasPrefix(after, "```"):
			// A fenced block, dedented as deep as its fence.
			fence := len(readme) - len(after)
			indent := readme[strings.LastIndexByte(readme[:fence], '\n')+1 : fence]
			_, body, _ := strings.Cut(after, "\n")
			var lines []string
			for l := range strings.SplitSeq(body, "\n") {
				if strings.TrimSpace(l) == "```" {
					break
				}
				lines = append(lines, strings.TrimPrefix(l, indent))
			}
			ex.text = strings.Join(lines, "\n")
		case strings.HasPrefix(rest, "`"):
			span, _, ok := strings.Cut(rest[1:], "`")
			if !ok {
				return nil, fmt.Errorf("%s:%d: an inline example with no end", name, ex.line)
			}
			ex.text = span
		default:
			return nil, fmt.Errorf("%s:%d: no code follows the answer comment", name, ex.line)
		}
		out = append(out, ex)
	}
	return out, nil
}

// readmeFixture is the tree the docs' examples are answers about.
func readmeFixture(t *testing.T) string {
	dir := t.TempDir()
	var words strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&words, "Paragraph %d of a long guide, with words to page through.\n\n", i)
	}
	write(t, dir, "docs/large.md", words.String())
	write(t, dir, "docs/small.md", "# Small\n\nOne page.\n")
	write(t, dir, "docs/guide.md", "# Guide\n\nWhat folio is.\n\n## Installing folio\n\nWith Go:\n\n    go install github.com/folio-mcp/folio/cmd/folio@latest\n\n"+
		"### From source\n\nClone it and run `go build ./cmd/folio`.\n\n## Usage\n\nServe a directory: `folio serve --root docs`.\n")
	var log strings.Builder
	for i := range 48213 {
		fmt.Fprintf(&log, "event %d\n", i+1)
	}
	write(t, dir, "logs/app.log", log.String())
	write(t, dir, ".gitignore", "testdata/\n")
	var dial strings.Builder
	for range 468 {
		dial.WriteString("// The dialer.\n")
	}
	dial.WriteString("// For Unix networks, the address must be a file system path.\n" +
		"func Dial(network, address string) (Conn, error) {\n" +
		"\tvar d Dialer\n" +
		"\treturn d.Dial(network, address)\n}\n")
	write(t, dir, "net/dial.go", dial.String())
	write(t, dir, "net/http/server.go", "package http\n")
	write(t, dir, "net/http/testdata/a.txt", "x\n")
	for i := range 700 {
		write(t, dir, fmt.Sprintf("crypto/aes/a-file-with-a-rather-long-name-%05d.go", i), "package aes\n")
	}
	return dir
}

// TestReadmeAnswers holds every answer the docs (README.md,
// CONTRIBUTING.md, docs/*.md) show to the answer the real server makes
// for the call its comment names, on a fixture: the keys of JSON and
// their order, the types of values (digits, versions and URIs kept as
// such), and text line by line, with numbers, versions and handles as
// placeholders and "…" for what the example leaves out. An answer whose
// shape changes fails here until the docs say so.
func TestReadmeAnswers(t *testing.T) {
	t.Parallel()
	var examples []readmeExample
	for _, d := range docFiles(t) {
		exs, err := readmeExamples(d.name, d.text)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, exs...)
	}
	if len(examples) < minReadmeExamples {
		t.Fatalf("the docs mark %d answers, want at least %d", len(examples), minReadmeExamples)
	}
	cs := serveStdio(t, []string{readmeFixture(t)})
	for _, ex := range examples {
		var res *mcp.CallToolResult
		for i, c := range ex.calls {
			if i > 0 {
				m, _ := res.Meta["folio/result-handle"].(map[string]any)
				if m["handle"] == nil {
					t.Fatalf("%s:%d: %s did not fold, so %s has no handle: %.300s", ex.file, ex.line, ex.calls[i-1].tool, c.tool, mcptest.Text(res))
				}
				c.args["handle"] = m["handle"]
			}
			res = mcptest.Call(t, cs, c.tool, c.args)
		}
		got := mcptest.Text(res)
		if ex.part == "_meta" {
			// folio's keys: the SDK adds its own (serverInfo, in the
			// 2026-07-28 era).
			meta := mcp.Meta{}
			for k, v := range res.Meta {
				if strings.HasPrefix(k, "folio/") {
					meta[k] = v
				}
			}
			b, _ := json.Marshal(meta)
			got = string(b)
		}
		if err := matchAnswer(ex.text, got, ex.part); err != nil {
			t.Errorf("%s:%d: %v\nthe doc shows:\n%s\nthe server answers:\n%.3000s", ex.file, ex.line, err, ex.text, got)
		}
	}
}

// matchAnswer says how the answer got differs from the example, if it
// does; part "tail" compares the answer's last lines, "_meta" holds got
// to the example's keys in any order.
func matchAnswer(example, got, part string) error {
	if part == "_meta" {
		w, err := decodeOrdered([]byte(wildJSON(example)))
		if err != nil {
			return fmt.Errorf("the example is not JSON (… aside): %v", err)
		}
		g, err := decodeOrdered([]byte(got))
		if err != nil {
			return err
		}
		return matchShape("_meta", sortKeys(w), sortKeys(g))
	}
	want := strings.Split(strings.TrimSuffix(example, "\n"), "\n")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	switch {
	case part == "tail" && len(lines) >= len(want):
		lines = lines[len(lines)-len(want):]
	case len(lines) != len(want):
		return fmt.Errorf("%d lines, the example has %d", len(lines), len(want))
	}
	for i, w := range want {
		if err := matchLine(w, lines[i]); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}

// matchLine matches one line: a JSON object by its shape, text as a
// pattern.
func matchLine(want, got string) error {
	if strings.HasPrefix(want, "{") {
		w, err := decodeOrdered([]byte(wildJSON(want)))
		if err != nil {
			return fmt.Errorf("the example is not JSON (… aside): %v", err)
		}
		g, err := decodeOrdered([]byte(got))
		if err != nil {
			return fmt.Errorf("the answer is not JSON: %v", err)
		}
		return matchShape("$", w, g)
	}
	parts := strings.Split(placeholders(want), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	if !regexp.MustCompile(`^` + strings.Join(parts, `.*?`) + `$`).MatchString(placeholders(got)) {
		return fmt.Errorf("the text differs:\n  doc:    %s\n  answer: %s", want, got)
	}
	return nil
}

var (
	handleArg  = regexp.MustCompile(`"handle":"[A-Za-z0-9_-]+"`)
	versionHex = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	number     = regexp.MustCompile(`[0-9]+`)
)

// placeholders is text with its handles, versions and numbers made alike.
func placeholders(s string) string {
	s = handleArg.ReplaceAllString(s, `"handle":"H"`)
	s = versionHex.ReplaceAllString(s, "V")
	return number.ReplaceAllString(s, "0")
}

// wild is what "…" stands for where the example leaves out a value.
const wild = "\x00any"

// wildJSON makes an example's JSON parse: "{…}" and a bare "…" are any
// value, and ", …" before the end of a list or object is more of the
// same; "…" in a string is left to matchShape.
func wildJSON(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case strings.HasPrefix(s[i:], "{…}"):
			b.WriteString(`"\u0000any"`)
			i += len("{…}") - 1
		case strings.HasPrefix(s[i:], "…"):
			i += len("…") - 1
			next := strings.TrimLeft(s[i+1:], " ")
			if before := strings.TrimRight(b.String(), " "); strings.HasSuffix(before, ",") && next != "" && (next[0] == ']' || next[0] == '}') {
				b.Reset()
				b.WriteString(strings.TrimSuffix(before, ","))
				continue
			}
			b.WriteString(`"\u0000any"`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// object is a JSON object with its keys in order.
type object struct {
	keys []string
	vals []any
}

// sortKeys is v with its keys sorted, when it is an object (_meta's keys
// have no order).
func sortKeys(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	idx := make([]int, len(o.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(o.keys[a], o.keys[b]) })
	out := &object{}
	for _, i := range idx {
		out.keys, out.vals = append(out.keys, o.keys[i]), append(out.vals, o.vals[i])
	}
	return out
}

// decodeOrdered decodes one JSON value, keeping the order of keys.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, k.(string)), append(o.vals, v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		var a []any
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

var (
	digits = regexp.MustCompile(`^[0-9]+$`)
	hex32  = regexp.MustCompile(`^[0-9a-f]{32}$`)
	scheme = regexp.MustCompile(`^[a-z][a-z0-9+]*://`)
)

// matchShape says where got differs in shape from want: keys and their
// order, types, strings of digits, versions and URIs by scheme; each
// item of a list matches some item the example shows, and each item
// shown matches some item of the list.
func matchShape(at string, want, got any) error {
	if want == wild {
		return nil
	}
	switch w := want.(type) {
	case *object:
		g, ok := got.(*object)
		if !ok {
			return fmt.Errorf("%s: %s, the example has an object", at, typeName(got))
		}
		if strings.Join(w.keys, ",") != strings.Join(g.keys, ",") {
			return fmt.Errorf("%s: keys %q, the example has %q", at, g.keys, w.keys)
		}
		for i, k := range w.keys {
			if err := matchShape(at+"."+k, w.vals[i], g.vals[i]); err != nil {
				return err
			}
		}
	case []any:
		g, ok := got.([]any)
		switch {
		case !ok:
			return fmt.Errorf("%s: %s, the example has a list", at, typeName(got))
		case len(w) > 0 && len(g) == 0:
			return fmt.Errorf("%s: an empty list, the example has items", at)
		case len(w) == 0 && len(g) > 0:
			return fmt.Errorf("%s: a list of %d, the example's is empty", at, len(g))
		}
		for i, item := range g {
			if !slices.ContainsFunc(w, func(e any) bool { return matchShape(at, e, item) == nil }) {
				return fmt.Errorf("%s[%d]: like no item of the example: %v", at, i, matchShape(at+"[]", w[0], item))
			}
		}
		for _, e := range w {
			if !slices.ContainsFunc(g, func(item any) bool { return matchShape(at, e, item) == nil }) {
				return fmt.Errorf("%s: no item is like the example's %s", at, typeName(e))
			}
		}
	case string:
		g, ok := got.(string)
		if !ok {
			return fmt.Errorf("%s: %s, the example has a string", at, typeName(got))
		}
		shown := strings.ReplaceAll(w, "…", "")
		switch {
		case shown != "" && digits.MatchString(shown) && !digits.MatchString(g):
			return fmt.Errorf("%s: %q, the example has digits", at, g)
		case hex32.MatchString(shown) && !hex32.MatchString(g):
			return fmt.Errorf("%s: %q, the example has a version", at, g)
		case scheme.FindString(shown) != scheme.FindString(g):
			return fmt.Errorf("%s: %q, the example has a %s URI", at, g, scheme.FindString(shown))
		}
	default:
		if typeName(want) != typeName(got) {
			return fmt.Errorf("%s: %s, the example has %s", at, typeName(got), typeName(want))
		}
	}
	return nil
}

func typeName(v any) string {
	switch v.(type) {
	case *object:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// TestReadmeAnswersCatchAChange: the matching the test above relies on
// fails on the changes it is there to catch.
func TestReadmeAnswersCatchAChange(t *testing.T) {
	t.Parallel()
	page := `{"uri":"file:///d/a.md","content":"abc","version":"0123456789abcdef0123456789abcdef","has_more":true,"next_cursor":"12345"}`
	for _, tc := range []struct {
		example, got string
		part         string
		ok           bool
	}{
		{`{"uri":"file:///srv/a.md","content":"…","version":"af1349b9f5f9a1a6a0404dea36dcc949","has_more":true,"next_cursor":"2961457…"}`, page, "", true},
		{`{"uri":"file:///srv/a.md","content":"…","has_more":true,"version":"af1349b9f5f9a1a6a0404dea36dcc949","next_cursor":"2961457…"}`, page, "", false},
		{`{"uri":"file:///srv/a.md","content":"…","version":"af1349b9f5f9a1a6a0404dea36dcc949","has_more":true,"next_cursor":"2961457…"}`, strings.Replace(page, `"12345"`, `"Ab_c"`, 1), "", false},
		{`{"uri":"file:///srv/a.md","content":"…","version":"af1349b9f5f9a1a6a0404dea36dcc949","has_more":true,"next_cursor":"2961457…"}`, strings.Replace(page, `"12345"`, `null`, 1), "", false},
		{`{"a":{…},"b":[{"x":1}, …],"c":…}`, `{"a":[1],"b":[{"x":2},{"x":3}],"c":"s"}`, "", true},
		{`{"a":{…},"b":[{"x":1}, …],"c":…}`, `{"a":[1],"b":[{"x":2},{"y":3}],"c":"s"}`, "", false},
		{"[folio] next_cursor=2961457…", "text\n[folio] next_cursor=99", "tail", true},
		{"[folio] next_cursor=2961457…", "text\n[folio] next=99", "tail", false},
		{"net/a.go\n1:x", "net/a.go\n7:x\n", "", true},
		{"net/a.go\n1:x", "net/a.go\n7-x\n", "", false},
		{"net/a.go\n1:x", "net/a.go\n7:x\n[folio] more\n", "", false},
		{`{"folio/tokens":497,"folio/tokenizer":"o200k_base"}`, `{"folio/tokenizer":"o200k_base","folio/tokens":12}`, "_meta", true},
		{`{"folio/tokens":497,"folio/tokenizer":"o200k_base"}`, `{"folio/tokenizer":"o200k_base","folio/tokens":12,"folio/uri":"file:///a"}`, "_meta", false},
	} {
		if err := matchAnswer(tc.example, tc.got, tc.part); (err == nil) != tc.ok {
			t.Errorf("%s against %s: %v, want a match %v", tc.example, tc.got, err, tc.ok)
		}
	}
	// The comments: a fenced block dedented, an inline span, a chain of
	// calls; a call that is not one, or a comment with no code after it,
	// is an error naming its line.
	exs, err := readmeExamples("README.md", "  <!-- answer tail: read {\"path\":\"a\"} | result_query {} -->\n  ```\n  [folio] x\n  ```\nand <!-- answer: list {} -->`{\"y\":1}`\n")
	if err != nil || len(exs) != 2 || exs[0].text != "[folio] x" || exs[0].part != "tail" || len(exs[0].calls) != 2 || exs[1].text != `{"y":1}` || exs[1].part != "" {
		t.Errorf("examples %+v, %v", exs, err)
	}
	for _, bad := range []string{"x\n<!-- answer: read -->`y`", "x\n<!-- answer: read {} -->\n\nno code"} {
		if _, err := readmeExamples("docs/x.md", bad); err == nil || !strings.Contains(err.Error(), "docs/x.md:2") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
