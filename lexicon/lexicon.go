package lexicon

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// wordnetTable is WordNet 3.0 compiled by internal/gen: its records are
// read in place, its front-coded words spelled out when it is loaded.
// `go generate ./lexicon` makes it again (CONTRIBUTING.md).
//
//go:generate go run ./internal/gen -o data/wordnet.bin
//go:embed data/wordnet.bin
var wordnetTable string

// notice is WordNet's licence, which asks that it go with every copy of
// the database.
//
//go:embed data/LICENSE
var notice string

// Notice gives WordNet's licence notice and where the table comes from,
// for a program that embeds the table to show. Any binary that holds the
// table holds the notice too (the loaded table refers to it, so the
// linker keeps both or neither).
func Notice() string { return loaded().notice }

// loaded is the table, parsed on first use. The tests hold the
// compiled-in table to parse, so a failure is a broken build.
var loaded = sync.OnceValue(func() *table {
	t, err := parse(wordnetTable)
	if err != nil {
		panic(err)
	}
	t.notice = notice
	return t
})

// POS is a part of speech.
type POS uint8

// The parts of speech, in WordNet's order (Adjective includes WordNet's
// adjective satellites).
const (
	Noun POS = 1 + iota
	Verb
	Adjective
	Adverb
)

// String is the part of speech's name.
func (p POS) String() string {
	switch p {
	case Noun:
		return "noun"
	case Verb:
		return "verb"
	case Adjective:
		return "adjective"
	case Adverb:
		return "adverb"
	}
	return "unknown"
}

// Relations are the words WordNet relates to a word: each a lemma,
// lower-case, with '_' between the words of a collocation ("take_away").
type Relations struct {
	// Synonyms are the other words of its synsets.
	Synonyms []string
	// Derived are its derivationally related forms ("delete" and
	// "deletion"), WordNet's pointer '+'.
	Derived []string
	// Hypernyms are the words of the synsets its synsets are kinds or
	// instances of ("hyperlink" is a "link"), WordNet's '@' and '@i'.
	Hypernyms []string
}

// Sense is one meaning of a word and what WordNet relates to it there.
type Sense struct {
	POS POS
	// Count is how many times the sense was tagged in WordNet's semantic
	// concordance (cntlist.rev): how common it is; most senses have 0.
	Count int
	Relations
}

// Senses gives the senses of the lemma word (Base gives the lemmas of an
// inflected word; case, and spaces for '_' as in "Take Away", do not
// matter), the most tagged first and, among equals, the first of each part
// of speech before the second. The table keeps the first three senses of a
// word in each part of speech (internal/gen's -senses): rarer ones are
// mostly noise to a search. A word WordNet does not have has none.
func Senses(word string) []Sense { return loaded().senses(word) }

// senses is Senses over t.
func (t *table) senses(word string) []Sense {
	id, ok := t.lookup(word)
	if !ok {
		return nil
	}
	r := cursor{s: t.record(id)}
	skipExceptions(&r)
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		return nil
	}
	out := make([]Sense, 0, n)
	for range n {
		out = append(out, t.sense(&r, id))
	}
	return out
}

// Related gives the relations of all of word's senses (Senses), in their
// order, each word once.
func Related(word string) Relations {
	var out Relations
	for _, s := range loaded().senses(word) {
		out.Synonyms = appendNew(out.Synonyms, s.Synonyms)
		out.Derived = appendNew(out.Derived, s.Derived)
		out.Hypernyms = appendNew(out.Hypernyms, s.Hypernyms)
	}
	return out
}

// appendNew appends those of words that out does not hold yet.
func appendNew(out, words []string) []string {
	for _, w := range words {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// sense reads one sense of word id.
func (t *table) sense(r *cursor, id int) Sense {
	s := Sense{POS: POS(r.byte()), Count: int(r.uvarint())}
	for _, m := range t.members(int(r.uvarint())) {
		if m != id {
			s.Synonyms = append(s.Synonyms, t.name(m))
		}
	}
	for _, d := range r.ids(t.words) {
		s.Derived = append(s.Derived, t.name(d))
	}
	for _, h := range r.ids(t.synsets) {
		for _, m := range t.members(h) {
			if m != id {
				s.Hypernyms = append(s.Hypernyms, t.name(m))
			}
		}
	}
	return s
}

// skipExceptions reads past a record's base forms.
func skipExceptions(r *cursor) {
	for n := r.uvarint(); n > 0 && len(r.s) > 0; n-- {
		r.byte()
		r.uvarint()
	}
}

// lookup finds word as normal gives it.
func (t *table) lookup(word string) (int, bool) {
	w, ok := normal(word)
	if !ok {
		return 0, false
	}
	return t.find(w)
}

// normal gives word as the table spells words: ASCII letters lower-cased,
// spaces as '_' (WordNet has no other letters), or false for a word longer
// than any of the table's.
func normal(word string) (string, bool) {
	if len(word) == 0 || len(word) > maxWord {
		return "", false
	}
	if !strings.ContainsFunc(word, func(r rune) bool { return r == ' ' || 'A' <= r && r <= 'Z' }) {
		return word, true
	}
	w := []byte(word)
	for i, c := range w {
		switch {
		case 'A' <= c && c <= 'Z':
			w[i] = c + 'a' - 'A'
		case c == ' ':
			w[i] = '_'
		}
	}
	return string(w), true
}
