// Package sse reads a server-sent event stream as its bytes pass, as MCP's
// streamable HTTP transport sends one: the events whose ends have come,
// each with its name, its data and whether it had an id.
package sse

import "bytes"

// Event is one event of a stream.
type Event struct {
	// Name is its event field ("" when it has none).
	Name string
	// Data is its data lines, joined by "\n".
	Data []byte
	// ID reports whether it had a non-empty id field.
	ID bool
}

// Message reports whether go-sdk reads e as a JSON-RPC message: it has
// data, and no name or the name "message".
func (e Event) Message() bool {
	return len(e.Data) > 0 && (e.Name == "" || e.Name == "message")
}

// Splitter holds what has come of a stream past its last complete event.
// Its zero value is ready to use.
type Splitter struct {
	buf bytes.Buffer
	// searched is how much of buf was looked through for an event's end.
	searched int
}

// Write takes p, the stream's next bytes, and gives each event they
// complete to each, in order. Past max bytes waiting for their event's end
// (as go-sdk fails a stream at its bound), it keeps none of them.
func (s *Splitter) Write(p []byte, max int, each func(Event)) {
	s.buf.Write(p)
	for {
		data := s.buf.Bytes()
		from := s.searched - 3
		if from < 0 {
			from = 0
		}
		end, sep := eventEnd(data[from:])
		if end < 0 {
			s.searched = len(data)
			break
		}
		end += from
		each(parse(data[:end]))
		s.buf.Next(end + sep)
		s.searched = 0
	}
	if s.buf.Len() > max {
		s.buf.Reset()
		s.searched = 0
	}
}

// parse reads one event's lines (without the blank line that ends it).
func parse(ev []byte) Event {
	var e Event
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexByte(ev, '\n'); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if e.Data != nil {
				e.Data = append(e.Data, '\n')
			}
			e.Data = append(e.Data, value...)
		case "id":
			e.ID = e.ID || len(value) > 0
		case "event":
			e.Name = string(value)
		}
	}
	return e
}

// eventEnd finds the blank line that ends an event in data: where it
// starts and how long it is, or -1.
func eventEnd(data []byte) (int, int) {
	for i := 0; i < len(data); i++ {
		if data[i] != '\n' {
			continue
		}
		rest := data[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\n")):
			return i, 2
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i, 3
		}
	}
	return -1, 0
}
