package outline

import (
	"strings"
)

// Source reads the structure of a source file in the language its
// extension ext names (".go", ".py"; Of lists them), as plain text for
// any other: each declaration (a function, a method, a type or class, a
// constant or variable, a group of them) one block of its doc comment
// and its signature, and one section, titled as it is declared ("func
// Parse", "func Server.Close", "class Server"); declarations inside a
// class or the like are sections inside its section. The file's doc
// (Go's package doc comment, Python's module docstring, a comment before
// any declaration) is a block before any section, and its first
// sentence the title.
//
// Function bodies are Meta: what answers "what does X do" is the doc
// comment and the signature, and a body's identifiers (err, ctx, i)
// would only crowd out the docs' words in a search. The bodies of types
// and values (struct fields, enum members, a table's entries) are read,
// to each blank line, as blocks of their comments and code, since they
// are what a type or a setting is. Imports, license headers and
// directives are Meta.
//
// The reading is by lines, as the file's lexical syntax (comments,
// strings that span lines) and its indentation and brackets show, so a
// file that does not compile is read as well as one that does.
func Source(ext string, src []byte) *Doc {
	syn := languages[strings.ToLower(ext)]
	if syn == nil {
		return Text(src)
	}
	p := &srcParser{builder: builder{src: src, lines: splitLines(src)}, syn: syn, s: string(src)}
	lx := lexer{syn: syn}
	p.ls = make([]srcLine, len(p.lines))
	for i := range p.lines {
		p.ls[i] = lx.scan(p.raw(i))
	}
	p.items(0, len(p.lines), 1)
	return p.doc()
}

// The languages' syntaxes.
var (
	goSyntax   = &syntax{line: "//", block: true, quotes: `"'`, spans: "`", rawTick: true, family: goFamily}
	cSyntax    = &syntax{line: "//", block: true, quotes: `"'`, family: cFamily}
	jsSyntax   = &syntax{line: "//", block: true, quotes: `"'`, spans: "`", regex: true, family: keywordFamily}
	rustSyntax = &syntax{line: "//", block: true, spans: `"`, lifetimes: true, rawStrings: true, family: keywordFamily}
	ktSyntax   = &syntax{line: "//", block: true, quotes: `"'`, triple: `"`, family: keywordFamily}
	pySyntax   = &syntax{line: "#", quotes: `"'`, triple: `"'`, family: pyFamily}
	shSyntax   = &syntax{line: "#", hashWord: true, quotes: `"'`, heredoc: true, family: hashFamily}
	rbSyntax   = &syntax{line: "#", quotes: `"'`, heredoc: true, family: hashFamily}
	yamlSyntax = &syntax{line: "#", hashWord: true, quotes: `"'`, family: yamlFamily}
)

// languages are the syntaxes by the extensions that name them.
var languages = map[string]*syntax{
	".go": goSyntax,
	".c":  cSyntax, ".h": cSyntax, ".cc": cSyntax, ".cpp": cSyntax, ".cxx": cSyntax, ".hpp": cSyntax, ".hh": cSyntax, ".hxx": cSyntax,
	".java": cSyntax, ".cs": cSyntax,
	".js": jsSyntax, ".jsx": jsSyntax, ".mjs": jsSyntax, ".cjs": jsSyntax, ".ts": jsSyntax, ".tsx": jsSyntax, ".mts": jsSyntax, ".cts": jsSyntax,
	".rs": rustSyntax, ".swift": ktSyntax, ".kt": ktSyntax, ".kts": ktSyntax,
	".py": pySyntax, ".pyi": pySyntax,
	".sh": shSyntax, ".bash": shSyntax, ".zsh": shSyntax, ".rb": rbSyntax,
	".yaml": yamlSyntax, ".yml": yamlSyntax,
}

// srcParser reads a source file a declaration at a time.
type srcParser struct {
	builder
	syn *syntax
	s   string // the file
	ls  []srcLine
	// decls is how many declarations have been read: a comment before the
	// first may be the file's doc, or its license.
	decls int
}

// raw is line i's text.
func (p *srcParser) raw(i int) string {
	l := p.lines[i]
	return strings.TrimSuffix(p.s[l.start:l.end], "\r")
}

// head is line i's text without its leading and trailing space.
func (p *srcParser) head(i int) string { return strings.TrimSpace(p.raw(i)) }

// items reads the declarations and statements of lines [i, to), sections
// at level.
func (p *srcParser) items(i, to, level int) {
	for i < to {
		if p.ls[i].blank {
			i++
			continue
		}
		i = p.item(i, to, level)
	}
}

// item reads what starts at line i: a declaration or a statement with the
// comments and attributes above it, or a comment that none follows; and
// returns the line after it.
func (p *srcParser) item(i, to, level int) int {
	j := i
	for j < to && !p.ls[j].blank {
		if !p.ls[j].code {
			j++
		} else if p.attribute(j) {
			j = p.bracketed(j, to)
		} else {
			break
		}
	}
	if j == to || p.ls[j].blank {
		p.standalone(i, j)
		return j
	}
	d := p.classify(j, level)
	end := p.extent(j, to, d.kind == container)
	if d.kind == imports {
		p.standalone(i, j)
		p.add(Meta, j, end, "")
		return end
	}
	p.retitle(&d, j, end)
	p.declare(i, j, end, level, d)
	return end
}

// attribute reports whether line i is an attribute, an annotation or a
// decorator of the declaration below it ("@Override", "#[derive(Debug)]",
// "[Serializable]", "template <class T>").
func (p *srcParser) attribute(i int) bool {
	h := p.head(i)
	switch p.syn.family {
	case goFamily, hashFamily, yamlFamily:
		return false
	case cFamily:
		if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") || strings.HasPrefix(h, "template") && len(h) > 8 && (h[8] == '<' || h[8] == ' ') && p.ls[i].last == '>' {
			return true
		}
	}
	return len(h) > 1 && h[0] == '@' && isWord(h[1]) || strings.HasPrefix(h, "#[") || strings.HasPrefix(h, "#![")
}

// bracketed is the line after the one where the brackets opened on line i
// close.
func (p *srcParser) bracketed(i, to int) int {
	depth := p.ls[i].depth
	for i++; i < to && depth > 0; i++ {
		depth += p.ls[i].depth
	}
	return i
}

// extent is the line after the declaration or statement that starts at
// line j: the lines inside its brackets, those more indented than it, and
// those that close or go on with it ("}", "else:", a lone "{"). In broken
// code whose brackets never close, a declaration at the margin starts
// anew, but not inside a container (a C++ namespace's declarations are at
// the margin).
func (p *srcParser) extent(j, to int, container bool) int {
	d, depth, k := p.ls[j].indent, 0, j
	for {
		depth = max(0, depth+p.ls[k].depth)
		k++
		next := k
		for next < to && p.ls[next].blank {
			next++
		}
		if next >= to {
			return k
		}
		n := p.ls[next]
		var goesOn bool
		switch {
		case n.inside:
			goesOn = true
		case depth > 0:
			goesOn = container || n.indent > 0 || d > 0 || !p.startsDecl(next, to)
		case n.indent != d:
			goesOn = n.indent > d
		default:
			goesOn = p.goesOn(k-1, next)
		}
		if !goesOn {
			return k
		}
		k = next
	}
}

// closers are the words that start a line going on with the statement
// above it at the same indent.
var closers = map[string]bool{
	"end": true, "fi": true, "done": true, "esac": true, "then": true, "do": true, "else": true, "elif": true, "elsif": true,
	"except": true, "finally": true, "catch": true, "rescue": true, "ensure": true, "where": true,
}

// goesOn reports whether line next, at the indent of the statement that
// line prev ends (outside any bracket), goes on with it.
func (p *srcParser) goesOn(prev, next int) bool {
	h := p.head(next)
	switch h[0] {
	case '}', ')', ']', '{':
		return true
	}
	if strings.HasPrefix(h, "=>") || strings.HasPrefix(h, "->") || closers[firstIdent(h)] {
		return true
	}
	// C's "static int" over "name(void)".
	l := p.ls[prev]
	return p.syn.family == cFamily && l.code && (isWord(l.last) || l.last == '*') && !strings.HasPrefix(p.head(prev), "#")
}

// startsDecl reports whether a declaration by its keyword (a function, a
// class or the like; in Go any) starts at line i, after at most 64 lines
// of comments and attributes.
func (p *srcParser) startsDecl(i, to int) bool {
	for n := 0; i < to && n < 64 && !p.ls[i].blank && (!p.ls[i].code || p.attribute(i)); n++ {
		i++
	}
	if i == to || p.ls[i].blank || p.ls[i].indent > 0 {
		return false
	}
	k := p.classify(i, 1).kind
	return k == function || k == container || p.syn.family == goFamily && k == value
}

// standalone reads the comments of lines [from, to) that no declaration
// follows: a paragraph (before the first declaration, the file's doc),
// Meta for a license before any section, or only directives.
func (p *srcParser) standalone(from, to int) {
	if from == to {
		return
	}
	text := p.comments(from, to)
	if text == "" || len(p.secs) == 0 && isLicense(text) {
		p.add(Meta, from, to, "")
		return
	}
	p.add(Paragraph, from, to, text)
	p.fileDoc(text)
}

// fileDoc takes a doc before the first declaration as the file's: its
// first sentence is the title.
func (p *srcParser) fileDoc(text string) {
	if p.decls == 0 && p.title == "" {
		p.title = synopsis(text)
	}
}

// comments is the words of the comment lines of [from, to), directives
// left out, a line each.
func (p *srcParser) comments(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if c := p.ls[i].comment; !p.ls[i].code && c != "" && !isDirective(c) {
			b.WriteString(c)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// directives are how the comments that speak to tools begin (and "/",
// a shebang's path).
var directives = []string{"go:", "+build", "nolint", "eslint", "@ts-", "-*-", "pylint:", "noqa", "type: ignore", "frozen_string_literal", "prettier-ignore", "/"}

// isDirective reports whether the comment c speaks to a tool, not a
// reader.
func isDirective(c string) bool {
	for _, d := range directives {
		if strings.HasPrefix(c, d) {
			return true
		}
	}
	return false
}

// isLicense reports whether text reads as a license header.
func isLicense(text string) bool {
	t := strings.ToLower(text)
	for _, s := range []string{"copyright", "spdx-license", "all rights reserved", "licensed under", "permission is hereby granted"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// synopsis is the first sentence of text, on one line (a JSDoc @file
// tag dropped).
func synopsis(text string) string {
	for _, tag := range []string{"@fileoverview ", "@file ", "@module "} {
		text = strings.TrimPrefix(text, tag)
	}
	if i := strings.Index(text, "\n\n"); i >= 0 {
		text = text[:i]
	}
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	if len(text) > 200 {
		text = text[:strings.LastIndexByte(text[:200], ' ')+1] + "…"
	}
	return text
}

// declare reads the declaration (or statement) of lines [start, end)
// whose first line, after its comments and attributes, is line j: its
// section, the block of its doc and signature, and its body.
func (p *srcParser) declare(start, j, end, level int, d decl) {
	doc := p.comments(start, j)
	if p.decls == 0 && isLicense(doc) {
		p.add(Meta, start, j, "")
		start, doc = j, ""
	}
	if d.kind == fileDoc {
		p.fileClause(start, j, end, doc)
		return
	}
	sig := p.sigEnd(j, end, d.kind)
	head := sig
	if p.syn.family == pyFamily && (d.kind == function || d.kind == container) {
		if head = p.docstringEnd(sig, end); head > sig {
			doc += p.docstring(sig, head)
		}
	}
	if level <= 6 && (d.kind == function || d.kind == container || d.kind == value && level == 1) {
		p.openSection(start, level, d.title, "")
	}
	kind := Code
	if doc != "" || p.commented(j, sig) {
		kind = Paragraph
	}
	p.add(kind, start, head, doc+p.signature(start, sig))
	p.body(head, end, level, d)
	p.decls++
}

// fileClause reads Go's package clause with its doc comment, or Python's
// module docstring: the file's doc, before any section.
func (p *srcParser) fileClause(start, j, end int, doc string) {
	text := doc
	if p.syn.family == pyFamily {
		text += p.docstring(j, end)
	} else {
		text += p.head(j) + "\n"
	}
	if doc != "" || p.syn.family == pyFamily {
		p.fileDoc(text)
	}
	p.add(Paragraph, start, end, text)
	p.decls++
}

// commented reports whether a line of [from, to) has a comment.
func (p *srcParser) commented(from, to int) bool {
	for i := from; i < to; i++ {
		if p.ls[i].comment != "" {
			return true
		}
	}
	return false
}

// signature is the code lines of [from, to), a line each: a declaration's
// attributes and signature.
func (p *srcParser) signature(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if p.ls[i].code {
			b.WriteString(p.head(i))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// sigEnd is the line after the signature of the declaration that starts
// at line j and ends before line end: the line that opens its body ("{",
// Python's ":", a value's "(" or "["), else the end of its first
// statement, else its end.
func (p *srcParser) sigEnd(j, end int, k declKind) int {
	depth, decl := 0, k == function || k == container
	for i := j; i < end; i++ {
		l := p.ls[i]
		depth += l.depth
		switch {
		case l.last == '{':
			return i + 1
		case i+1 < end && p.head(i+1) == "{":
			return i + 2
		case depth > 0:
			if !decl && (l.last == '(' || l.last == '[') {
				return i + 1
			}
		case l.last == ';', l.last == ':' && p.syn.family == pyFamily:
			return i + 1
		case !decl, p.syn.family == hashFamily, p.syn.family == yamlFamily:
			return i + 1
		}
	}
	return end
}

// docstringEnd is the line after the docstring that starts at line i, if
// one does before end; else i.
func (p *srcParser) docstringEnd(i, end int) int {
	if i >= end || p.ls[i].blank || p.ls[i].inside || stringStart(p.head(i)) < 0 {
		return i
	}
	for i++; i < end && p.ls[i].inside; i++ {
	}
	return i
}

// docstring is the words of the docstring of lines [from, to), its quotes
// dropped, a line each.
func (p *srcParser) docstring(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		t := p.head(i)
		if i == from {
			t = strings.TrimLeft(t[max(stringStart(t), 0):], `"'`)
		}
		if i == to-1 {
			t = strings.TrimRight(t, `"'`)
		}
		if t = strings.TrimSpace(t); t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// body reads the lines of a declaration after its signature, [from, end):
// a function's (and a statement's, but in shell and YAML) are Meta, a
// container's are declarations (its closing line Meta), a value's are
// blocks of its comments and code.
func (p *srcParser) body(from, end, level int, d decl) {
	switch {
	case from >= end:
	case d.kind == function || d.kind == statement && p.syn.family != hashFamily && p.syn.family != yamlFamily:
		p.add(Meta, from, end, "")
	case d.kind == container && level < 6:
		last := end
		if h := p.head(end - 1); end-1 >= from && !p.ls[end-1].inside && (h[0] == '}' || firstIdent(h) == "end") {
			last = end - 1
		}
		p.items(from, last, level+1)
		if last < end {
			p.add(Meta, last, end, "")
		}
	default:
		p.paragraphs(from, end)
	}
}

// paragraphs reads lines [from, end) as blocks to each blank line, of
// their comments' words and their code: Paragraph when they hold a
// comment, else Code.
func (p *srcParser) paragraphs(from, end int) {
	for i := from; i < end; {
		if p.ls[i].blank {
			i++
			continue
		}
		var b strings.Builder
		prose, j := false, i
		for ; j < end && !p.ls[j].blank; j++ {
			l := p.ls[j]
			t := l.comment
			if l.code {
				t = p.head(j)
			}
			prose = prose || l.comment != ""
			if t != "" {
				b.WriteString(t)
				b.WriteByte('\n')
			}
		}
		kind := Code
		if prose {
			kind = Paragraph
		}
		p.add(kind, i, j, b.String())
		i = j
	}
}
