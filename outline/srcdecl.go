package outline

import "strings"

// declKind is what an item of a source file is.
type declKind uint8

// The kinds of items.
const (
	// statement is code that declares nothing: its body is Meta.
	statement declKind = iota
	// imports are imports, includes and preprocessor lines: Meta.
	imports
	// function is a function or a method: its body is Meta.
	function
	// container is a class, a struct, an impl, a namespace: its body holds
	// declarations.
	container
	// value is a constant, a variable, a type (a Go struct too): its
	// body is read as blocks.
	value
	// fileDoc is Go's package clause, or Python's module docstring.
	fileDoc
)

// decl is an item's kind and its section's title.
type decl struct {
	kind  declKind
	title string
	// group: a Go group ("const ("), whose title takes its names.
	group bool
}

// classify reads the item whose first line, after its comments and
// attributes, is line j.
func (p *srcParser) classify(j, level int) decl {
	h := p.head(j)
	if p.ls[j].inside {
		return decl{}
	}
	switch p.syn.family {
	case goFamily:
		return goDecl(h)
	case yamlFamily:
		return yamlDecl(h)
	case pyFamily:
		if p.decls == 0 && level == 1 && stringStart(h) >= 0 {
			return decl{kind: fileDoc}
		}
	}
	if p.syn.family == cFamily && !strings.ContainsAny(h, "(;{#") && j+1 < len(p.ls) && p.ls[j+1].code && !p.ls[j+1].inside {
		h += " " + p.head(j+1) // C's "static int" over "name(void)"
	}
	d := p.keywordDecl(h, level)
	if d.kind == value && (strings.Contains(h, "=>") || strings.Contains(h, "= function") || strings.Contains(h, "= async")) {
		d.kind = function
	}
	if d.kind == value && strings.Contains(h, "require(") {
		d.kind = imports
	}
	return d
}

// goDecl reads a Go declaration by its keyword.
func goDecl(h string) decl {
	w := firstIdent(h)
	rest := strings.TrimSpace(h[len(w):])
	switch w {
	case "package":
		return decl{kind: fileDoc}
	case "import":
		return decl{kind: imports}
	case "func":
		return decl{kind: function, title: "func " + goFuncName(rest)}
	case "type", "const", "var":
		if strings.HasPrefix(rest, "(") {
			return decl{kind: value, title: w, group: true}
		}
		return decl{kind: value, title: w + " " + firstIdent(rest)}
	}
	return decl{}
}

// goFuncName is a Go function's name, after "func ": a method's is its
// receiver's type, ".", and its own ("Server.Close").
func goFuncName(rest string) string {
	if !strings.HasPrefix(rest, "(") {
		return firstIdent(rest)
	}
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return ""
	}
	recv := rest[1:end]
	if k := strings.IndexByte(recv, '['); k >= 0 {
		recv = recv[:k]
	}
	typ := ""
	if f := strings.Fields(recv); len(f) > 0 {
		typ = strings.TrimLeft(f[len(f)-1], "*")
	}
	return typ + "." + firstIdent(strings.TrimSpace(rest[end+1:]))
}

// yamlDecl reads a line of YAML at the margin: a key is a declaration.
func yamlDecl(h string) decl {
	if h == "---" || h == "..." || strings.HasPrefix(h, "%") {
		return decl{kind: imports}
	}
	if c := strings.Index(h, ":"); c > 0 && h[0] != '-' && (c+1 == len(h) || h[c+1] == ' ') {
		return decl{kind: value, title: strings.Trim(h[:c], `"'`)}
	}
	return decl{}
}

// keywords are the words that declare, by what they declare.
var keywords = map[string]declKind{
	"func": function, "function": function, "fn": function, "def": function, "fun": function, "macro_rules": function,
	"class": container, "struct": container, "interface": container, "trait": container, "impl": container, "enum": container,
	"union": container, "namespace": container, "module": container, "mod": container, "object": container, "protocol": container,
	"extension": container, "record": container,
	"const": value, "let": value, "var": value, "val": value, "type": value, "typedef": value, "typealias": value,
	"import": imports, "use": imports, "using": imports, "package": imports, "require": imports, "require_relative": imports,
	"from": imports, "include": imports,
}

// modifiers are the words before a declaration's keyword that say how it
// is declared.
var modifiers = map[string]bool{
	"public": true, "private": true, "protected": true, "internal": true, "static": true, "final": true, "abstract": true,
	"export": true, "default": true, "async": true, "unsafe": true, "extern": true, "pub": true, "inline": true, "virtual": true,
	"override": true, "sealed": true, "open": true, "data": true, "inner": true, "lateinit": true, "suspend": true,
	"readonly": true, "declare": true, "partial": true, "mutating": true, "fileprivate": true, "required": true,
	"convenience": true, "lazy": true, "weak": true, "tailrec": true, "operator": true, "infix": true, "external": true,
	"companion": true, "annotation": true, "value": true, "transient": true, "volatile": true, "synchronized": true,
	"native": true, "constexpr": true, "explicit": true, "friend": true, "mut": true, "get": true, "set": true, "actual": true, "expect": true,
}

// keywordDecl reads a declaration of C, JavaScript, Rust, Python, Ruby,
// shell and the like: by its keyword after its modifiers, else (where a
// language declares without one) by its shape.
func (p *srcParser) keywordDecl(h string, level int) decl {
	if p.syn.family == cFamily && strings.HasPrefix(h, "#") {
		if rest, ok := strings.CutPrefix(h, "#define "); ok {
			return decl{kind: value, title: "#define " + firstIdent(strings.TrimSpace(rest))}
		}
		return decl{kind: imports}
	}
	ws := strings.Fields(h[:min(len(h), 200)])
	i := 0
	for i < len(ws)-1 && (modifiers[ws[i]] || strings.HasPrefix(ws[i], "pub(")) {
		i++
	}
	if rest, ok := strings.CutPrefix(h, `extern "`); ok && strings.HasSuffix(rest, "{") {
		return decl{kind: container, title: strings.TrimSpace(strings.TrimSuffix(h, "{"))} // extern "C" {
	}
	if len(ws) > 0 {
		if d, ok := p.byKeyword(h, ws[i:]); ok {
			return d
		}
	}
	if name, ok := strings.CutSuffix(strings.TrimSuffix(strings.TrimSuffix(h, "{"), " "), "()"); p.syn.family == hashFamily && ok && isName(strings.TrimSpace(name)) {
		return decl{kind: function, title: "function " + strings.TrimSpace(name)}
	}
	if p.syn.family == cFamily || p.syn.family == keywordFamily && level > 1 {
		return keywordless(h, level)
	}
	return assignment(h, p.syn.family)
}

// byKeyword reads a declaration whose first word (ws[0]) after its
// modifiers is a keyword: its name is the first word after that is not.
func (p *srcParser) byKeyword(h string, ws []string) (decl, bool) {
	w := firstIdent(ws[0])
	kind := keywords[w]
	if kind == statement || p.notKeyword(h, ws, w, kind) {
		return decl{}, false
	}
	if kind == imports {
		return decl{kind: imports}, true
	}
	k := 1
	for ; k < len(ws); k++ {
		next := keywords[firstIdent(ws[k])]
		if next == statement || firstIdent(ws[k]) != strings.TrimRight(ws[k], "<*!:(") {
			break
		}
		if next == function {
			w, kind = firstIdent(ws[k]), function // "const fn", "class func"
		}
	}
	title := w
	if k < len(ws) {
		title += " " + nameOf(strings.TrimLeft(ws[k], "*&"))
	}
	if w == "impl" {
		title = implTitle(h)
	}
	return decl{kind: kind, title: strings.TrimSpace(title)}, true
}

// notKeyword reports whether w, the keyword that starts ws (the words of
// h), is used as a name ("type(x)", "type = 1") or, in C, starts the
// type a function returns ("struct foo *make(void)").
func (p *srcParser) notKeyword(h string, ws []string, w string, kind declKind) bool {
	called := len(ws[0]) > len(w) && ws[0][len(w)] == '('
	if called && kind != function || len(ws) > 1 && strings.ContainsRune("=.(", rune(ws[1][0])) && kind != container {
		return true
	}
	paren := strings.IndexByte(h, '(')
	brace := strings.IndexByte(h, '{')
	return (w == "struct" || w == "enum" || w == "union") && p.syn.family == cFamily && paren >= 0 && (brace < 0 || paren < brace)
}

// implTitle is a Rust impl's title: "impl" and what it is for, its
// generics' parameters and where clause left out.
func implTitle(h string) string {
	_, rest, _ := strings.Cut(h, "impl")
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "<") {
		depth := 0
		for i := 0; i < len(rest); i++ {
			if rest[i] == '<' {
				depth++
			} else if rest[i] == '>' {
				if depth--; depth == 0 {
					rest = rest[i+1:]
					break
				}
			}
		}
	}
	rest, _, _ = strings.Cut(rest, "{")
	rest, _, _ = strings.Cut(rest, " where")
	t := "impl " + strings.Join(strings.Fields(rest), " ")
	if len(t) > 80 {
		t = t[:strings.LastIndexByte(t[:80], ' ')]
	}
	return t
}

// controls are the words that start a statement, never a declaration.
var controls = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "else": true, "do": true, "try": true,
	"catch": true, "throw": true, "new": true, "delete": true, "sizeof": true, "case": true, "goto": true, "await": true,
	"yield": true, "break": true, "continue": true, "typeof": true,
}

// keywordless reads a declaration without a keyword, in C, C++, Java, C#,
// or in a class of the others: "Type name(…)" a function (a method
// inside a class), "Type name = …;" or "name: Type" a value.
func keywordless(h string, level int) decl {
	if controls[firstIdent(h)] {
		return decl{}
	}
	paren, eq := strings.IndexByte(h, '('), assignIndex(h)
	if paren > 0 && (eq < 0 || paren < eq) && !strings.HasSuffix(h, "),") {
		name := identBefore(h, paren)
		if name == "" {
			return decl{}
		}
		if level > 1 {
			return decl{kind: function, title: "method " + name}
		}
		return decl{kind: function, title: "function " + name}
	}
	end := len(h)
	for _, c := range []int{eq, paren, strings.IndexAny(h, ";{,")} {
		if c >= 0 && c < end {
			end = c
		}
	}
	s := h[:end]
	if k := strings.IndexByte(s, ':'); k > 0 && !strings.Contains(s, "::") {
		s = s[:k]
	}
	if name := lastIdent(s); name != "" {
		return decl{kind: value, title: name}
	}
	return decl{}
}

// assignment reads "NAME = value" (or "NAME: Type = value") at the margin
// of Python, Ruby, JavaScript as a value; any other line as a statement.
func assignment(h string, f family) decl {
	name := nameOf(h)
	rest := strings.TrimSpace(h[len(name):])
	if name == "" || strings.HasPrefix(rest, "==") {
		return decl{}
	}
	if f == hashFamily && strings.HasPrefix(rest, "= ") || f != hashFamily && (strings.HasPrefix(rest, "=") || len(rest) > 1 && rest[0] == ':' && rest[1] != ':') {
		return decl{kind: value, title: name}
	}
	return decl{}
}

// assignIndex is where h's first "=" that assigns is, -1 for none ("==",
// "=>", "<=", ">=", "!=" do not assign).
func assignIndex(h string) int {
	for i := 0; i < len(h); i++ {
		if h[i] != '=' {
			continue
		}
		if i+1 < len(h) && (h[i+1] == '=' || h[i+1] == '>') || i > 0 && strings.IndexByte("=<>!", h[i-1]) >= 0 {
			continue
		}
		return i
	}
	return -1
}

// isNameByte reports whether c may be in a declared name: a word's
// characters, a qualifier's "." and "::", "$", "~", and any of UTF-8's
// bytes beyond ASCII.
func isNameByte(c byte) bool {
	return isWord(c) || c == '.' || c == ':' || c == '$' || c == '~' || c >= 0x80
}

// firstIdent is the identifier h starts with ("" for none).
func firstIdent(h string) string {
	i := 0
	for i < len(h) && (isWord(h[i]) || h[i] >= 0x80) {
		i++
	}
	return h[:i]
}

// nameOf is the name h starts with: an identifier, qualified or not
// ("fmt.Stringer", "Foo::bar"), "?" or "!" at its end as Ruby has them.
func nameOf(h string) string {
	i := 0
	for i < len(h) && isNameByte(h[i]) {
		i++
	}
	if i > 0 && i < len(h) && (h[i] == '?' || h[i] == '!') {
		i++
	}
	return strings.TrimRight(h[:i], ":.")
}

// isName reports whether s is one name.
func isName(s string) bool { return s != "" && nameOf(s) == s }

// identBefore is the name just before h[paren] (a function's, before its
// parameters), its type parameters ("<T>") passed over.
func identBefore(h string, paren int) string {
	k := len(strings.TrimRight(h[:paren], " "))
	if k > 0 && h[k-1] == '>' {
		for depth := 0; k > 0; k-- {
			if h[k-1] == '>' {
				depth++
			} else if h[k-1] == '<' {
				if depth--; depth == 0 {
					k--
					break
				}
			}
		}
	}
	i := k
	for i > 0 && isNameByte(h[i-1]) {
		i--
	}
	return strings.TrimLeft(h[i:k], ":.")
}

// lastIdent is the last name in s ("names" of "char *names[]").
func lastIdent(s string) string {
	k := len(s)
	for k > 0 && !isNameByte(s[k-1]) {
		k--
	}
	i := k
	for i > 0 && isNameByte(s[i-1]) {
		i--
	}
	return strings.Trim(s[i:k], ":.")
}

// stringStart is where the string h starts with opens (after a prefix such
// as Python's r or b), -1 when h does not start with one.
func stringStart(h string) int {
	k := 0
	for k < len(h) && k < 2 && strings.IndexByte("rRuUbBfF", h[k]) >= 0 {
		k++
	}
	if k < len(h) && (h[k] == '"' || h[k] == '\'') {
		return k
	}
	return -1
}

// retitle gives a Go group its names ("const Paragraph, Heading, …") and
// a C typedef the name it defines, both of lines [j, end).
func (p *srcParser) retitle(d *decl, j, end int) {
	switch {
	case d.group:
		var names []string
		ind := -1
		for i := j + 1; i < end && len(names) < 4; i++ {
			if l := p.ls[i]; l.code && !l.inside && (ind < 0 || l.indent == ind) {
				if n := firstIdent(p.head(i)); n != "" {
					names, ind = append(names, n), l.indent
				}
			}
		}
		if len(names) == 4 {
			names[3] = "…"
		}
		d.title += " " + strings.Join(names, ", ")
	case strings.HasPrefix(d.title, "typedef"):
		d.title = "typedef " + lastIdent(strings.TrimRight(p.head(end-1), "; "))
	}
	d.title = strings.TrimSpace(d.title)
}
