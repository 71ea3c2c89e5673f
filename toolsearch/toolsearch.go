// Package toolsearch ranks tools for a request written the way a user
// asks ("open a PR from my branch"): BM25 over each tool's name, its
// upstream's name, its description and its parameters' names and
// descriptions, with what bridges the user's words and the tool's (see
// signals): words cut to their stems (Snowball's English stemmer, with the
// words, stop words and BM25 formula of package rank), the field's abbreviations and
// everyday words, action verbs read as the operation they ask for,
// WordNet's synonyms, derived forms and hypernyms, the words of the
// tool's whole server, and the server a request names. The gateway's
// search mode answers a model's search with it, over the catalog it
// already has, started upstreams or not.
package toolsearch

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/folio-mcp/folio/internal/rank"
	"github.com/folio-mcp/folio/lexicon"
)

// Doc is a tool as the index sees it.
type Doc struct {
	// Name is the tool's name as offered (NAME__tool), Upstream the
	// server's name.
	Name, Upstream string
	Description    string
	// Schema is the tool's input schema, as JSON.
	Schema json.RawMessage
}

// Hit is a tool the search found: its index in the docs, and its score.
type Hit struct {
	Doc   int
	Score float64
}

// signals are what the ranking may use beside plain BM25 over a tool's
// words; chosen is what New uses, each measured on the tune half of
// testdata/toolcatalogs' requests (go test -run Recall -v ./toolsearch).
type signals struct {
	// weights counts a tool's name and its upstream's name more than its
	// description, and scores the name alone too (nameShare).
	weights bool
	// stems cuts words to their stems; stop drops stop words.
	stems, stop bool
	// vocabulary adds to a word the words of the field it abbreviates or
	// that tools say for it (vocabulary).
	vocabulary bool
	// operations adds to an action verb the operation it asks for
	// (operations), so that "get rid of", "uninstall" and "delete" meet.
	operations bool
	// wordnet adds to a request's words their WordNet synonyms and
	// derived forms, and their hypernyms.
	wordnet bool
	// server adds to a tool's score a share of its server's, the server
	// read as all its tools' words together.
	server bool
	// typos reads a request's word that no tool has as the tools' words
	// one letter away from it (one added, dropped, changed, or two side
	// by side swapped).
	typos bool
	// named adds to the tools of the one server a request names ("in
	// linear", "on mongo") a share of the best tool's score.
	named bool
}

// chosen are the signals New ranks with.
var chosen = signals{weights: true, stems: true, stop: true, vocabulary: true, operations: true, wordnet: true, server: true, typos: true, named: true}

// Weights of a doc's fields: how many times each word of them counts.
const (
	nameWeight     = 3
	upstreamWeight = 2
	textWeight     = 1
)

// How much a word added to a request counts, against the request's own
// words' 1: one the field says for it, an operation, a WordNet synonym
// or derived form, a WordNet hypernym.
const (
	vocabularyWeight = 1
	operationWeight  = 1
	synonymWeight    = 0.15
	hypernymWeight   = 0.1
)

// nameShare is how much a tool's name scores alone adds to its score (with
// field weights): a name is short, and a request's words in it say more
// than in a long description.
const nameShare = 0.5

// serverShare is how much of its server's score adds to a tool's.
const serverShare = 0.15

// namedShare is how much of the best tool's score the tools of the server
// a request names gain.
const namedShare = 0.1

// typoWeight is how much a word one letter away from a request's word
// counts; minTypo is the shortest word read so.
const (
	typoWeight = 0.8
	minTypo    = 4
)

// Index is a built index over a catalog. It is safe for concurrent use.
type Index struct {
	sig signals
	// words are the words of the tools, as they come (for typos).
	words   []string
	tools   table
	names   table // each tool's name alone
	servers table // one entry per upstream, all its tools' words
	// serverOf is each tool's entry in servers.
	serverOf []int
	// serverNames are the words of each server's name, by its entry in
	// servers.
	serverNames [][]string
	// stemmer cuts words to their stems (package rank), remembering them.
	stemmer rank.Stemmer
}

// New indexes docs.
func New(docs []Doc) *Index { return newIndex(docs, chosen) }

// newIndex indexes docs to rank with the signals sig.
func newIndex(docs []Doc, sig signals) *Index {
	ix := &Index{sig: sig}
	upstreams := map[string]int{}
	var serverTF []map[string]float64
	for _, d := range docs {
		tf := map[string]float64{}
		name, up := float64(nameWeight), float64(upstreamWeight)
		if !sig.weights {
			name, up = textWeight, textWeight
		}
		ix.add(tf, d.Name, name)
		ix.add(tf, d.Upstream, up)
		ix.add(tf, d.Description, textWeight)
		ix.add(tf, schemaText(d.Schema), textWeight)
		ix.tools.add(tf)
		own := map[string]float64{}
		ix.add(own, strings.TrimPrefix(d.Name, d.Upstream+"__"), 1)
		ix.names.add(own)

		s, ok := upstreams[d.Upstream]
		if !ok {
			s = len(serverTF)
			upstreams[d.Upstream] = s
			ix.serverNames = append(ix.serverNames, words(d.Upstream))
			serverTF = append(serverTF, map[string]float64{})
			ix.add(serverTF[s], d.Upstream, up)
		}
		ix.add(serverTF[s], d.Name, textWeight)
		ix.add(serverTF[s], d.Description, textWeight)
		ix.serverOf = append(ix.serverOf, s)
	}
	for _, tf := range serverTF {
		ix.servers.add(tf)
	}
	if sig.typos {
		seen := map[string]bool{}
		for _, d := range docs {
			for _, w := range words(d.Name + " " + d.Upstream + " " + d.Description) {
				if len(w) >= minTypo-1 && !seen[w] {
					seen[w] = true
					ix.words = append(ix.words, w)
				}
			}
		}
		slices.Sort(ix.words)
	}
	return ix
}

// add counts the words of text into tf, each weight times, with what the
// signals add to them.
func (ix *Index) add(tf map[string]float64, text string, weight float64) {
	for t, w := range ix.termsOf(words(text), false) {
		tf[t] += weight * w
	}
}

// Search ranks the docs for query and returns the best k (fewer when
// fewer match), best first; ties go by doc order.
func (ix *Index) Search(query string, k int) []Hit {
	ws := words(query)
	if ix.sig.typos {
		ws = ix.corrected(ws)
	}
	if ix.sig.vocabulary {
		ws = append(ws, kinds(query)...)
	}
	q := ix.termsOf(ws, ix.sig.wordnet)
	scores := ix.tools.score(q)
	if ix.sig.weights {
		for i, v := range ix.names.score(q) {
			scores[i] += nameShare * v
		}
	}
	if ix.sig.server {
		byServer := ix.servers.score(q)
		for i := range scores {
			scores[i] += serverShare * byServer[ix.serverOf[i]]
		}
	}
	if ix.sig.named {
		ix.addNamed(scores, ws)
	}
	var hits []Hit
	for i, s := range scores {
		if s > 0 {
			hits = append(hits, Hit{Doc: i, Score: s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits[:min(k, len(hits))]
}

// addNamed adds to the scores of the tools of the one server the words ws
// name (all its name's words there, as they are, by their stem, or cut
// short: "mongo" for "mongodb") a share of the best score. A request that
// names two servers, or none, changes nothing.
func (ix *Index) addNamed(scores []float64, ws []string) {
	named := -1
	for s, name := range ix.serverNames {
		if len(name) == 0 || !allIn(name, ws) {
			continue
		}
		if named >= 0 {
			return
		}
		named = s
	}
	if named < 0 {
		return
	}
	top := slices.Max(scores)
	for i, v := range scores {
		if v > 0 && ix.serverOf[i] == named {
			scores[i] += namedShare * top
		}
	}
}

// allIn reports whether each of name's words is among ws: the same word,
// the same stem, or, for a word of five letters or more, cut short to
// four or more.
func allIn(name, ws []string) bool {
	for _, n := range name {
		found := false
		for _, w := range ws {
			if w == n || rank.Stem(w) == rank.Stem(n) || len(n) >= 5 && len(w) >= 4 && strings.HasPrefix(n, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// termsOf are the terms of a text's words, each with how much it counts:
// the words themselves (stop words aside, stemmed), and what the signals
// add to them; WordNet's words only when asked (for a request, not a
// tool).
func (ix *Index) termsOf(ws []string, wordnet bool) map[string]float64 {
	out := map[string]float64{}
	put := func(w string, weight float64) {
		s := ix.stemmer.Stem(w)
		if ix.sig.stop && isStop(s) {
			return
		}
		if ix.sig.stems {
			w = s
		}
		out[w] = max(out[w], weight)
	}
	for i, w := range ws {
		put(w, 1)
		if ix.sig.vocabulary {
			for _, v := range vocabulary()[w] {
				put(v, vocabularyWeight)
			}
		}
		if ix.sig.operations {
			for _, op := range operationsOf(ws, i) {
				out[op] = max(out[op], operationWeight)
			}
		}
		if wordnet && !isStop(ix.stemmer.Stem(w)) {
			for _, lemma := range append(lexicon.Base(w), w) {
				r := lexicon.Related(lemma)
				for _, rel := range [][]string{r.Synonyms, r.Derived} {
					for _, s := range rel {
						for _, x := range words(s) {
							put(x, synonymWeight)
						}
					}
				}
				for _, h := range r.Hypernyms {
					for _, x := range words(h) {
						put(x, hypernymWeight)
					}
				}
			}
		}
	}
	return out
}

// corrected is ws with, after each word no tool has (stop words and short
// words aside), the tools' words one letter away from it.
func (ix *Index) corrected(ws []string) []string {
	out := ws
	for _, w := range ws {
		if len(w) < minTypo || isStop(ix.stemmer.Stem(w)) || ix.tools.postings[ix.term(w)] != nil {
			continue
		}
		if _, known := vocabulary()[w]; known {
			continue
		}
		for _, t := range ix.words {
			if oneApart(w, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// term is w as the index keeps it.
func (ix *Index) term(w string) string {
	if ix.sig.stems {
		return ix.stemmer.Stem(w)
	}
	return w
}

// oneApart reports whether a and b differ by one letter added, dropped or
// changed, or two side by side swapped.
func oneApart(a, b string) bool {
	if a == b || len(a)-len(b) > 1 || len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case len(a) > len(b):
		return a[i+1:] == b[i:]
	}
	return a[i:] == b[i+1:]
}

// table is BM25 over entries, each a bag of weighted terms, kept as
// postings so that a search costs what its terms' postings cost.
type table struct {
	postings map[string][]posting
	lengths  []float64
	total    float64
}

// posting is one entry's weighted count of a term.
type posting struct {
	entry int
	tf    float64
}

// add appends an entry of the counts tf.
func (t *table) add(tf map[string]float64) {
	if t.postings == nil {
		t.postings = map[string][]posting{}
	}
	id, n := len(t.lengths), 0.0
	for term, f := range tf {
		t.postings[term] = append(t.postings[term], posting{id, f})
		n += f
	}
	t.lengths = append(t.lengths, n)
	t.total += n
}

// score is each entry's BM25 score for the weighted query terms q.
func (t *table) score(q map[string]float64) []float64 {
	scores := make([]float64, len(t.lengths))
	if len(t.lengths) == 0 {
		return scores
	}
	avg := t.total / float64(len(t.lengths))
	for term, w := range q {
		ps := t.postings[term]
		if len(ps) == 0 {
			continue
		}
		idf := rank.IDF(len(t.lengths), len(ps))
		for _, p := range ps {
			scores[p.entry] += w * rank.Usual.Score(idf, p.tf, t.lengths[p.entry], avg)
		}
	}
	return scores
}

// schemaText is the names and descriptions of a schema's parameters.
func schemaText(raw json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(name)
		b.WriteByte(' ')
		b.WriteString(s.Properties[name].Description)
		b.WriteByte(' ')
	}
	return b.String()
}

// words are the words of text as tool search reads them (rank.Words):
// lower case, split at anything not a letter or digit and between the
// words of camelCase.
func words(text string) []string { return rank.Words(text, rank.Options{CamelCase: true}) }

// isStop reports whether the stem w is a stop word of requests (see
// rank.Options.IsStop).
func isStop(w string) bool { return rank.Options{Requests: true}.IsStop(w) }

// Topics are, for each upstream of docs in the order they first come, the
// words that tell its tools apart from the others' (at most n, the most
// telling first): the words of its tools' names that its tools use most
// and the other upstreams least, not its own name's, a stop word or an
// action verb. A model that reads them can name the domain it asks about.
func Topics(docs []Doc, n int) []Topic {
	var out []Topic
	index := map[string]int{}
	counts := []map[string]int{} // by stem
	shown := map[string]string{} // a stem's word, as first seen
	for _, d := range docs {
		i, ok := index[d.Upstream]
		if !ok {
			i = len(out)
			index[d.Upstream] = i
			out = append(out, Topic{Upstream: d.Upstream})
			counts = append(counts, map[string]int{})
		}
		out[i].Tools++
		own := words(d.Upstream)
		name := strings.TrimPrefix(d.Name, d.Upstream+"__")
		for _, w := range uniqueWords(name) {
			if _, verb := operations()[w]; !verb && !isStop(rank.Stem(w)) && len(w) > 1 && !slices.Contains(own, w) {
				s := rank.Stem(w)
				if _, ok := shown[s]; !ok {
					shown[s] = w
				}
				counts[i][s]++
			}
		}
	}
	df := map[string]int{}
	for _, c := range counts {
		for w := range c {
			df[w]++
		}
	}
	for i, c := range counts {
		ws := make([]string, 0, len(c))
		for w := range c {
			ws = append(ws, w)
		}
		score := func(w string) float64 {
			return float64(c[w]) * math.Log(1+float64(len(out))/float64(df[w]))
		}
		slices.SortFunc(ws, func(a, b string) int {
			if sa, sb := score(a), score(b); sa != sb {
				if sa > sb {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		for _, w := range ws[:min(n, len(ws))] {
			out[i].Words = append(out[i].Words, shown[w])
		}
	}
	return out
}

// A Topic is an upstream, how many tools it has, and the words that tell
// them apart (see Topics).
type Topic struct {
	Upstream string
	Tools    int
	Words    []string
}

// uniqueWords are the words of text, each once.
func uniqueWords(text string) []string {
	ws := words(text)
	slices.Sort(ws)
	return slices.Compact(ws)
}

// kinds are the words for what a request's written forms are: "url" for
// an address of the web ("https://…", "docs.foo.dev/…"), "file" for a
// path or a file's name ("src/main.go", "~/Downloads", "README.md"),
// "channel" for "#general", "number" and "issue" for "#42", "user" for
// "@alice".
func kinds(query string) []string {
	var out []string
	for _, f := range strings.Fields(query) {
		f = strings.Trim(f, "\"'`()[]<>,;:!?")
		dot := strings.LastIndexByte(f, '.')
		switch {
		case len(f) > 1 && f[0] == '#' && isDigits(f[1:]):
			out = append(out, "number", "issue")
		case len(f) > 1 && f[0] == '#':
			out = append(out, "channel")
		case len(f) > 1 && f[0] == '@':
			out = append(out, "user")
		case strings.Contains(f, "://") || strings.HasPrefix(f, "www."):
			out = append(out, "url")
		case strings.ContainsAny(f, "/~") || dot > 0 && len(f)-dot >= 2 && len(f)-dot <= 5 && isLetters(f[dot+1:]):
			out = append(out, "file")
		}
	}
	return out
}

// isLetters reports whether s is ASCII letters alone.
func isLetters(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// isDigits reports whether s is ASCII digits alone.
func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
