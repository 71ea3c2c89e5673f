package main

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// magic opens a table; lexicon's table.go describes the rest.
const magic = "lexicon2"

// sense is one kept sense of a word, as the table writes it.
type sense struct {
	pos, num  int   // num: the sense's number (1 the most frequent)
	count     int   // times tagged in the concordance
	synset    int   // table id
	derived   []int // word ids
	hypernyms []int // synset ids
}

// form is one base form of an inflected word by an exception list.
type form struct{ pos, base int }

// record is one word's part of the table.
type record struct {
	exc    []form
	senses []sense
}

// builder gathers the table: words by id (sorted), synsets by id (in the
// order the words first meet them).
type builder struct {
	d       *db
	senses  int
	words   []string
	ids     map[string]int
	synsets []key
	synIDs  map[key]int
	read    map[key]synset
}

// build compiles d into a table, keeping the first senses of each word in
// each part of speech.
func build(d *db, senses int) ([]byte, error) {
	if senses < 1 {
		return nil, fmt.Errorf("senses must be at least 1, not %d", senses)
	}
	b := &builder{d: d, senses: senses, ids: map[string]int{}, synIDs: map[key]int{}, read: map[key]synset{}}
	b.collectWords()
	records := make([]record, len(b.words))
	for id, w := range b.words {
		var err error
		if records[id], err = b.record(w); err != nil {
			return nil, err
		}
	}
	members := make([][]int, len(b.synsets))
	for id, k := range b.synsets {
		for _, l := range b.read[k].lemmas {
			if !slices.Contains(members[id], b.ids[l]) {
				members[id] = append(members[id], b.ids[l])
			}
		}
	}
	return b.encode(records, members), nil
}

// collectWords gives an id to every lemma and every inflected form with a
// base form, in byte order.
func (b *builder) collectWords() {
	seen := map[string]bool{}
	for pos := 1; pos <= 4; pos++ {
		for w := range b.d.index[pos] {
			seen[w] = true
		}
		for w := range b.d.exc[pos] {
			if len(b.bases(pos, w)) > 0 {
				seen[w] = true
			}
		}
	}
	for w := range seen {
		b.words = append(b.words, w)
	}
	sort.Strings(b.words)
	for id, w := range b.words {
		b.ids[w] = id
	}
}

// bases gives the base forms of w by pos's exception list that are lemmas
// of pos (morphy keeps no other).
func (b *builder) bases(pos int, w string) []string {
	var out []string
	for _, base := range b.d.exc[pos][w] {
		if _, ok := b.d.index[pos][base]; ok && !slices.Contains(out, base) {
			out = append(out, base)
		}
	}
	return out
}

// record makes w's record: its base forms by the exception lists, and its
// first senses in each part of speech.
func (b *builder) record(w string) (record, error) {
	var r record
	for pos := 1; pos <= 4; pos++ {
		for _, base := range b.bases(pos, w) {
			r.exc = append(r.exc, form{pos, b.ids[base]})
		}
		offsets := b.d.index[pos][w]
		for i, off := range offsets[:min(len(offsets), b.senses)] {
			s, err := b.sense(w, key{pos, off})
			if err != nil {
				return record{}, err
			}
			s.num = i + 1
			s.count = b.d.counts[senseKey{w, pos, s.num}]
			r.senses = append(r.senses, s)
		}
	}
	// The most tagged first; among equals, the first senses of each part
	// of speech before the second.
	slices.SortStableFunc(r.senses, func(x, y sense) int {
		if x.count != y.count {
			return y.count - x.count
		}
		return x.num - y.num
	})
	return r, nil
}

// sense makes w's sense in the synset k: the synset's id, the words
// derived from w there ('+'), and its hypernyms ('@', '@i').
func (b *builder) sense(w string, k key) (sense, error) {
	s, err := b.synset(k)
	if err != nil {
		return sense{}, err
	}
	out := sense{pos: k.pos, synset: b.synsetID(k)}
	for _, p := range s.pointers {
		switch {
		case p.symbol == "@" || p.symbol == "@i":
			if _, err := b.synset(p.target); err != nil {
				return sense{}, err
			}
			out.hypernyms = append(out.hypernyms, b.synsetID(p.target))
		case p.symbol == "+" && p.source > 0 && p.source <= len(s.lemmas) && s.lemmas[p.source-1] == w:
			t, err := b.synset(p.target)
			if err != nil {
				return sense{}, err
			}
			if p.toWord < 1 || p.toWord > len(t.lemmas) {
				return sense{}, fmt.Errorf("synset %v: pointer to word %d of %d", k, p.toWord, len(t.lemmas))
			}
			if id, ok := b.ids[t.lemmas[p.toWord-1]]; ok && id != b.ids[w] && !slices.Contains(out.derived, id) {
				out.derived = append(out.derived, id)
			}
		}
	}
	return out, nil
}

// synset reads the synset at k once, and checks that its words are words
// of the table.
func (b *builder) synset(k key) (synset, error) {
	if s, ok := b.read[k]; ok {
		return s, nil
	}
	s, err := b.d.synset(k)
	if err != nil {
		return synset{}, err
	}
	for _, l := range s.lemmas {
		if _, ok := b.ids[l]; !ok {
			return synset{}, fmt.Errorf("synset %v: %q is in no index", k, l)
		}
	}
	b.read[k] = s
	return s, nil
}

// synsetID gives k its id the first time it is asked.
func (b *builder) synsetID(k key) int {
	id, ok := b.synIDs[k]
	if !ok {
		id = len(b.synsets)
		b.synIDs[k] = id
		b.synsets = append(b.synsets, k)
	}
	return id
}

// encode writes the table: the header, the word records (each word
// front-coded against the word before) and the synset records.
func (b *builder) encode(records []record, members [][]int) []byte {
	out := []byte(magic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(records)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(members)))
	prev := ""
	for id, r := range records {
		w := b.words[id]
		shared := 0
		for shared < min(len(prev), len(w)) && prev[shared] == w[shared] {
			shared++
		}
		out = binary.AppendUvarint(out, uint64(shared))
		out = binary.AppendUvarint(out, uint64(len(w)-shared))
		out = append(out, w[shared:]...)
		out = appendExc(out, r.exc)
		out = appendSenses(out, r.senses)
		prev = w
	}
	for _, m := range members {
		out = appendInts(out, m)
	}
	return out
}

// appendExc writes a count, then each base form's POS and word id.
func appendExc(out []byte, exc []form) []byte {
	out = binary.AppendUvarint(out, uint64(len(exc)))
	for _, f := range exc {
		out = append(out, byte(f.pos))
		out = binary.AppendUvarint(out, uint64(f.base))
	}
	return out
}

// appendSenses writes a count, then each sense's POS, tag count, synset
// id, derived words and hypernym synsets.
func appendSenses(out []byte, senses []sense) []byte {
	out = binary.AppendUvarint(out, uint64(len(senses)))
	for _, s := range senses {
		out = append(out, byte(s.pos))
		out = binary.AppendUvarint(out, uint64(s.count))
		out = binary.AppendUvarint(out, uint64(s.synset))
		out = appendInts(out, s.derived)
		out = appendInts(out, s.hypernyms)
	}
	return out
}

// appendInts writes a count, then each number, as uvarints.
func appendInts(out []byte, ns []int) []byte {
	out = binary.AppendUvarint(out, uint64(len(ns)))
	for _, n := range ns {
		out = binary.AppendUvarint(out, uint64(n))
	}
	return out
}
