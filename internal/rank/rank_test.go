package rank

import (
	"math"
	"testing"
)

// TestBM25 holds the formula to numbers worked by hand: a term once in an
// entry of average length scores idf*(k1+1)/(1+k1); a longer entry less,
// more counts more but less than in proportion; IDF falls as more entries
// hold the term and stays above zero.
func TestBM25(t *testing.T) {
	p := Usual
	for _, c := range []struct {
		name                 string
		idf, tf, length, avg float64
		want                 float64
	}{
		{"once, average length", 1, 1, 10, 10, 2.2 / 2.2},
		{"twice, average length", 1, 2, 10, 10, 2 * 2.2 / 3.2},
		{"once, twice the average", 1, 1, 20, 10, 2.2 / (1 + 1.2*(0.25+0.75*2))},
		{"once, b 0 ignores length", 2, 1, 20, 10, 2 * 2.2 / 2.2},
	} {
		q := p
		if c.name == "once, b 0 ignores length" {
			q.B = 0
		}
		if got := q.Score(c.idf, c.tf, c.length, c.avg); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if got, want := IDF(10, 1), math.Log(1+9.5/1.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(10, 1) = %v, want %v", got, want)
	}
	if IDF(10, 10) <= 0 || IDF(10, 10) >= IDF(10, 5) || IDF(10, 5) >= IDF(10, 1) {
		t.Errorf("IDF not falling or not positive: %v %v %v", IDF(10, 1), IDF(10, 5), IDF(10, 10))
	}
}
