package tokencount

import (
	"errors"
	"testing"
)

// TestNew: every name New lists gives a counter of that name that counts
// (an empty text as none), and any other name is ErrUnknown, naming the
// ones there are.
func TestNew(t *testing.T) {
	for _, name := range Names() {
		c, err := New(name)
		if err != nil || c.Name() != name || c.Count("") != 0 || c.Count("hello world") < 2 || c.MaxBytesPerToken() < 1 {
			t.Errorf("%s: %v, %v", name, c, err)
		}
	}
	if _, err := New("p50k_base"); !errors.Is(err, ErrUnknown) || err.Error() != `unknown tokenizer: "p50k_base" (want one of o200k_base, cl100k_base, estimate)` {
		t.Errorf("an unknown name: %v", err)
	}
	if _, ok := Counter(estimateCounter{}).(Tokenizer); ok {
		t.Error("the estimate claims to give tokens")
	}
}
