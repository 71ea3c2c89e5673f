package pager

import (
	"sync/atomic"
	"testing"
)

type countingCounter struct {
	Counter
	calls, bytes atomic.Int64
}

func (c *countingCounter) Count(s string) int {
	c.calls.Add(1)
	c.bytes.Add(int64(len(s)))
	return c.Counter.Count(s)
}

func TestProbeCost(t *testing.T) {
	for _, kind := range []string{"go", "markdown"} {
		text := corpus(t, kind, 1<<20)
		cc := &countingCounter{Counter: counter(t, O200kBase)}
		pages := pageWhole(t, cc, text, 2000)
		t.Logf("%s: %d pages, %d calls, %.2fx bytes", kind, len(pages), cc.calls.Load(), float64(cc.bytes.Load())/float64(len(text)))
	}
}
