package outline

import (
	"errors"
	"testing"
)

const findDoc = `# Guide

## Install

### From source

## Usage

### Examples

## API > v2

### Examples

Setext title
------------
`

// TestFind names sections by anchor, by whole heading path, by a tail of
// it, and tells a query that names none or several.
func TestFind(t *testing.T) {
	d := Markdown([]byte(findDoc))
	for _, tc := range []struct {
		query string
		want  string // the path of the section found, "" for an error
		err   error
		cands int
	}{
		{"#install", "Guide > Install", nil, 0},
		{"#Install", "Guide > Install", nil, 0},
		{"#examples-1", "Guide > API > v2 > Examples", nil, 0},
		{"From source", "Guide > Install > From source", nil, 0},
		{"from  SOURCE", "Guide > Install > From source", nil, 0},
		{"Install>From source", "Guide > Install > From source", nil, 0},
		{"Guide > Usage > Examples", "Guide > Usage > Examples", nil, 0},
		{"Usage > Examples", "Guide > Usage > Examples", nil, 0},
		{"API > v2 > Examples", "Guide > API > v2 > Examples", nil, 0},
		{"Setext title", "Guide > Setext title", nil, 0},
		{"Guide", "Guide", nil, 0},
		{"Examples", "", ErrAmbiguous, 2},
		{"#examples-9", "", ErrNoSection, 2},
		{"Install from a tarball", "", ErrNoSection, 2},
		{"Nothing like it", "", ErrNoSection, 0},
		{"Exampels", "", ErrNoSection, 2},
		{"Instal", "", ErrNoSection, 1},
	} {
		i, err := d.Find(tc.query)
		if tc.err == nil {
			if err != nil || joinPath(d.Path(i)) != tc.want {
				t.Errorf("%q: section %d, %v; want %s", tc.query, i, err, tc.want)
			}
			continue
		}
		var fe *FindError
		if !errors.Is(err, tc.err) || !errors.As(err, &fe) || len(fe.Candidates) != tc.cands {
			t.Errorf("%q: %v (%+v), want %v with %d candidates", tc.query, err, fe, tc.err, tc.cands)
		}
	}
}

func joinPath(p []string) string {
	s := ""
	for i, t := range p {
		if i > 0 {
			s += PathSep
		}
		s += t
	}
	return s
}
