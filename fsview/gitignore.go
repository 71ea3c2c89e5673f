package fsview

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignorePattern is one rule of an ignore file, as git reads it
// (gitignore(5)): it matches a path itself, never by a directory above it
// (a walk does not enter an ignored directory, which is how git hides what
// is inside).
type ignorePattern struct {
	// domain is the directory of the file the rule is in: it applies to
	// the paths below it, matched relative to it.
	domain []string
	// glob is the pattern, in doublestar's syntax.
	glob string
	// negate re-includes what the rule matches (a leading "!").
	negate bool
	// dirOnly matches directories only (a trailing "/").
	dirOnly bool
	// basename matches the last name of a path at any depth (the rule
	// has no "/" but a trailing one); otherwise the whole path relative
	// to the domain.
	basename bool
	// inside matches what is inside a directory, not the directory (the
	// rule ends in "/**"); prefix is the glob of that directory.
	inside bool
	prefix string
	// file is the ignore file the rule is in, relative to the root, and
	// rule the rule as written: what a walk tells of what it left out.
	file, rule string
}

// utf8BOM may open an ignore file; it is not part of the first rule.
var utf8BOM = []byte("\xef\xbb\xbf")

// parsePatterns parses an ignore file's lines as git does: a byte order
// mark is dropped, blank lines and comments are skipped, trailing spaces
// are cut unless escaped, and a rule that is not a valid glob is skipped.
func parsePatterns(b []byte, domain []string, file string) []ignorePattern {
	b = bytes.TrimPrefix(b, utf8BOM)
	var ps []ignorePattern
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if p, ok := parsePattern(string(bytes.TrimSuffix(line, []byte("\r"))), domain); ok {
			p.file = file
			ps = append(ps, p)
		}
	}
	return ps
}

func parsePattern(line string, domain []string) (ignorePattern, bool) {
	// Trailing spaces go, but for one escaped by a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignorePattern{}, false
	}
	p := ignorePattern{domain: domain, rule: line}
	if line[0] == '!' {
		p.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	p.basename = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return ignorePattern{}, false
	}
	p.glob = globOf(line)
	if strings.HasSuffix(p.glob, "/**") {
		p.inside, p.prefix = true, strings.TrimSuffix(p.glob, "/**")
	}
	return p, doublestar.ValidatePattern(p.glob)
}

// globOf is a gitignore rule as a doublestar glob: the same but for
// braces, which are literal in git and alternatives in doublestar.
func globOf(rule string) string {
	var b strings.Builder
	for i := 0; i < len(rule); i++ {
		switch c := rule[i]; {
		case c == '\\' && i+1 < len(rule):
			b.WriteByte(c)
			i++
			b.WriteByte(rule[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// match reports whether the rule matches the path parts (relative to the
// root), a directory when isDir.
func (p ignorePattern) match(parts []string, isDir bool) bool {
	if len(parts) <= len(p.domain) || (p.dirOnly && !isDir) {
		return false
	}
	for i, d := range p.domain {
		if parts[i] != d {
			return false
		}
	}
	rest := parts[len(p.domain):]
	if p.basename {
		ok, _ := doublestar.Match(p.glob, rest[len(rest)-1])
		return ok
	}
	rel := strings.Join(rest, "/")
	if p.inside {
		// "dir/**" is what is inside dir, not dir itself, which
		// doublestar's "**" (zero or more names) would match too.
		if self, _ := doublestar.Match(p.prefix, rel); self {
			return false
		}
	}
	ok, _ := doublestar.Match(p.glob, rel)
	return ok
}
