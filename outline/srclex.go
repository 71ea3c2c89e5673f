package outline

import (
	"strings"
	"unicode/utf8"
)

// syntax is how a language writes its comments and strings, and which
// rules read its declarations.
type syntax struct {
	// line is the marker of a comment to the end of the line.
	line string
	// block: "/*" to "*/" comments.
	block bool
	// hashWord: "#" starts a comment only at a word's start (shell, YAML).
	hashWord bool
	// quotes are the quote characters of strings that end on their line;
	// spans those of strings that may go on over lines.
	quotes, spans string
	// triple are the quote characters that, three in a row, open a string
	// that may go on over lines (Python's """ and ''').
	triple string
	// rawTick: a backtick string knows no escapes (Go).
	rawTick bool
	// lifetimes: "'" opens a character only as 'x' or '\…' (Rust's
	// lifetimes); rawStrings: r"…" and r#"…"# (Rust).
	lifetimes, rawStrings bool
	// regex: "/" opens a regular expression where a value may start
	// (JavaScript).
	regex bool
	// heredoc: "<<WORD" opens a string from the next line to a line of
	// WORD (shell, Ruby).
	heredoc bool
	// family is which rules read the declarations.
	family family
}

// family is a group of languages whose declarations read alike.
type family uint8

// The families.
const (
	// goFamily: package, import, func (methods by receiver), type, const
	// and var, each group one declaration.
	goFamily family = iota
	// cFamily: C, C++, Java, C#: a function needs no keyword anywhere.
	cFamily
	// keywordFamily: JavaScript, TypeScript, Rust, Swift, Kotlin: a
	// function needs no keyword only inside a class or the like.
	keywordFamily
	// pyFamily: Python, with docstrings.
	pyFamily
	// hashFamily: shell and Ruby.
	hashFamily
	// yamlFamily: YAML, each top-level key a declaration.
	yamlFamily
)

// srcLine is what the lexer finds on one line of a source file.
type srcLine struct {
	// inside: the line starts inside a string or a comment that an
	// earlier line opened.
	inside bool
	// blank: only spaces.
	blank bool
	// code: the line holds code, not only comments.
	code bool
	// last is the last character of the line's code, 0 for none.
	last byte
	// depth is the brackets the line's code opens, less those it closes.
	depth int
	// indent is the columns of the line's leading space.
	indent int
	// comment is the words of the line's comments, markers dropped.
	comment string
}

// addComment adds the words of one comment on the line.
func (lx *lexer) addComment(t string) {
	if t = strings.TrimSpace(t); t != "" {
		lx.comments = append(lx.comments, t)
	}
}

// lexer reads a source file a line at a time, keeping what a line leaves
// open (a comment, a string, a here-document) for the next.
type lexer struct {
	syn *syntax
	// end closes what is open at the end of the last line, "" for nothing;
	// esc: escapes count inside it; comment: it is a comment.
	end          string
	esc, comment bool
	// here is the word that ends an open here-document.
	here string
	// last is the last character of code seen on this line.
	last byte
	// comments are the words of the line's comments so far.
	comments []string
}

// scan reads line t.
func (lx *lexer) scan(t string) srcLine {
	l := srcLine{inside: lx.end != "" || lx.here != "", blank: strings.TrimSpace(t) == "", indent: indent(t)}
	lx.last, lx.comments = 0, lx.comments[:0]
	i := 0
	if l.inside {
		i = lx.resume(t, &l)
	}
	for i < len(t) {
		i = lx.step(t, i, &l)
	}
	l.last = lx.last
	if len(lx.comments) > 0 {
		l.comment = strings.Join(lx.comments, " ")
	}
	return l
}

// resume reads the start of a line inside what an earlier line opened, and
// returns where code goes on, len(t) for nowhere.
func (lx *lexer) resume(t string, l *srcLine) int {
	if !lx.comment || lx.here != "" {
		l.code = true // a string's text is code
	}
	if lx.here != "" {
		if strings.TrimSpace(t) == lx.here {
			lx.here = ""
		}
		return len(t)
	}
	j := find(t, 0, lx.end, lx.esc)
	if j < 0 {
		if lx.comment {
			lx.addComment(blockLine(t))
		}
		return len(t)
	}
	if lx.comment {
		lx.addComment(blockLine(t[:j]))
	}
	j += len(lx.end)
	lx.end = ""
	return j
}

// blockLine is the words of a line of a block comment: without its
// leading "*" (as Javadoc and JSDoc write them).
func blockLine(t string) string {
	return strings.TrimLeft(strings.TrimSpace(t), "*")
}

// find is where close next appears in t from i, -1 for nowhere; with esc
// a backslash escapes the character after it.
func find(t string, i int, close string, esc bool) int {
	for j := i; j < len(t); j++ {
		if esc && t[j] == '\\' {
			j++
			continue
		}
		if strings.HasPrefix(t[j:], close) {
			return j
		}
	}
	return -1
}

// step reads what starts at t[i] (code, a comment, a string), and returns
// where the next thing starts.
func (lx *lexer) step(t string, i int, l *srcLine) int {
	c := t[i]
	if c == ' ' || c == '\t' || c == '\r' {
		return i + 1
	}
	if isWord(c) && !lx.syn.rawStrings {
		j := i + 1
		for j < len(t) && isWord(t[j]) {
			j++
		}
		l.code, lx.last = true, t[j-1]
		return j
	}
	if j, ok := lx.commentAt(t, i); ok {
		return j
	}
	l.code = true
	if j, ok := lx.stringAt(t, i); ok {
		lx.last = c
		return j
	}
	if lx.syn.regex && c == '/' && strings.IndexByte("(,=:[!&|?{};+-*%<>~^", lx.last) >= 0 {
		if j := regexEnd(t, i+1); j > 0 {
			lx.last = '/'
			return j
		}
	}
	if lx.syn.heredoc && strings.HasPrefix(t[i:], "<<") {
		if j, word := hereWord(t, i+2); word != "" {
			lx.here, lx.last = word, 'd'
			return j
		}
	}
	switch c {
	case '(', '[', '{':
		l.depth++
	case ')', ']', '}':
		l.depth--
	}
	lx.last = c
	return i + 1
}

// commentAt reads the comment that starts at t[i], if one does, and
// returns where code goes on.
func (lx *lexer) commentAt(t string, i int) (int, bool) {
	syn := lx.syn
	if syn.line != "" && strings.HasPrefix(t[i:], syn.line) && (!syn.hashWord || i == 0 || t[i-1] == ' ' || t[i-1] == '\t') {
		lx.addComment(strings.TrimLeft(t[i+len(syn.line):], syn.line[:1]+"!:"))
		return len(t), true
	}
	if !syn.block || !strings.HasPrefix(t[i:], "/*") {
		return 0, false
	}
	if j := strings.Index(t[i+2:], "*/"); j >= 0 {
		lx.addComment(blockLine(strings.TrimPrefix(t[i+2:i+2+j], "!")))
		return i + 2 + j + 2, true
	}
	lx.addComment(blockLine(strings.TrimPrefix(t[i+2:], "!")))
	lx.end, lx.esc, lx.comment = "*/", false, true
	return len(t), true
}

// stringAt reads the string or character that starts at t[i], if one
// does, and returns where code goes on.
func (lx *lexer) stringAt(t string, i int) (int, bool) {
	syn, c := lx.syn, t[i]
	switch {
	case strings.IndexByte(syn.triple, c) >= 0 && strings.HasPrefix(t[i:], string([]byte{c, c, c})):
		return lx.until(t, i+3, t[i:i+3], true), true
	case syn.rawStrings && (c == 'r' || c == 'b') && (i == 0 || !isWord(t[i-1])):
		return lx.rawString(t, i)
	case c == '\'' && syn.lifetimes:
		return charEnd(t, i), true
	case strings.IndexByte(syn.spans, c) >= 0:
		return lx.until(t, i+1, t[i:i+1], c != '`' || !syn.rawTick), true
	case strings.IndexByte(syn.quotes, c) >= 0:
		if j := find(t, i+1, t[i:i+1], true); j >= 0 {
			return j + 1, true
		}
		return len(t), true
	}
	return 0, false
}

// until finds close after a string's opening quote at t[i]: the string
// goes on to the next line when it does not close on this one.
func (lx *lexer) until(t string, i int, close string, esc bool) int {
	if j := find(t, i, close, esc); j >= 0 {
		return j + len(close)
	}
	lx.end, lx.esc, lx.comment = close, esc, false
	return len(t)
}

// rawString reads Rust's r"…", r#"…"# (and b's), if one starts at t[i].
func (lx *lexer) rawString(t string, i int) (int, bool) {
	j := i + 1
	if t[i] == 'b' && j < len(t) && t[j] == 'r' {
		j++
	}
	h := j
	for j < len(t) && t[j] == '#' {
		j++
	}
	if j == len(t) || t[j] != '"' || (t[i] == 'b' && h == i+1) {
		return 0, false
	}
	return lx.until(t, j+1, "\""+t[h:j], false), true
}

// charEnd is the end of Rust's character at t[i] ('x', '\n'), or i+1 for
// a lifetime ('a).
func charEnd(t string, i int) int {
	if i+1 < len(t) && t[i+1] == '\\' {
		if j := strings.IndexByte(t[i+2:], '\''); j >= 0 {
			return i + 2 + j + 1
		}
		return len(t)
	}
	_, n := utf8.DecodeRuneInString(t[i+1:])
	if i+1+n < len(t) && t[i+1+n] == '\'' {
		return i + 1 + n + 1
	}
	return i + 1
}

// regexEnd is the end of the regular expression whose body starts at
// t[i] (after its "/"), 0 when it does not end on its line.
func regexEnd(t string, i int) int {
	if i < len(t) && (t[i] == '/' || t[i] == '*') {
		return 0
	}
	class := false
	for j := i; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				return j + 1
			}
		}
	}
	return 0
}

// hereWord reads a here-document's word after "<<" at t[i] ("EOF",
// "-EOF", "~EOS", "'EOF'"), and returns where code goes on; "" for none.
func hereWord(t string, i int) (int, string) {
	if i < len(t) && (t[i] == '-' || t[i] == '~') {
		i++
	}
	quote := byte(0)
	if i < len(t) && (t[i] == '\'' || t[i] == '"') {
		quote = t[i]
		i++
	}
	j := i
	for j < len(t) && isWord(t[j]) {
		j++
	}
	if j == i || t[i] >= '0' && t[i] <= '9' {
		return 0, ""
	}
	word := t[i:j]
	if quote != 0 && j < len(t) && t[j] == quote {
		j++
	}
	return j, word
}
