package bpe

// noRank marks a pair that is no token.
const noRank = ^uint32(0)

// heapFrom is the piece length from which merge uses a heap: below it the
// plain scan of tiktoken, whose quadratic cost is smaller than a heap's
// upkeep on short pieces.
const heapFrom = 64

// merge splits piece, of at least two bytes, into the tokens byte-pair
// encoding merges it into: it merges the adjacent pair that forms the token
// of lowest rank, the leftmost one among equals, until no pair forms a
// token. It appends the start of each token, and then len(piece), to
// bounds.
func (v *vocab) merge(piece string, bounds []int) []int {
	if len(piece) < heapFrom {
		return v.mergeScan(piece, bounds)
	}
	return v.mergeHeap(piece, bounds)
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
func (v *vocab) mergeScan(piece string, bounds []int) []int {
	type part struct {
		start int
		rank  uint32 // of this part joined with the next one
	}
	var buf [heapFrom + 1]part
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
		parts = append(parts, part{i, r})
	}
	parts = append(parts, part{len(piece) - 1, noRank}, part{len(piece), noRank})
	// joined is the rank of parts i and i+1 joined with the part after
	// them, before i+1 is removed.
	joined := func(i int) uint32 {
		if i+3 < len(parts) {
			return v.pairRank(piece, parts[i].start, parts[i+3].start)
		}
		return noRank
	}
	for minRank != noRank {
		i := minAt
		if i > 0 {
			parts[i-1].rank = joined(i - 1)
		}
		parts[i].rank = joined(i)
		parts = append(parts[:i+1], parts[i+2:]...)
		minRank = noRank
		for j, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank, minAt = p.rank, j
			}
		}
	}
	for _, p := range parts {
		bounds = append(bounds, p.start)
	}
	return bounds
}

// mergeHeap merges as mergeScan does, in O(n log n): the parts are a linked
// list over the piece's bytes, and the candidate pairs a heap ordered by
// rank and then by offset, so that the leftmost of equal ranks merges first.
// A candidate whose pair has changed since it was pushed is skipped.
func (v *vocab) mergeHeap(piece string, bounds []int) []int {
	type node struct {
		next int32  // start of the next part, or len(piece)
		prev int32  // start of the previous part, or -1
		rank uint32 // of this part joined with the next one
	}
	n := int32(len(piece))
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{next: int32(i) + 1, prev: int32(i) - 1, rank: noRank}
	}
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j >= n {
			return noRank
		}
		return v.pairRank(piece, int(i), int(nodes[j].next))
	}
	h := make(mergeHeap, 0, n)
	for i := int32(0); i+1 < n; i++ {
		if r := v.pairRank(piece, int(i), int(i)+2); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k < n {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			if nodes[b].rank = rankAt(b); nodes[b].rank != noRank {
				h.push(candidate{nodes[b].rank, b})
			}
		}
	}
	for i := int32(0); i < n; i = nodes[i].next {
		bounds = append(bounds, int(i))
	}
	return append(bounds, int(n))
}

// candidate is a pair that forms a token: the rank of that token and the
// start of the pair's first part.
type candidate struct {
	rank uint32
	at   int32
}

// mergeHeap is a binary min-heap of candidates by rank, then by start.
type mergeHeap []candidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].at < h[b].at
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c candidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *mergeHeap) pop() candidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h mergeHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
