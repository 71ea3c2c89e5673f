package lexicon

import "strings"

// detachments are WordNet's rules for a word's base form by its ending
// (morphy(7WN)), by part of speech: an ending, and what takes its place.
var detachments = [...][]struct{ suffix, ending string }{
	Noun:      {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	Verb:      {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	Adjective: {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	Adverb:    nil,
}

// Base gives the lemmas that word may be a form of, as WordNet's morphy
// finds them, in each part of speech: word itself when it is a lemma there,
// then the base forms its exception lists give ("went": "go", "indices":
// "index"), or, for a word they do not list, the lemmas its detachment rules
// make ("deleted": "delete", "boxes": "box"). Each lemma comes once, nouns'
// first; nil when there is none. Case and spaces are taken as Senses takes
// them.
func Base(word string) []string { return loaded().base(word) }

// base is Base over t.
func (t *table) base(word string) []string {
	w, ok := normal(word)
	if !ok {
		return nil
	}
	id, known := t.find(w)
	var exceptions [5][]string
	var parts [5]bool
	if known {
		exceptions, parts = t.forms(id)
	}
	var out []string
	for pos := Noun; pos <= Adverb; pos++ {
		if parts[pos] {
			out = appendNew(out, []string{t.name(id)})
		}
		if exceptions[pos] != nil {
			out = appendNew(out, exceptions[pos])
			continue
		}
		out = appendNew(out, t.detach(w, pos))
	}
	return out
}

// forms reads word id's base forms by the exception lists, and the parts
// of speech it is a lemma of.
func (t *table) forms(id int) (exceptions [5][]string, parts [5]bool) {
	r := cursor{s: t.record(id)}
	for n := r.uvarint(); n > 0 && len(r.s) > 0; n-- {
		pos := r.byte()
		base := r.uvarint()
		if pos <= byte(Adverb) && base < uint64(t.words) {
			exceptions[pos] = append(exceptions[pos], t.name(int(base)))
		}
	}
	for n := r.uvarint(); n > 0 && len(r.s) > 0; n-- {
		if pos := r.byte(); pos <= byte(Adverb) {
			parts[pos] = true
		}
		r.uvarint()
		r.uvarint()
		r.skip()
		r.skip()
	}
	return exceptions, parts
}

// detach gives the lemmas of pos that pos's detachment rules make of w.
// Like morphy, it leaves nouns that end in "ss" and words of two letters
// or fewer alone.
func (t *table) detach(w string, pos POS) []string {
	if len(w) <= 2 || (pos == Noun && strings.HasSuffix(w, "ss")) {
		return nil
	}
	var out []string
	for _, d := range detachments[pos] {
		stem, ok := strings.CutSuffix(w, d.suffix)
		if !ok || stem == "" {
			continue
		}
		base := stem + d.ending
		if id, ok := t.find(base); ok && t.isLemma(id, pos) {
			out = append(out, t.name(id))
		}
	}
	return out
}

// isLemma reports whether word id has a sense in pos.
func (t *table) isLemma(id int, pos POS) bool {
	_, parts := t.forms(id)
	return parts[pos]
}
