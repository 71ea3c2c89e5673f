package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The parts of speech in the order of the table's POS codes (1 to 4), by
// the suffix of their WordNet files and the letter their pointers use.
var parts = []struct {
	file   string
	letter byte
}{{"noun", 'n'}, {"verb", 'v'}, {"adj", 'a'}, {"adv", 'r'}}

// partOf gives the table's POS code of a pointer's part-of-speech letter
// (adjective satellites, 's', live in data.adj), or 0.
func partOf(letter string) int {
	if letter == "s" {
		letter = "a"
	}
	for i, p := range parts {
		if letter == string(p.letter) {
			return i + 1
		}
	}
	return 0
}

// db is what the generator reads of a WordNet database (wndb(5)).
type db struct {
	// index maps a POS code (1-4) to its lemmas and their synsets'
	// offsets, most frequent sense first (index.*).
	index [5]map[string][]int
	// data holds each POS's data file whole (data.*): a synset is the
	// line at its offset.
	data [5][]byte
	// exc maps a POS code to its inflected forms and their base forms
	// (*.exc).
	exc [5]map[string][]string
	// counts holds how many times each sense was tagged in WordNet's
	// semantic concordance (cntlist.rev), by senseKey; most have none.
	counts map[senseKey]int
}

// senseKey names a word's sense: its lemma, POS code and sense number (1 is
// the most frequent).
type senseKey struct {
	lemma    string
	pos, num int
}

// readDB reads the index, data and exception files of dir.
func readDB(dir string) (*db, error) {
	d := &db{}
	var err error
	if d.counts, err = readCounts(filepath.Join(dir, "cntlist.rev")); err != nil {
		return nil, err
	}
	for i, p := range parts {
		code := i + 1
		if d.index[code], err = readIndex(filepath.Join(dir, "index."+p.file)); err != nil {
			return nil, err
		}
		if d.data[code], err = os.ReadFile(filepath.Join(dir, "data."+p.file)); err != nil {
			return nil, err
		}
		if d.exc[code], err = readExc(filepath.Join(dir, p.file+".exc")); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// readIndex reads an index file: lemma pos synset_cnt p_cnt [ptr_symbol...]
// sense_cnt tagsense_cnt synset_offset... Lines that start with a space
// are the licence.
func readIndex(path string) (map[string][]int, error) {
	out := map[string][]int{}
	err := eachLine(path, func(line string) error {
		if strings.HasPrefix(line, " ") {
			return nil
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("short line %q", line)
		}
		synsets, err := strconv.Atoi(f[2])
		if err != nil || synsets < 1 || len(f) < synsets {
			return fmt.Errorf("bad synset count in %q", line)
		}
		offsets := make([]int, synsets)
		for i, s := range f[len(f)-synsets:] {
			if offsets[i], err = strconv.Atoi(s); err != nil {
				return fmt.Errorf("bad offset in %q", line)
			}
		}
		out[f[0]] = offsets
		return nil
	})
	return out, err
}

// readCounts reads cntlist.rev: sense_key sense_number tag_cnt, where a
// sense key is lemma%ss_type:lex_filenum:lex_id:head_word:head_id and
// ss_type 1 to 5 is noun, verb, adjective, adverb, adjective satellite.
func readCounts(path string) (map[senseKey]int, error) {
	out := map[senseKey]int{}
	err := eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("not three fields: %q", line)
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		num, err := strconv.Atoi(f[1])
		count, err2 := strconv.Atoi(f[2])
		if !ok || rest == "" || rest[0] < '1' || rest[0] > '5' || err != nil || err2 != nil {
			return fmt.Errorf("bad line %q", line)
		}
		pos := [...]int{1, 2, 3, 4, 3}[rest[0]-'1']
		out[senseKey{lemma, pos, num}] += count
		return nil
	})
	return out, err
}

// readExc reads an exception file: an inflected form, then its base forms.
func readExc(path string) (map[string][]string, error) {
	out := map[string][]string{}
	err := eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return fmt.Errorf("short line %q", line)
		}
		out[f[0]] = append(out[f[0]], f[1:]...)
		return nil
	})
	return out, err
}

// eachLine calls fn with each line of the file at path, naming the file in
// its errors.
func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if err := fn(sc.Text()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// synset is what the table keeps of a data file's line.
type synset struct {
	// lemmas are its words, lower-case, adjective markers ("(p)") cut.
	lemmas []string
	// pointers are its relations.
	pointers []pointer
}

// pointer is one relation of a synset: its symbol ("@", "+", ...), its
// target synset, and for a lexical pointer the source and target words (1
// based; 0 for a relation of the whole synset).
type pointer struct {
	symbol         string
	target         key
	source, toWord int
}

// key names a synset: its POS code and its offset in that data file.
type key struct{ pos, offset int }

// synset reads the synset at k: synset_offset lex_filenum ss_type w_cnt
// [word lex_id...] p_cnt [ptr...] ... | gloss.
func (d *db) synset(k key) (synset, error) {
	data := d.data[k.pos]
	if k.offset < 0 || k.offset >= len(data) {
		return synset{}, fmt.Errorf("synset %d of POS %d: no such offset", k.offset, k.pos)
	}
	line := data[k.offset:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	if bar := bytes.IndexByte(line, '|'); bar >= 0 {
		line = line[:bar]
	}
	s, err := parseSynset(strings.Fields(string(line)))
	if err != nil {
		return synset{}, fmt.Errorf("synset %d of POS %d: %w", k.offset, k.pos, err)
	}
	return s, nil
}

// parseSynset reads a data line's fields.
func parseSynset(f []string) (synset, error) {
	if len(f) < 4 {
		return synset{}, fmt.Errorf("short line")
	}
	words, err := strconv.ParseInt(f[3], 16, 32)
	at := 4 + 2*int(words)
	if err != nil || words < 1 || len(f) <= at {
		return synset{}, fmt.Errorf("bad word count %q", f[3])
	}
	var s synset
	for i := 0; i < int(words); i++ {
		w := strings.ToLower(f[4+2*i])
		if paren := strings.IndexByte(w, '('); paren > 0 {
			w = w[:paren]
		}
		s.lemmas = append(s.lemmas, w)
	}
	ptrs, err := strconv.Atoi(f[at])
	if err != nil || ptrs < 0 || len(f) < at+1+4*ptrs {
		return synset{}, fmt.Errorf("bad pointer count %q", f[at])
	}
	for i := 0; i < ptrs; i++ {
		p, err := parsePointer(f[at+1+4*i : at+5+4*i])
		if err != nil {
			return synset{}, err
		}
		s.pointers = append(s.pointers, p)
	}
	return s, nil
}

// parsePointer reads pointer_symbol synset_offset pos source/target.
func parsePointer(f []string) (pointer, error) {
	offset, err := strconv.Atoi(f[1])
	pos := partOf(f[2])
	st, err2 := strconv.ParseUint(f[3], 16, 16)
	if err != nil || err2 != nil || pos == 0 || len(f[3]) != 4 {
		return pointer{}, fmt.Errorf("bad pointer %q", strings.Join(f, " "))
	}
	return pointer{
		symbol: f[0],
		target: key{pos, offset},
		source: int(st >> 8),
		toWord: int(st & 0xff),
	}, nil
}
