package outline

import (
	"errors"
	"slices"
	"strings"

	"github.com/folio-mcp/folio/internal/rank"
)

// PathSep joins the titles of a heading path, the outermost first:
// "Install > From source".
const PathSep = " > "

// MaxCandidates is the most sections a FindError names.
const MaxCandidates = 5

// Errors of Find, in a FindError.
var (
	// ErrNoSection: no section is named so.
	ErrNoSection = errors.New("no such section")
	// ErrAmbiguous: more than one section is named so.
	ErrAmbiguous = errors.New("more than one section is named so")
)

// A FindError is a query that names no one section: Err is ErrNoSection
// or ErrAmbiguous, Candidates the sections it may have meant (the closest
// first for ErrNoSection, in the document's order for ErrAmbiguous), at
// most MaxCandidates of Matches (how many ErrAmbiguous's query names).
type FindError struct {
	Query      string
	Err        error
	Candidates []int
	Matches    int
}

// Error says what the query missed.
func (e *FindError) Error() string { return e.Err.Error() + ": " + e.Query }

// Unwrap is Err.
func (e *FindError) Unwrap() error { return e.Err }

// Find is the index of the section query names: "#" and its anchor, or
// its heading path (its titles from the outermost, joined by PathSep),
// whole or a tail of it (just its title, say) that no other section's
// path ends with. Spaces are collapsed, and when nothing matches as
// written, case is ignored. A query that names no one section is a
// *FindError.
func (d *Doc) Find(query string) (int, error) {
	q := strings.TrimSpace(query)
	if anchor, ok := strings.CutPrefix(q, "#"); ok {
		return d.pick(query, func(i int, fold bool) bool {
			return d.Sections[i].Anchor == anchor || fold && strings.EqualFold(d.Sections[i].Anchor, anchor)
		})
	}
	nq := normPath(q)
	return d.pick(query, func(i int, fold bool) bool {
		p, want := normPath(strings.Join(d.Path(i), PathSep)), nq
		if fold {
			p, want = strings.ToLower(p), strings.ToLower(want)
		}
		return p == want || strings.HasSuffix(p, PathSep+want)
	})
}

// pick is the one section that match takes, exactly as written or else
// ignoring case; of several, the one whose whole path the query is.
func (d *Doc) pick(query string, match func(i int, fold bool) bool) (int, error) {
	for _, fold := range []bool{false, true} {
		var found []int
		for i := range d.Sections {
			if match(i, fold) {
				found = append(found, i)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
		if len(found) > 1 {
			if whole := d.whole(query, found); whole >= 0 {
				return whole, nil
			}
			return -1, &FindError{Query: query, Err: ErrAmbiguous, Candidates: found[:min(len(found), MaxCandidates)], Matches: len(found)}
		}
	}
	return -1, &FindError{Query: query, Err: ErrNoSection, Candidates: d.closest(query)}
}

// whole is the one of found whose whole heading path is query, -1 for
// none or several.
func (d *Doc) whole(query string, found []int) int {
	at := -1
	for _, i := range found {
		if normPath(strings.Join(d.Path(i), PathSep)) == normPath(query) {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// closest are the sections whose titles share the most words with the
// query's last title (or anchor), misspelt or not (see near), best first,
// at most MaxCandidates.
func (d *Doc) closest(query string) []int {
	q := strings.TrimPrefix(strings.TrimSpace(query), "#")
	if i := strings.LastIndex(q, ">"); i >= 0 {
		q = q[i+1:]
	}
	want := words(q)
	want = want[:min(len(want), maxQueryWords)]
	type scored struct{ i, score int }
	var all []scored
	for i, s := range d.Sections {
		score := 0
		for _, w := range words(s.Title + " " + s.Anchor) {
			if slices.ContainsFunc(want, func(q string) bool { return near(q, w) }) {
				score++
			}
		}
		if lq := strings.ToLower(strings.TrimSpace(q)); lq != "" && strings.Contains(strings.ToLower(s.Title), lq) {
			score += 2
		}
		if score > 0 {
			all = append(all, scored{i, score})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return b.score - a.score })
	var out []int
	for _, s := range all[:min(len(all), MaxCandidates)] {
		out = append(out, s.i)
	}
	return out
}

// maxQueryWords is how many words of a query closest weighs.
const maxQueryWords = 16

// near reports whether the words a and b are one, or a misspelling of
// the other: of 4 to 32 letters, with the same first letter, one edit
// apart (two from eight letters).
func near(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	most := 1
	if len(ra) >= 8 {
		most = 2
	}
	if len(ra) < 4 || len(rb) < 4 || len(ra) > 32 || len(rb) > 32 || ra[0] != rb[0] || len(ra)-len(rb) > most || len(rb)-len(ra) > most {
		return false
	}
	// Levenshtein distance, a row at a time.
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)] <= most
}

// words are the lower-case words of s, split at anything but letters and
// digits (rank.Words, as the searches read them).
func words(s string) []string { return rank.Words(s, rank.Options{}) }

// normPath is a heading path with the spaces around each ">" and inside
// each title collapsed to one.
func normPath(p string) string {
	parts := strings.Split(p, ">")
	for i, t := range parts {
		parts[i] = strings.Join(strings.Fields(t), " ")
	}
	return strings.Join(parts, PathSep)
}
