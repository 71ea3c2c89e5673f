package pager

import "errors"

// Raw is the content alone: a chunk, its budget the content's, for
// prompts and embedding pipelines. It has no cursor nor version, so it
// is the command line's (ParseChunkFormat), not a read tool's.
const Raw Format = 2

func init() { register(Raw, rawFormat{}) }

// rawFormat writes the content and nothing else.
type rawFormat struct{}

func (rawFormat) name() string { return "raw" }

func (rawFormat) summary() string { return "the content alone" }

func (rawFormat) paged() bool { return false }

func (rawFormat) appendHead(b []byte, _ string) []byte { return b }

func (rawFormat) appendContent(b, content []byte) []byte { return append(b, content...) }

func (rawFormat) appendTail(b []byte, _ *fitter, _ int, _ string) []byte { return b }

// decode is the chunk's content: all of it.
func (rawFormat) decode(p Page) (Decoded, error) {
	return Decoded{URI: p.URI, Content: string(p.JSON), HasMore: p.HasMore}, nil
}

func (rawFormat) meta(Page, map[string]any) {}

// fromMeta refuses: no tool answers chunks.
func (rawFormat) fromMeta(text []byte, _ map[string]any) (Page, error) {
	return Page{JSON: text}, errors.New("a chunk (raw) is no page a tool answers")
}
