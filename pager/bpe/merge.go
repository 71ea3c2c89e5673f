package bpe

import "slices"

// noRank marks a pair that is no token.
const noRank = ^uint32(0)

// longPiece is the piece length from which merge uses buckets by rank:
// below it the plain scan of tiktoken, whose quadratic cost is smaller than
// the buckets' upkeep on short pieces.
const longPiece = 64

// merge appends the tokens that byte-pair encoding merges piece, of at
// least two bytes, into: it merges the adjacent pair that forms the token of
// lowest rank, the leftmost one among equals, until no pair forms a token.
func (v *vocab) merge(piece string, m *merger, ids []uint32) []uint32 {
	if len(piece) < longPiece {
		return v.mergeScan(piece, m, ids)
	}
	return v.mergeLong(piece, m, ids)
}

// joinBits sizes the cache of joined ranks.
const joinBits = 15

// joinCache remembers the rank of the token that joins two tokens, for
// the counts of one encoding that use one merger: text repeats the same
// pairs. An entry packs both ranks and the rank they join into (rankMask
// for none) in one word. Each merger has its own, so that the cores
// counting at once do not write to the same memory.
type joinCache [1 << joinBits]uint64

const joinValid = 1 << 63

// joined returns the rank of the token that joins the tokens of ranks a and
// b, whose bytes are s, or noRank.
func (m *merger) joined(v *vocab, a, b uint32, s string) uint32 {
	key := uint64(a)<<(2*rankBits) | uint64(b)<<rankBits
	e := &m.joins[(key*0x9e3779b97f4a7c15)>>(64-joinBits)]
	if got := *e; got&^rankMask == joinValid|key {
		if r := uint32(got & rankMask); r != rankMask {
			return r
		}
		return noRank
	}
	r, ok := v.rank(s)
	if !ok {
		r = rankMask
	}
	*e = joinValid | key | uint64(r)
	if !ok {
		return noRank
	}
	return r
}

// pairRank is the rank of the token piece[a:b], or noRank.
func (v *vocab) pairRank(piece string, a, b int) uint32 {
	if r, ok := v.rank(piece[a:b]); ok {
		return r
	}
	return noRank
}

// mergeScan is tiktoken's own merge: a list of parts, each with the rank of
// it joined to the next, scanned for the lowest rank after every merge.
func (v *vocab) mergeScan(piece string, m *merger, ids []uint32) []uint32 {
	type part struct {
		start int
		rank  uint32 // the part's token
		pair  uint32 // the token of this part joined with the next one
	}
	var buf [longPiece + 1]part
	parts := buf[:0]
	if len(piece) >= len(buf) {
		parts = make([]part, 0, len(piece)+1)
	}
	minRank, minAt := noRank, 0
	for i := 0; i+1 < len(piece); i++ {
		r := v.pairRank(piece, i, i+2)
		if r < minRank {
			minRank, minAt = r, i
		}
		parts = append(parts, part{i, v.bytes[piece[i]], r})
	}
	parts = append(parts, part{len(piece) - 1, v.bytes[piece[len(piece)-1]], noRank}, part{len(piece), noRank, noRank})
	for minRank != noRank {
		// Parts i and i+1 become the token minRank: join it with the
		// parts on either side.
		i := minAt
		if i > 0 {
			parts[i-1].pair = m.joined(v, parts[i-1].rank, minRank, piece[parts[i-1].start:parts[i+2].start])
		}
		parts[i].rank, parts[i].pair = minRank, noRank
		if i+3 < len(parts) {
			parts[i].pair = m.joined(v, minRank, parts[i+2].rank, piece[parts[i].start:parts[i+3].start])
		}
		parts = append(parts[:i+1], parts[i+2:]...)
		minRank = noRank
		for j, p := range parts[:len(parts)-1] {
			if p.pair < minRank {
				minRank, minAt = p.pair, j
			}
		}
	}
	for _, p := range parts[:len(parts)-1] {
		ids = append(ids, p.rank)
	}
	return ids
}

// mergeLong merges as mergeScan does, in about linear time: the parts are a
// linked list over the piece's bytes, and the pairs that form a token wait
// in buckets by rank. The buckets are taken lowest rank first, each pair of
// a bucket from left to right, so that the leftmost of equal ranks merges
// first. A pair whose parts have changed since it was queued is skipped.
func (v *vocab) mergeLong(piece string, m *merger, ids []uint32) []uint32 {
	n := int32(len(piece))
	m.reset(len(piece))
	nodes := m.nodes
	for i := range nodes {
		nodes[i] = node{next: int32(i) + 1, prev: int32(i) - 1, pair: noRank}
		if i < len(piece) {
			nodes[i].rank = v.bytes[piece[i]]
		}
	}
	// joined is the rank of the part at i joined with the next one.
	joined := func(i int32) uint32 {
		j := nodes[i].next
		if j >= n {
			return noRank
		}
		return m.joined(v, nodes[i].rank, nodes[j].rank, piece[i:nodes[j].next])
	}
	q := &m.queue
	for i := int32(0); i+1 < n; i++ {
		if r := v.pairRank(piece, int(i), int(i)+2); r != noRank {
			nodes[i].pair = r
			q.push(r, i)
		}
	}
	for {
		r, starts := q.next()
		if starts == nil {
			break
		}
		for x, i := range starts {
			if nodes[i].pair != r {
				continue
			}
			j := nodes[i].next
			k := nodes[j].next
			nodes[j].pair = noRank
			nodes[i].next, nodes[i].rank = k, r
			if k < n {
				nodes[k].prev = i
			}
			// The new part's pair with the next part waits only when the
			// next part does not merge right after in this bucket: that
			// merge makes the pair again, as its previous one.
			if nodes[i].pair = joined(i); nodes[i].pair != noRank && !(nodes[i].pair > r && k < n && nodes[k].pair == r) {
				q.push(nodes[i].pair, i)
			}
			if b := nodes[i].prev; b >= 0 {
				if nodes[b].pair = joined(b); nodes[b].pair != noRank {
					q.push(nodes[b].pair, b)
				}
			}
			if q.below(r) {
				// A merge made a pair of lower rank: it goes first, and
				// the rest of this bucket waits.
				for _, s := range starts[x+1:] {
					q.push(r, s)
				}
				break
			}
		}
		q.release(starts)
	}
	for i := int32(0); i < n; i = nodes[i].next {
		ids = append(ids, nodes[i].rank)
	}
	return ids
}

// node is a part of a piece being merged, at the byte it starts at.
type node struct {
	next int32  // start of the next part, or the piece's length
	prev int32  // start of the previous part, or -1
	rank uint32 // the part's token
	pair uint32 // the token of this part joined with the next, or noRank
}

// merger holds what merging needs, to be used again: one goroutine's.
type merger struct {
	nodes []node // long pieces'
	queue rankQueue
	joins joinCache
}

func (m *merger) reset(n int) {
	if cap(m.nodes) < n+1 {
		m.nodes = make([]node, n+1)
	}
	m.nodes = m.nodes[:n+1]
	m.queue.reset()
}

// rankQueue holds the starts of pairs in buckets by rank, and the ranks of
// the buckets that are not empty in a min-heap. In BPE a merged token is
// almost always of higher rank than the tokens it joins, so that the pairs
// a merge makes go into buckets after the one being taken.
type rankQueue struct {
	slots   []int32 // open addressing by rank: bucket index + 1, or 0
	ranks   []uint32
	buckets [][]int32
	heap    []int32 // indexes of the non-empty buckets, by rank
	used    int     // buckets in use
	taken   int32   // the bucket next took
	recent  [16]struct {
		rank uint32
		b    int32 // bucket index + 1, or 0
	}
}

func (q *rankQueue) reset() {
	if len(q.slots) > 1024 || q.slots == nil {
		// A piece with many ranks made the table large: start small
		// again, so that short pieces do not pay for clearing it.
		q.slots = make([]int32, 64)
	}
	clear(q.slots)
	clear(q.recent[:])
	for i := range q.used {
		q.buckets[i] = q.buckets[i][:0]
	}
	q.ranks, q.heap, q.used = q.ranks[:0], q.heap[:0], 0
}

// bucket returns the index of rank's bucket, making it when it is new.
func (q *rankQueue) bucket(rank uint32) int32 {
	if m := &q.recent[rank%uint32(len(q.recent))]; m.b > 0 && m.rank == rank {
		return m.b - 1
	}
	b := q.find(rank)
	q.recent[rank%uint32(len(q.recent))] = struct {
		rank uint32
		b    int32
	}{rank, b + 1}
	return b
}

// find looks rank's bucket up, making it when it is new.
func (q *rankQueue) find(rank uint32) int32 {
	mask := uint32(len(q.slots) - 1)
	for i := (rank * 0x9e3779b1) & mask; ; i = (i + 1) & mask {
		switch b := q.slots[i]; {
		case b == 0:
			if 2*(q.used+1) > len(q.slots) {
				q.grow()
				return q.find(rank)
			}
			if q.used == len(q.buckets) {
				q.buckets = append(q.buckets, nil)
			}
			q.ranks = append(q.ranks, rank)
			q.used++
			q.slots[i] = int32(q.used)
			return int32(q.used - 1)
		case q.ranks[b-1] == rank:
			return b - 1
		}
	}
}

func (q *rankQueue) grow() {
	q.slots = make([]int32, 2*len(q.slots))
	mask := uint32(len(q.slots) - 1)
	for b, rank := range q.ranks {
		i := (rank * 0x9e3779b1) & mask
		for q.slots[i] != 0 {
			i = (i + 1) & mask
		}
		q.slots[i] = int32(b + 1)
	}
}

func (q *rankQueue) push(rank uint32, start int32) {
	b := q.bucket(rank)
	if len(q.buckets[b]) == 0 {
		q.pushHeap(b)
	}
	q.buckets[b] = append(q.buckets[b], start)
}

// next takes the bucket of the lowest rank: its rank and its starts in
// order, or nil. The starts are good until the next call.
func (q *rankQueue) next() (uint32, []int32) {
	if len(q.heap) == 0 {
		return 0, nil
	}
	b := q.popHeap()
	starts := q.buckets[b]
	slices.Sort(starts)
	// The bucket is empty again. A push to it before release makes it a
	// slice of its own.
	q.buckets[b] = nil
	q.taken = b
	return q.ranks[b], starts
}

// release gives back the starts that next returned.
func (q *rankQueue) release(starts []int32) {
	if len(q.buckets[q.taken]) == 0 {
		q.buckets[q.taken] = starts[:0]
	}
}

// below reports whether a bucket of rank less than r waits.
func (q *rankQueue) below(r uint32) bool { return len(q.heap) > 0 && q.ranks[q.heap[0]] < r }

func (q *rankQueue) less(a, b int) bool { return q.ranks[q.heap[a]] < q.ranks[q.heap[b]] }

func (q *rankQueue) pushHeap(b int32) {
	q.heap = append(q.heap, b)
	for i := len(q.heap) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.heap[i], q.heap[parent] = q.heap[parent], q.heap[i]
		i = parent
	}
}

func (q *rankQueue) popHeap() int32 {
	h := q.heap
	top := h[0]
	h[0] = h[len(h)-1]
	q.heap = h[:len(h)-1]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q.heap) {
			break
		}
		if c+1 < len(q.heap) && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			break
		}
		q.heap[i], q.heap[c] = q.heap[c], q.heap[i]
		i = c
	}
	return top
}
