package lexicon

import (
	"errors"
	"sort"
)

// The table, as internal/gen writes it and this file reads it. All fixed
// numbers are little-endian uint32s; every other number is a uvarint
// (encoding/binary). A word is a word id, a synset a synset id.
//
//	"lexicon1"                   magic
//	words, synsets               counts
//	wordOff[words+1]             where each word's record starts in the records
//	synOff[synsets+1]            where each synset's record starts in the synsets
//	records                      word records, in byte order of the words
//	synsets                      synset records
//
// A word record is the word (its length, then its bytes: lower-case, '_'
// between the words of a collocation), its base forms by the exception
// lists (a count, then for each a POS byte and a word), and its senses (a
// count, then for each a POS byte, its tag count, its synset, its derived
// words (a count, then words) and its hypernyms (a count, then synsets)).
// A synset record is its words: a count, then words.
const (
	magic      = "lexicon1"
	headerSize = 16 // magic and counts
)

// maxWord bounds the words the table holds (WordNet's longest is 71 bytes):
// a longer argument is no word, and is not looked at.
const maxWord = 80

// errBadTable says that the table's header or offsets do not hold together.
var errBadTable = errors.New("lexicon: the compiled-in table is damaged: regenerate it (CONTRIBUTING.md)")

// table is the compiled-in table, read in place.
type table struct {
	words, synsets int
	wordOff        string
	synOff         string
	records        string
	synRecs        string
	notice         string // WordNet's licence (Notice)
}

// parse checks data's header and offsets, so that no lookup can reach past
// a record, and reads nothing else: records are read as they are asked for.
func parse(data string) (*table, error) {
	if len(data) < headerSize || data[:len(magic)] != magic {
		return nil, errBadTable
	}
	words := uint64(u32(data[len(magic):], 0))
	synsets := uint64(u32(data[len(magic):], 1))
	arrays := 4 * (words + 1 + synsets + 1)
	if uint64(len(data)-headerSize) < arrays {
		return nil, errBadTable
	}
	t := &table{
		words:   int(words),
		synsets: int(synsets),
		wordOff: data[headerSize : headerSize+4*(words+1)],
		synOff:  data[headerSize+4*(words+1) : uint64(headerSize)+arrays],
	}
	body := data[uint64(headerSize)+arrays:]
	recordsEnd, ok := ascending(t.wordOff, len(body))
	if !ok {
		return nil, errBadTable
	}
	t.records, t.synRecs = body[:recordsEnd], body[recordsEnd:]
	if end, ok := ascending(t.synOff, len(t.synRecs)); !ok || end != len(t.synRecs) {
		return nil, errBadTable
	}
	return t, nil
}

// ascending reports whether the offsets start at 0 and never fall or pass
// limit, and gives the last.
func ascending(offsets string, limit int) (int, bool) {
	last := 0
	for i := 0; i < len(offsets); i += 4 {
		o := int(u32(offsets, i/4))
		if o < last || o > limit || (i == 0 && o != 0) {
			return 0, false
		}
		last = o
	}
	return last, true
}

// u32 is the i-th little-endian uint32 of s.
func u32(s string, i int) uint32 {
	return uint32(s[4*i]) | uint32(s[4*i+1])<<8 | uint32(s[4*i+2])<<16 | uint32(s[4*i+3])<<24
}

// record is word id's record.
func (t *table) record(id int) string {
	return t.records[u32(t.wordOff, id):u32(t.wordOff, id+1)]
}

// name is word id's word.
func (t *table) name(id int) string {
	r := cursor{s: t.record(id)}
	return r.str()
}

// find gives the id of w, or false when w is no word of the table.
func (t *table) find(w string) (int, bool) {
	id := sort.Search(t.words, func(i int) bool { return t.name(i) >= w })
	return id, id < t.words && t.name(id) == w
}

// members are synset id's words.
func (t *table) members(id int) []int {
	if id < 0 || id >= t.synsets {
		return nil
	}
	r := cursor{s: t.synRecs[u32(t.synOff, id):u32(t.synOff, id+1)]}
	return r.ids(t.words)
}

// cursor reads a record. Past its end, or on a number that cannot be, it
// gives zeros and empties, so that a damaged record reads short, never out
// of bounds.
type cursor struct{ s string }

// uvarint reads a number.
func (r *cursor) uvarint() uint64 {
	var n uint64
	for shift := 0; shift < 64 && len(r.s) > 0; shift += 7 {
		c := r.s[0]
		r.s = r.s[1:]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.s = ""
	return 0
}

// byte reads one byte.
func (r *cursor) byte() byte {
	if len(r.s) == 0 {
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// str reads a length and that many bytes.
func (r *cursor) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.s = ""
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// skip reads past a count and that many numbers.
func (r *cursor) skip() {
	for n := r.uvarint(); n > 0 && len(r.s) > 0; n-- {
		r.uvarint()
	}
}

// ids reads a count and that many ids, each below limit (a count larger
// than the bytes left, or an id out of range, ends the list).
func (r *cursor) ids(limit int) []int {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.s = ""
		return nil
	}
	out := make([]int, 0, n)
	for range n {
		id := r.uvarint()
		if id >= uint64(limit) {
			r.s = ""
			break
		}
		out = append(out, int(id))
	}
	return out
}
