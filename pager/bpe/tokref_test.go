package bpe

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tokrefPath is the reference table that testdata/tokref/generate.mjs makes
// with tiktoken.
var tokrefPath = filepath.Join("..", "..", "testdata", "tokref", "table.gz")

// tokrefHeader is the table's first line: the parameters of the rule that
// makes its strings (see generate.mjs).
type tokrefHeader struct {
	Tiktoken      string            `json:"tiktoken"`
	Encodings     []string          `json:"encodings"`
	VocabSHA256   map[string]string `json:"vocab_sha256"`
	Group         int               `json:"group"`
	SweepBlock    int               `json:"sweep_block"`
	SweepContexts [][]string        `json:"sweep_contexts"`
	Seed          uint32            `json:"seed"`
	Random        int               `json:"random"`
	MaxAtoms      uint32            `json:"max_atoms"`
	Long          int               `json:"long"`
	LongMinAtoms  uint32            `json:"long_min_atoms"`
	LongMoreAtoms uint32            `json:"long_more_atoms"`
	RunBytes      int               `json:"run_bytes"`
	Atoms         []json.RawMessage `json:"atoms"`
}

// tokrefGroup is one line of the table after the header.
type tokrefGroup struct {
	textHash uint32
	idHashes []uint32 // per encoding
	counts   [][]int  // per encoding, per string
}

func readTokref(t *testing.T) (tokrefHeader, []tokrefGroup) {
	t.Helper()
	f, err := os.Open(tokrefPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	var h tokrefHeader
	if !sc.Scan() {
		t.Fatalf("%s: no header", tokrefPath)
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		t.Fatalf("%s: header: %v", tokrefPath, err)
	}
	var groups []tokrefGroup
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		n := len(h.Encodings)
		if len(fields) != 1+2*n {
			t.Fatalf("%s: line %d has %d fields", tokrefPath, len(groups)+2, len(fields))
		}
		g := tokrefGroup{textHash: parseHex(t, fields[0])}
		for k := range n {
			g.idHashes = append(g.idHashes, parseHex(t, fields[1+k]))
			var counts []int
			for _, c := range strings.Split(fields[1+n+k], ",") {
				v, err := strconv.Atoi(c)
				if err != nil {
					t.Fatalf("%s: line %d: %v", tokrefPath, len(groups)+2, err)
				}
				counts = append(counts, v)
			}
			g.counts = append(g.counts, counts)
		}
		groups = append(groups, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return h, groups
}

func parseHex(t *testing.T, s string) uint32 {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// tokrefStrings makes the table's strings by generate.mjs's rule: the
// sweep of every scalar value in each context, the random strings, the long
// ones, and the runs.
func tokrefStrings(t *testing.T, h tokrefHeader) iter.Seq[string] {
	type atom struct {
		lit    string
		lo, hi uint32
	}
	atoms := make([]atom, len(h.Atoms))
	for i, raw := range h.Atoms {
		if json.Unmarshal(raw, &atoms[i].lit) == nil {
			continue
		}
		var r [2]uint32
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("atom %d: %s: %v", i, raw, err)
		}
		atoms[i].lo, atoms[i].hi = r[0], r[1]
	}
	return func(yield func(string) bool) {
		var block []string
		for c := rune(0); c <= 0x10ffff; c++ {
			if c >= 0xd800 && c <= 0xdfff {
				continue
			}
			block = append(block, string(c))
			if len(block) < h.SweepBlock && c < 0x10ffff {
				continue
			}
			for _, ctx := range h.SweepContexts {
				var b strings.Builder
				for _, ch := range block {
					b.WriteString(strings.Join(ctx, ch))
				}
				if !yield(b.String()) {
					return
				}
			}
			block = block[:0]
		}
		rng := mulberry32{a: h.Seed}
		for i := range h.Random + h.Long {
			var b strings.Builder
			var n uint32
			if i < h.Random {
				n = 1 + rng.next()%h.MaxAtoms
			} else {
				n = h.LongMinAtoms + rng.next()%h.LongMoreAtoms
			}
			for ; n > 0; n-- {
				a := atoms[rng.next()%uint32(len(atoms))]
				if a.hi == 0 {
					b.WriteString(a.lit)
					continue
				}
				c := a.lo + rng.next()%(a.hi-a.lo+1)
				if c >= 0xd800 && c <= 0xdfff {
					c += 0x800
				}
				b.WriteRune(rune(c))
			}
			if !yield(b.String()) {
				return
			}
		}
		for _, a := range atoms {
			if a.hi != 0 {
				continue
			}
			s := a.lit
			for len(s) < h.RunBytes {
				s += a.lit
			}
			if !yield(s) {
				return
			}
		}
	}
}

// mulberry32 is the generator generate.mjs draws the random strings from.
type mulberry32 struct{ a uint32 }

func (m *mulberry32) next() uint32 {
	m.a += 0x6d2b79f5
	t := (m.a ^ m.a>>15) * (1 | m.a)
	t = (t + (t^t>>7)*(61|t)) ^ t
	return t ^ t>>14
}

const fnvOffset, fnvPrime = 0x811c9dc5, 0x01000193

func fnvBytes(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

func fnvIDs(h uint32, ids []uint32) uint32 {
	for _, id := range ids {
		for k := 0; k < 32; k += 8 {
			h = (h ^ id>>k&0xff) * fnvPrime
		}
	}
	return h
}

// TestTokref checks every string of tiktoken's reference table: each
// encoding gives the same count as tiktoken's encode_ordinary, and the same
// token ids (checked by a hash per group of strings).
func TestTokref(t *testing.T) {
	h, groups := readTokref(t)
	encs := make([]*Encoding, len(h.Encodings))
	for k, name := range h.Encodings {
		encs[k] = load(t, name)
		if got := vocabSHA256(t, name); got != h.VocabSHA256[name] {
			t.Errorf("%s: the compiled-in vocabulary has SHA-256 %s, the table was made from %s", name, got, h.VocabSHA256[name])
		}
	}
	var (
		group    []string
		g        int
		strs     int
		failures int
	)
	check := func() {
		if g >= len(groups) {
			t.Fatalf("more strings than the table's %d groups", len(groups))
		}
		want := groups[g]
		textHash := uint32(fnvOffset)
		for _, s := range group {
			textHash = fnvBytes(textHash, s)
		}
		if textHash != want.textHash {
			t.Fatalf("group %d: the strings are not the ones generate.mjs made (text hash %08x, want %08x)", g, textHash, want.textHash)
		}
		for k, enc := range encs {
			idHash := uint32(fnvOffset)
			for i, s := range group {
				ids := enc.Encode(s)
				idHash = fnvIDs(idHash, ids)
				if back, err := enc.Decode(ids); err != nil || string(back) != s {
					failures++
					if failures <= 20 {
						t.Errorf("%s: %+q: Decode(Encode) gives %+q, %v", enc.Name(), abbreviate(s), abbreviate(string(back)), err)
					}
				}
				n := enc.Count(s)
				if n != len(ids) || n != want.counts[k][i] {
					failures++
					if failures <= 20 {
						t.Errorf("%s: %+q: Count %d, len(Encode) %d, tiktoken %d", enc.Name(), abbreviate(s), n, len(ids), want.counts[k][i])
					}
				}
			}
			if idHash != want.idHashes[k] {
				failures++
				if failures <= 20 {
					t.Errorf("%s: group %d (strings %d to %d): token ids differ from tiktoken's", enc.Name(), g, strs-len(group), strs-1)
				}
			}
		}
		group, g = group[:0], g+1
	}
	for s := range tokrefStrings(t, h) {
		group = append(group, s)
		strs++
		if len(group) == h.Group {
			check()
		}
	}
	if len(group) > 0 {
		check()
	}
	if g != len(groups) {
		t.Errorf("made %d groups of strings, the table has %d", g, len(groups))
	}
	t.Logf("%d strings from tiktoken %s, %d differences", strs, h.Tiktoken, failures)
}

// abbreviate keeps a long string's first 100 bytes, cut at a code point.
func abbreviate(s string) string {
	if len(s) <= 100 {
		return s
	}
	return strings.ToValidUTF8(s[:100], "") + "…"
}

func vocabSHA256(t *testing.T, name string) string {
	sum := sha256.Sum256([]byte(load(t, name).vocab.tokens))
	return hex.EncodeToString(sum[:])
}

func load(tb testing.TB, name string) *Encoding {
	tb.Helper()
	e, err := Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
