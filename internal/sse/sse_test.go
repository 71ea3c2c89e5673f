package sse

import (
	"strings"
	"testing"
)

// TestSplitter: events come out whole and in order however the stream is
// cut, with LF or CRLF line ends, their data lines joined, their names and
// ids read; a comment-only event has no data; past the bound nothing is
// kept.
func TestSplitter(t *testing.T) {
	stream := ": a comment\n\nevent: message\nid: 7\ndata: {\"a\":\ndata: 1}\n\ndata: plain\r\n\r\nevent: other\ndata: x\n\n"
	want := []Event{{}, {Name: "message", Data: []byte("{\"a\":\n1}"), ID: true}, {Data: []byte("plain")}, {Name: "other", Data: []byte("x")}}
	for cut := 1; cut <= len(stream); cut++ {
		var s Splitter
		var got []Event
		for i := 0; i < len(stream); i += cut {
			s.Write([]byte(stream[i:min(i+cut, len(stream))]), 1<<20, func(e Event) { got = append(got, e) })
		}
		if len(got) != len(want) {
			t.Fatalf("cut %d: %d events", cut, len(got))
		}
		for i := range want {
			if got[i].Name != want[i].Name || string(got[i].Data) != string(want[i].Data) || got[i].ID != want[i].ID {
				t.Fatalf("cut %d: event %d is %+v, want %+v", cut, i, got[i], want[i])
			}
		}
		if got[0].Message() || !got[1].Message() || !got[2].Message() || got[3].Message() {
			t.Fatalf("cut %d: which are messages", cut)
		}
	}
	var s Splitter
	s.Write([]byte("data: "+strings.Repeat("x", 100)), 50, func(Event) { t.Error("an event past the bound") })
	if s.buf.Len() != 0 {
		t.Errorf("%d bytes kept past the bound", s.buf.Len())
	}
}
