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
// regard to case (a case-insensitive file system opens ".ENV" as ".env"):
//   - a glob with no "/" matches any component of a path, so the file of
//     that name and everything under a directory of that name are denied;
//   - a glob with a "/" matches the path or any part of it that starts at
//     a component, and what is under a match ("a/b" denies "a/b", "x/a/b"
//     and "a/b/c");
//   - a glob that starts with "/" matches from the root only ("/a/b"
//     denies "a/b" and "a/b/c", not "x/a/b").
//
// "**/" in front and "/**" behind a glob add nothing, and are dropped.
type denyList struct {
	names    map[string]bool // literal component names
	prefixes []string        // component globs "literal*"
	suffixes []string        // component globs "*literal"
	globs    []string        // other component globs
	paths    []string        // globs over any trailing part of a path
	anchored []string        // globs over the whole path
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
		switch {
		case p == "" || p == "**":
			return nil, fmt.Errorf("deny glob %q would deny every file", g)
		case anchored:
			d.anchored = append(d.anchored, p+"/**")
		case strings.Contains(p, "/"):
			d.paths = append(d.paths, p+"/**")
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
func (d *denyList) match(rel string) bool {
	if rel == "." {
		return false
	}
	p := strings.ToLower(rel)
	for _, g := range d.anchored {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	for start := 0; ; {
		end := strings.IndexByte(p[start:], '/')
		if end < 0 {
			end = len(p)
		} else {
			end += start
		}
		if d.component(p[start:end]) {
			return true
		}
		for _, g := range d.paths {
			if ok, _ := doublestar.Match(g, p[start:]); ok {
				return true
			}
		}
		if end == len(p) {
			return false
		}
		start = end + 1
	}
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
