package fsview

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// DefaultDeny returns the deny list `folio serve` starts with: the
// internals of version control (a clone's config can hold a credential
// URL) and the usual files of keys, tokens and passwords.
func DefaultDeny() []string {
	return []string{
		".git", ".hg", ".svn",
		".env", ".env.*", ".envrc",
		".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json", ".config/gcloud",
		".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
		"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
		"*.tfstate", "*.tfstate.*",
	}
}

// denyList matches paths against deny globs, at any depth and without
// regard to case (a case-insensitive file system opens ".ENV" as ".env").
// A glob matches a path when it matches a run of the path's components:
//   - a glob with no "/" matches any one component, so the file of that
//     name and everything under a directory of that name are denied;
//   - a glob with a "/" matches any run of components, and so what is
//     under them ("a/b" denies "a/b", "x/a/b" and "a/b/c");
//   - a glob that starts with "/" matches a run from the root only ("/a/b"
//     denies "a/b" and "a/b/c", not "x/a/b").
//
// "**/" in front and "/**" behind a glob add nothing, and are dropped.
type denyList struct {
	names    map[string]bool // literal component names
	prefixes []string        // component globs "literal*"
	suffixes []string        // component globs "*literal"
	globs    []string        // other component globs
	paths    []pathGlob      // globs over any run of components
	anchored []pathGlob      // globs over a run from the root
}

// pathGlob is a glob over several components: parts of them, or 0 when a
// "**" in it matches any number.
type pathGlob struct {
	glob  string
	parts int
}

func compileDeny(globs []string) (*denyList, error) {
	d := &denyList{names: map[string]bool{}}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("invalid deny glob %q", g)
		}
		p := strings.ToLower(g)
		anchored := strings.HasPrefix(p, "/")
		p = strings.TrimPrefix(p, "/")
		for !anchored && strings.HasPrefix(p, "**/") {
			p = p[3:]
		}
		for strings.HasSuffix(p, "/**") {
			p = p[:len(p)-3]
		}
		pg := pathGlob{glob: p, parts: strings.Count(p, "/") + 1}
		if strings.Contains(p, "**") {
			pg.parts = 0
		}
		switch {
		case p == "" || p == "**":
			return nil, fmt.Errorf("deny glob %q would deny every file", g)
		case anchored:
			d.anchored = append(d.anchored, pg)
		case strings.Contains(p, "/") || pg.parts == 0:
			d.paths = append(d.paths, pg)
		case !hasMeta(p):
			d.names[p] = true
		case strings.HasSuffix(p, "*") && !hasMeta(p[:len(p)-1]):
			d.prefixes = append(d.prefixes, p[:len(p)-1])
		case strings.HasPrefix(p, "*") && !hasMeta(p[1:]):
			d.suffixes = append(d.suffixes, p[1:])
		default:
			d.globs = append(d.globs, p)
		}
	}
	return d, nil
}

// hasMeta reports whether a glob has any character that is not literal.
func hasMeta(g string) bool { return strings.ContainsAny(g, `*?[]{}\`) }

// match reports whether the slash path rel, relative to a root, is denied.
func (d *denyList) match(rel string) bool { return d.runs(rel, false) }

// matchLast is match of rel whose parent directory is known not to be
// denied: only the runs of components that end with its last are
// matched, since every other run is one of the parent's.
func (d *denyList) matchLast(rel string) bool { return d.runs(rel, true) }

// runs matches the runs of components of rel against the deny globs:
// every run, or (last) those that end with the last component.
func (d *denyList) runs(rel string, last bool) bool {
	if rel == "." {
		return false
	}
	p := strings.ToLower(rel)
	// The offsets where components start, and one past the end.
	var buf [16]int
	starts := append(buf[:0], 0)
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			starts = append(starts, i+1)
		}
	}
	n := len(starts)
	starts = append(starts, len(p)+1)
	run := func(i, j int) string { return p[starts[i] : starts[j]-1] } // components [i, j)
	first := 0
	if last {
		first = n - 1
	}
	for i := first; i < n; i++ {
		if d.component(run(i, i+1)) {
			return true
		}
	}
	matches := func(g pathGlob, i int) bool {
		if g.parts > 0 {
			if i+g.parts > n || (last && i+g.parts != n) {
				return false
			}
			ok, _ := doublestar.Match(g.glob, run(i, i+g.parts))
			return ok
		}
		j := i + 1
		if last {
			j = n
		}
		for ; j <= n; j++ {
			if ok, _ := doublestar.Match(g.glob, run(i, j)); ok {
				return true
			}
		}
		return false
	}
	for _, g := range d.anchored {
		if matches(g, 0) {
			return true
		}
	}
	for _, g := range d.paths {
		for i := range n {
			if matches(g, i) {
				return true
			}
		}
	}
	return false
}

// component reports whether one lower-case component of a path is denied.
func (d *denyList) component(c string) bool {
	if d.names[c] {
		return true
	}
	for _, s := range d.prefixes {
		if strings.HasPrefix(c, s) {
			return true
		}
	}
	for _, s := range d.suffixes {
		if strings.HasSuffix(c, s) {
			return true
		}
	}
	for _, g := range d.globs {
		if ok, _ := doublestar.Match(g, c); ok {
			return true
		}
	}
	return false
}
