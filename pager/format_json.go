package pager

import "github.com/folio-mcp/folio/internal/jsonvalue"

// JSON is the page contract's JSON object: {"uri","content","version",
// "has_more","next_cursor"}, in that order (see Decode).
const JSON Format = 0

func init() { register(JSON, jsonFormat{}) }

// jsonFormat writes the page contract's object; its text says all, so it
// adds nothing to _meta.
type jsonFormat struct{}

func (jsonFormat) name() string { return "json" }

func (jsonFormat) summary() string { return "the page contract's object" }

func (jsonFormat) paged() bool { return true }

func (jsonFormat) appendHead(b []byte, uri string) []byte { return appendHead(b, uri) }

// appendContent appends content escaped as a JSON string's.
func (jsonFormat) appendContent(b, content []byte) []byte { return jsonvalue.AppendEscaped(b, content) }

// appendTail closes the content's string and appends the version, and
// has_more and next_cursor: true and the cursor, or false and null.
func (jsonFormat) appendTail(b []byte, f *fitter, _ int, cursor string) []byte {
	if cursor == "" {
		return appendFinalTail(b, f.req.Version)
	}
	return appendMoreTail(b, f.req.Version, cursor)
}

// appendHead appends the page's JSON up to the content's opening quote.
func appendHead(b []byte, uri string) []byte {
	b = append(b, `{"uri":`...)
	b = jsonvalue.AppendString(b, uri)
	return append(b, `,"content":"`...)
}

// appendMoreTail appends what follows the content of a page with more to
// come.
func appendMoreTail(b []byte, version, cursor string) []byte {
	b = append(b, `","version":`...)
	b = jsonvalue.AppendString(b, version)
	b = append(b, `,"has_more":true,"next_cursor":`...)
	b = jsonvalue.AppendString(b, cursor)
	return append(b, '}')
}

// appendFinalTail appends what follows the content of a file's last page.
func appendFinalTail(b []byte, version string) []byte {
	b = append(b, `","version":`...)
	b = jsonvalue.AppendString(b, version)
	return append(b, `,"has_more":false,"next_cursor":null}`...)
}

func (jsonFormat) decode(p Page) (Decoded, error) { return Decode(p.JSON) }

func (jsonFormat) meta(Page, map[string]any) {}

// fromMeta is the page whose object is text; Decode reads it.
func (jsonFormat) fromMeta(text []byte, _ map[string]any) (Page, error) {
	return Page{JSON: text}, nil
}
