package lexicon

import (
	"errors"
	"sort"
)

// The table, as internal/gen writes it and this file reads it. The two
// counts are little-endian uint32s; every other number is a uvarint
// (encoding/binary). A word is a word id, a synset a synset id.
//
//	"lexicon2"                   magic
//	words, synsets               counts
//	records                      word records, in byte order of the words
//	synsets                      synset records
//
// A word record is the word, front-coded (how many leading bytes it shares
// with the word before, then the length and bytes of the rest: lower-case,
// '_' between the words of a collocation), its base forms by the exception
// lists (a count, then for each a POS byte and a word), and its senses (a
// count, then for each a POS byte, its tag count, its synset, its derived
// words (a count, then words) and its hypernyms (a count, then synsets)).
// A synset record is its words: a count, then words. No offsets are
// stored: loading reads the records once, spelling out the words and
// noting where each record starts.
const (
	magic      = "lexicon2"
	headerSize = 16 // magic and counts
)

// maxWord bounds the words the table holds (WordNet's longest is 71 bytes):
// a longer argument is no word, and is not looked at.
const maxWord = 80

// errBadTable says that the table's header or records do not hold together.
var errBadTable = errors.New("lexicon: the compiled-in table is damaged: regenerate it (CONTRIBUTING.md)")

// table is the compiled-in table: its records read in place, its words
// spelled out and both indexed when it is loaded.
type table struct {
	words, synsets int
	records        string   // the word records
	wordOff        []uint32 // where each word's record starts in records, and where the last ends
	names          string   // the words, one after another
	nameOff        []uint32 // where each word starts in names, and where the last ends
	synRecs        string   // the synset records
	synOff         []uint32 // where each synset's record starts in synRecs, and where the last ends
	notice         string   // WordNet's licence (Notice)
}

// parse reads data's records once: it spells out the words and notes where
// each record starts, so that no lookup can reach past a record. A record
// that reads short or wrong is left to the lookups, which stop at its end.
func parse(data string) (*table, error) {
	if len(data) < headerSize || data[:len(magic)] != magic {
		return nil, errBadTable
	}
	words := uint64(u32(data[len(magic):], 0))
	synsets := uint64(u32(data[len(magic):], 1))
	body := data[headerSize:]
	// Every word record takes at least 4 bytes, every synset record 1:
	// counts past that are damage, not a reason to allocate.
	if 4*words+synsets > uint64(len(body)) {
		return nil, errBadTable
	}
	t := &table{words: int(words), synsets: int(synsets)}
	at, ok := t.readWords(body)
	if !ok {
		return nil, errBadTable
	}
	t.records, t.synRecs = body[:at], body[at:]
	t.synOff = make([]uint32, 0, t.synsets+1)
	at = 0
	for range t.synsets {
		if at >= len(t.synRecs) {
			return nil, errBadTable
		}
		t.synOff = append(t.synOff, uint32(at))
		at = skipList(t.synRecs, at)
	}
	t.synOff = append(t.synOff, uint32(at))
	if at != len(t.synRecs) {
		return nil, errBadTable
	}
	return t, nil
}

// readWords reads the word records at the start of body, spelling out the
// words into t.names, and gives where they end. It reports false when the
// records end early or a word shares more than the word before has.
func (t *table) readWords(body string) (int, bool) {
	t.wordOff = make([]uint32, 0, t.words+1)
	t.nameOff = make([]uint32, 0, t.words+1)
	names := make([]byte, 0, 12*t.words)
	prev, at := 0, 0 // where the word before starts in names; where the record starts in body
	for range t.words {
		if at >= len(body) {
			return 0, false
		}
		t.wordOff = append(t.wordOff, uint32(at))
		start := len(names)
		var shared, n uint64
		shared, at = uvarintAt(body, at)
		n, at = uvarintAt(body, at)
		if shared > uint64(start-prev) || n > uint64(len(body)-at) {
			return 0, false
		}
		names = append(names, names[prev:prev+int(shared)]...)
		names = append(names, body[at:at+int(n)]...)
		t.nameOff = append(t.nameOff, uint32(start))
		prev = start
		at = skipRecord(body, at+int(n))
	}
	t.wordOff = append(t.wordOff, uint32(at))
	t.nameOff = append(t.nameOff, uint32(len(names)))
	t.names = string(names)
	return at, true
}

// Loading reads every record once, by the functions below: they read at an
// index of the table rather than through a cursor, whose every step writes
// the cursor (through the garbage collector's write barrier: loading took
// 18 ms so, 11 ms so). Past the table's end they give its end.

// uvarintAt reads the number at s[i:], and gives it and where it ends.
func uvarintAt(s string, i int) (uint64, int) {
	var n uint64
	for shift := 0; shift < 64 && i < len(s); shift += 7 {
		c := s[i]
		i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n, i
		}
	}
	return 0, len(s)
}

// skipNumbers gives where the n numbers at s[i:] end.
func skipNumbers(s string, i int, n uint64) int {
	for ; n > 0 && i < len(s); i++ {
		if s[i] < 0x80 {
			n--
		}
	}
	return i
}

// skipList gives where the count at s[i:] and that many numbers end.
func skipList(s string, i int) int {
	n, i := uvarintAt(s, i)
	return skipNumbers(s, i, n)
}

// skipRecord gives where the base forms and senses at s[i:] end.
func skipRecord(s string, i int) int {
	n, i := uvarintAt(s, i)
	for ; n > 0 && i < len(s); n-- {
		i = skipNumbers(s, i+1, 1) // POS, word
	}
	n, i = uvarintAt(s, i)
	for ; n > 0 && i < len(s); n-- {
		i = skipNumbers(s, i+1, 2) // POS, tag count, synset
		i = skipList(s, i)         // derived words
		i = skipList(s, i)         // hypernyms
	}
	return i
}

// u32 is the i-th little-endian uint32 of s.
func u32(s string, i int) uint32 {
	return uint32(s[4*i]) | uint32(s[4*i+1])<<8 | uint32(s[4*i+2])<<16 | uint32(s[4*i+3])<<24
}

// record is word id's record after its word: its base forms and senses.
func (t *table) record(id int) string {
	r := cursor{s: t.records[t.wordOff[id]:t.wordOff[id+1]]}
	r.uvarint()
	r.str()
	return r.s
}

// name is word id's word.
func (t *table) name(id int) string {
	return t.names[t.nameOff[id]:t.nameOff[id+1]]
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
	r := cursor{s: t.synRecs[t.synOff[id]:t.synOff[id+1]]}
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
