package fold

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// Default slice lengths of Query, the most fields it takes, and the most
// bytes an answer of max_tokens holds.
const (
	defaultItems = 20
	defaultChars = 2000
	maxFields    = 100
	maxRunBytes  = 8 << 20
)

// Query asks for part of a folded answer.
type Query struct {
	Handle string
	// Path is a dot path or a JSON pointer (see parsePath); empty for the
	// whole answer.
	Path string
	// Offset and Limit select items of a list, members of an object, or
	// characters of a string; Page selects the Page-th run of Limit items
	// (from 1) in place of Offset.
	Offset, Limit, Page *int
	// Fields keeps only these keys of an object, or of each object of a
	// list.
	Fields []string
	// MaxTokens bounds the answer's tokens: as many items or characters as
	// fit are given.
	MaxTokens *int
}

// Answer is the JSON text of a query's answer:
// {"path":…,"value":…,"total":…,"offset":…,"next_offset":…}.
type Answer struct {
	JSON []byte
	// Tokens is the answer's token count when MaxTokens was given, else 0.
	Tokens int
}

// Query reads part of the answer kept under q.Handle for owner.
func (f *Folder) Query(ctx context.Context, owner Owner, q Query) (Answer, error) {
	if err := checkQuery(q); err != nil {
		return Answer{}, err
	}
	segs, err := parsePath(q.Path)
	if err != nil {
		return Answer{}, toolerr.New(toolerr.CodePathNotFound, "%v", err)
	}
	data, err := f.load(ctx, owner, q.Handle)
	if err != nil {
		return Answer{}, err
	}
	raw, err := find(ctx, data, segs)
	if err != nil {
		return Answer{}, toolerr.New(toolerr.CodePathNotFound, "%v; read the shape, or query a shorter path", err)
	}
	if q.Path == "" && len(raw) > 0 && raw[0] == '"' && len(q.Fields) == 0 && q.Page == nil {
		// A folded text answer: its text comes back as text.
		return f.textRun(q, raw)
	}
	path := q.Path
	if path == "" {
		path = "$"
	}
	s := slicer{q: q, threshold: f.opt.ThresholdBytes, counter: f.counter, head: jsonvalue.AppendString([]byte(`{"path":`), path)}
	if q.MaxTokens != nil {
		// The caller chose how much it takes: an answer of max_tokens
		// may pass the fold threshold, up to maxRunBytes.
		s.threshold = max(s.threshold, min(*q.MaxTokens, maxRunBytes)*f.counter.MaxBytesPerToken())
		s.threshold = min(s.threshold, maxRunBytes)
	}
	return s.answer(raw)
}

func checkQuery(q Query) error {
	bad := func(format string, args ...any) error {
		return toolerr.Invalid(format, args...)
	}
	switch {
	case q.Handle == "":
		return bad("handle is required: pass the handle of a folded answer")
	case q.Page != nil && q.Offset != nil:
		return bad("pass page or offset, not both")
	case q.Page != nil && q.MaxTokens != nil:
		return bad("page counts runs of limit items and cannot be combined with max_tokens; use offset")
	case q.Offset != nil && *q.Offset < 0:
		return bad("offset must be 0 or more")
	case q.Limit != nil && *q.Limit < 1:
		return bad("limit must be 1 or more")
	case q.Page != nil && *q.Page < 1:
		return bad("page counts from 1")
	}
	if q.MaxTokens != nil {
		if e := wire.CheckMaxTokens(*q.MaxTokens, wire.MaxTokensLimit); e != nil {
			return e
		}
	}
	if len(q.Fields) > maxFields {
		return bad("fields takes at most %d keys", maxFields)
	}
	return nil
}

// slicer builds the answer for the value at the query's path.
type slicer struct {
	q         Query
	threshold int
	counter   pager.Counter
	head      []byte // {"path":"…"
}

// answer answers with the value whose bytes are raw, parsing only what it
// gives.
func (s *slicer) answer(raw []byte) (Answer, error) {
	q := s.q
	ranged := q.Offset != nil || q.Limit != nil || q.Page != nil || q.MaxTokens != nil
	switch raw[0] {
	case '[':
		return s.list(raw)
	case '"':
		return s.characters(raw)
	case '{':
		if !ranged {
			return s.object(raw)
		}
		return s.members(raw)
	}
	if ranged || len(q.Fields) > 0 {
		return s.scalarRanged(raw)
	}
	v, err := jsonvalue.Parse(raw)
	if err != nil {
		return Answer{}, err
	}
	return s.whole(v)
}

// list answers with a run of the items of the list raw, each object cut
// to the query's fields when it names some.
func (s *slicer) list(raw []byte) (Answer, error) {
	items, err := jsonvalue.Elements(raw)
	if err != nil {
		return Answer{}, err
	}
	if err := s.checkItemFields(raw, items); err != nil {
		return Answer{}, err
	}
	fields := s.q.Fields
	return s.run(sequence{total: len(items), open: "[", close: "]", sep: ",", elem: func(b []byte, i int) ([]byte, error) {
		v, err := jsonvalue.Parse(raw[items[i].Start:items[i].End])
		if o, ok := v.(*jsonvalue.Object); ok && len(fields) > 0 {
			v = keep(o, fields, map[string]bool{})
		}
		return jsonvalue.Append(b, v), err
	}}, defaultItems, "items")
}

// characters answers with a run of the characters of the string raw,
// which takes no fields.
func (s *slicer) characters(raw []byte) (Answer, error) {
	if len(s.q.Fields) > 0 {
		return Answer{}, toolerr.Invalid("fields applies to objects; the value at %s is a string", s.path())
	}
	v, err := jsonvalue.Parse(raw)
	if err != nil {
		return Answer{}, err
	}
	runes := []rune(v.(string))
	return s.run(sequence{total: len(runes), open: `"`, close: `"`, elem: func(b []byte, i int) ([]byte, error) {
		var enc [utf8.UTFMax]byte
		n := utf8.EncodeRune(enc[:], runes[i])
		quoted := jsonvalue.AppendString(nil, string(enc[:n]))
		return append(b, quoted[1:len(quoted)-1]...), nil
	}}, defaultChars, "characters")
}

// object answers with the object raw whole, cut to the query's fields
// when it names some.
func (s *slicer) object(raw []byte) (Answer, error) {
	v, err := jsonvalue.Parse(raw)
	if err != nil {
		return Answer{}, err
	}
	o, err := s.objectFields(v.(*jsonvalue.Object))
	if err != nil {
		return Answer{}, err
	}
	return s.whole(o)
}

// members answers with a run of the members of the object raw (those the
// query's fields name, when it names some), for a ranged query.
func (s *slicer) members(raw []byte) (Answer, error) {
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		return Answer{}, err
	}
	if members, err = s.memberFields(members); err != nil {
		return Answer{}, err
	}
	return s.run(sequence{total: len(members), open: "{", close: "}", sep: ",", elem: func(b []byte, i int) ([]byte, error) {
		v, err := jsonvalue.Parse(raw[members[i].Start:members[i].End])
		b = jsonvalue.AppendString(b, members[i].Key)
		b = append(b, ':')
		return jsonvalue.Append(b, v), err
	}}, defaultItems, "members")
}

// scalarRanged answers a query with a range or fields of raw, a value that
// is no list, string or object: max_tokens alone bounds it whole; offset,
// limit, page and fields do not apply.
func (s *slicer) scalarRanged(raw []byte) (Answer, error) {
	q := s.q
	if q.MaxTokens != nil && q.Offset == nil && q.Limit == nil && q.Page == nil && len(q.Fields) == 0 {
		v, err := jsonvalue.Parse(raw)
		if err != nil {
			return Answer{}, err
		}
		return s.whole(v)
	}
	return Answer{}, toolerr.Invalid("the value at %s is a %s: offset, limit, page and fields apply to lists, strings and objects", s.path(), jsonvalue.TypeName(raw))
}

func (s *slicer) path() string {
	if s.q.Path == "" {
		return "the root"
	}
	return s.q.Path
}

// whole answers with the value itself.
func (s *slicer) whole(v any) (Answer, error) {
	b := append(append(append([]byte(nil), s.head...), `,"value":`...), jsonvalue.Append(nil, v)...)
	b = append(b, '}')
	if len(b) > s.threshold {
		return Answer{}, toolerr.New(toolerr.CodeSliceTooLarge, "the value at %s is %d bytes as an answer, over the %d-byte limit: query a deeper path, fewer fields, or its members with offset and limit", s.path(), len(b), s.threshold)
	}
	if s.q.MaxTokens == nil {
		return Answer{JSON: b}, nil
	}
	n := s.counter.Count(string(b))
	if n > *s.q.MaxTokens {
		return Answer{}, toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for the value at %s: it needs %d; query a deeper path or fewer fields, or raise max_tokens", *s.q.MaxTokens, s.path(), n)
	}
	return Answer{JSON: b, Tokens: n}, nil
}

// sequence is a list, an object's members or a string's characters, as
// elements that encode one after another.
type sequence struct {
	total            int
	open, close, sep string
	elem             func(b []byte, i int) ([]byte, error)
}

// run answers with a slice of seq: from the offset, limit elements (def
// when not given), or as many as max_tokens allows.
func (s *slicer) run(seq sequence, def int, unit string) (Answer, error) {
	q := s.q
	offset, limit, err := s.bounds(seq.total, def, unit)
	if err != nil {
		return Answer{}, err
	}
	want := min(seq.total-offset, limit)
	if q.MaxTokens != nil && q.Limit == nil {
		want = seq.total - offset
	}
	// Encode the elements once, stopping where no answer could hold more.
	var body []byte
	ends := make([]int, 0, min(want, 1024))
	for i := 0; i < want && len(body) <= s.threshold; i++ {
		if i > 0 {
			body = append(body, seq.sep...)
		}
		if body, err = seq.elem(body, offset+i); err != nil {
			return Answer{}, err
		}
		ends = append(ends, len(body))
	}
	e := encoded{head: s.head, open: seq.open, close: seq.close, total: seq.total, offset: offset, threshold: s.threshold, body: body, ends: ends}
	if q.MaxTokens == nil {
		if !e.fitsBytes(want) {
			return Answer{}, s.tooLarge(mostThatFit(want, e.fitsBytes), offset, unit)
		}
		return Answer{JSON: e.build(want)}, nil
	}
	return s.fitTokens(&e, want, unit)
}

// bounds is where a run of a sequence of total elements starts, from the
// query's offset or page, and the most elements it gives: the query's
// limit, or def. An offset or a page past the end is an error, which
// counts the elements in unit.
func (s *slicer) bounds(total, def int, unit string) (offset, limit int, err error) {
	q := s.q
	limit = def
	if q.Limit != nil {
		limit = *q.Limit
	}
	switch {
	case q.Offset != nil:
		offset = *q.Offset
	case q.Page != nil:
		// Past the last page, written so that no product can overflow.
		if *q.Page > 1 && (total == 0 || *q.Page-1 > (total-1)/limit) {
			pages := (total + limit - 1) / limit
			return 0, 0, toolerr.Invalid("page %d is past the end: the value at %s has %d %s, %d pages of %d", *q.Page, s.path(), total, unit, pages, limit)
		}
		offset = (*q.Page - 1) * limit
	}
	if offset > total {
		return 0, 0, toolerr.Invalid("offset %d is past the end: the value at %s has %d %s", offset, s.path(), total, unit)
	}
	return offset, limit, nil
}

// fitTokens answers with as many of the want elements of e as max_tokens
// allows (and the threshold), counting the answer's tokens; an error when
// not even one fits.
func (s *slicer) fitTokens(e *encoded, want int, unit string) (Answer, error) {
	budget := *s.q.MaxTokens
	if want == 0 {
		b := e.build(0)
		if n := s.counter.Count(string(b)); n > budget {
			return Answer{}, toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for this answer: it needs %d; retry with max_tokens of %d or more", budget, n, n)
		}
		return Answer{JSON: b, Tokens: s.counter.Count(string(b))}, nil
	}
	if !e.fitsBytes(1) {
		return Answer{}, s.tooLarge(0, e.offset, unit)
	}
	if need := e.tokens(s.counter, 1); need > budget {
		return Answer{}, toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for one of the %s at %s: it needs %d; retry with max_tokens of %d or more", budget, unit, s.path(), need, need)
	}
	n := mostThatFit(want, func(n int) bool { return e.fitsBytes(n) && e.tokens(s.counter, n) <= budget })
	b := e.build(n)
	return Answer{JSON: b, Tokens: s.counter.Count(string(b))}, nil
}

// encoded is a run of a sequence's elements from offset, each encoded
// once, that answers of any number of them are built from.
type encoded struct {
	head        []byte // {"path":"…"
	open, close string // the sequence's
	total       int    // the sequence's elements
	offset      int
	threshold   int    // the most bytes an answer holds
	body        []byte // the elements, separated
	ends        []int  // ends[i] is where the i-th element ends in body
}

// build is the answer that gives the first n elements of e.
func (e *encoded) build(n int) []byte {
	b := append(append([]byte(nil), e.head...), `,"value":`...)
	b = append(b, e.open...)
	if n > 0 {
		b = append(b, e.body[:e.ends[n-1]]...)
	}
	b = append(b, e.close...)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(e.total), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(e.offset), 10)
	if e.offset+n < e.total {
		b = append(b, `,"next_offset":`...)
		b = strconv.AppendInt(b, int64(e.offset+n), 10)
	}
	return append(b, '}')
}

// fitsBytes reports whether the answer of the first n elements was
// encoded and is within the threshold.
func (e *encoded) fitsBytes(n int) bool {
	return n <= len(e.ends) && len(e.build(n)) <= e.threshold
}

// tokens is the token count, as c counts, of the answer of the first n
// elements.
func (e *encoded) tokens(c pager.Counter, n int) int {
	return c.Count(string(e.build(n)))
}

// tooLarge is the error for a slice over the threshold, naming the largest
// limit that fits (fit, which may be 0).
func (s *slicer) tooLarge(fit, offset int, unit string) error {
	if fit == 0 {
		return toolerr.New(toolerr.CodeSliceTooLarge, "one of the %s at %s from offset %d is over the %d-byte limit by itself: query a deeper path (such as %s) or fewer fields", unit, s.path(), offset, s.threshold, s.deeper(offset))
	}
	return toolerr.New(toolerr.CodeSliceTooLarge, "this slice is over the %d-byte limit: read at most %d %s from offset %d (limit %d), fewer fields, or a deeper path; or pass max_tokens to get as many as fit", s.threshold, fit, unit, offset, fit)
}

// deeper names the path of the element at index i.
func (s *slicer) deeper(i int) string {
	if s.q.Path == "" || s.q.Path == "$" {
		return "/" + strconv.Itoa(i)
	}
	if strings.HasPrefix(s.q.Path, "/") {
		return s.q.Path + "/" + strconv.Itoa(i)
	}
	return s.q.Path + "." + strconv.Itoa(i)
}

// checkItemFields checks that each of the query's fields is a key of some
// object of the list, reading only the keys.
func (s *slicer) checkItemFields(raw []byte, items []jsonvalue.Member) error {
	if len(s.q.Fields) == 0 || len(items) == 0 {
		return nil
	}
	found := make(map[string]bool, len(s.q.Fields))
	objects := 0
	for _, item := range items {
		if raw[item.Start] != '{' {
			continue
		}
		objects++
		members, err := jsonvalue.Elements(raw[item.Start:item.End])
		if err != nil {
			return err
		}
		for _, m := range members {
			found[m.Key] = true
		}
	}
	if objects == 0 {
		return toolerr.Invalid("fields applies to objects, and the list at %s holds none", s.path())
	}
	if missing := missingFields(s.q.Fields, found); missing != "" {
		return toolerr.Invalid("no object in the list at %s has the field %s; read the shape for the keys", s.path(), missing)
	}
	return nil
}

// objectFields applies the query's fields to an object.
func (s *slicer) objectFields(o *jsonvalue.Object) (*jsonvalue.Object, error) {
	if len(s.q.Fields) == 0 {
		return o, nil
	}
	found := map[string]bool{}
	out := keep(o, s.q.Fields, found)
	if missing := missingFields(s.q.Fields, found); missing != "" {
		return nil, toolerr.Invalid("the object at %s has no field %s; its keys: %s", s.path(), missing, keyList(o.Keys))
	}
	return out, nil
}

// memberFields keeps the members the query's fields name.
func (s *slicer) memberFields(members []jsonvalue.Member) ([]jsonvalue.Member, error) {
	if len(s.q.Fields) == 0 {
		return members, nil
	}
	found := map[string]bool{}
	var out []jsonvalue.Member
	for _, m := range members {
		for _, f := range s.q.Fields {
			if m.Key == f {
				out = append(out, m)
				found[f] = true
				break
			}
		}
	}
	if missing := missingFields(s.q.Fields, found); missing != "" {
		return nil, toolerr.Invalid("the object at %s has no field %s; its keys: %s", s.path(), missing, keyList(memberKeys(members)))
	}
	return out, nil
}

// keep returns o with only the given keys, in o's order, and marks in found
// the keys it had.
func keep(o *jsonvalue.Object, fields []string, found map[string]bool) *jsonvalue.Object {
	out := &jsonvalue.Object{}
	for i, k := range o.Keys {
		for _, f := range fields {
			if k == f {
				out.Keys = append(out.Keys, k)
				out.Values = append(out.Values, o.Values[i])
				found[k] = true
				break
			}
		}
	}
	return out
}

func missingFields(fields []string, found map[string]bool) string {
	var missing []string
	for _, f := range fields {
		if !found[f] {
			missing = append(missing, strconv.Quote(f))
		}
	}
	return strings.Join(missing, ", ")
}

// mostThatFit returns the largest n in [1, hi] with ok(n), or 0 when ok(1)
// fails, for ok true up to some point and false after.
func mostThatFit(hi int, ok func(int) bool) int {
	return sort.Search(hi, func(i int) bool { return !ok(i + 1) })
}

// textRun answers a query of a folded text (an answer that was one string,
// as list's and grep's are): a run of its characters as they are, not
// escaped, so that reading it costs what the text costs, then a newline
// and a [folio] line that says which characters these are and the call
// that goes on. With max_tokens the run is as long as fits, cut after a
// newline where one falls in its second half; else limit characters
// (defaultChars when not given).
func (f *Folder) textRun(q Query, raw []byte) (Answer, error) {
	v, err := jsonvalue.Parse(raw)
	text, ok := v.(string)
	if err != nil || !ok {
		return Answer{}, toolerr.Invalid("the folded answer is not a text")
	}
	total := utf8.RuneCountInString(text)
	offset := 0
	if q.Offset != nil {
		offset = *q.Offset
	}
	if offset > total {
		return Answer{}, toolerr.Invalid("offset %d is past the end: the text has %d characters", offset, total)
	}
	rest := text
	for range offset {
		_, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
	}
	// ends[i] is the byte length of the first i+1 characters of rest, up
	// to what any answer could hold.
	limit := total - offset
	if q.Limit != nil {
		limit = min(limit, *q.Limit)
	} else if q.MaxTokens == nil {
		limit = min(limit, defaultChars)
	}
	var ends []int
	for at := 0; len(ends) < limit && at < len(rest) && at <= maxRunBytes; {
		_, size := utf8.DecodeRuneInString(rest[at:])
		at += size
		ends = append(ends, at)
	}
	build := func(n int) []byte {
		end := 0
		if n > 0 {
			end = ends[n-1]
		}
		b := append([]byte(rest[:end]), '\n')
		if offset+n < total {
			return fmt.Appendf(append(b, wire.NotePrefix...), "characters %d-%d of %d; more: result_query {\"handle\":%q,\"offset\":%d%s}", offset, offset+n, total, q.Handle, offset+n, runArgs(q))
		}
		return fmt.Appendf(append(b, wire.NotePrefix...), "characters %d-%d of %d, the end", offset, offset+n, total)
	}
	n := len(ends)
	if q.MaxTokens == nil {
		if b := build(n); len(b) <= f.opt.ThresholdBytes {
			return Answer{JSON: b}, nil
		}
		fits := mostThatFit(n, func(k int) bool { return len(build(k)) <= f.opt.ThresholdBytes })
		return Answer{}, toolerr.New(toolerr.CodeSliceTooLarge, "these characters are over the %d-byte limit: read at most %d from offset %d, or pass max_tokens to get as many as fit", f.opt.ThresholdBytes, fits, offset)
	}
	budget := *q.MaxTokens
	tokens := func(k int) int { return f.counter.Count(string(build(k))) }
	if n > 0 && tokens(1) > budget {
		need := tokens(1)
		return Answer{}, toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for this answer: it needs %d; retry with max_tokens of %d or more", budget, need, need)
	}
	k := mostThatFit(n, func(k int) bool { return tokens(k) <= budget })
	if k < n {
		// End the run after a newline, when one falls in its second
		// half: the next run starts on a line.
		if nl := strings.LastIndexByte(rest[:ends[k-1]], '\n'); nl >= ends[k-1]/2 {
			k = sort.SearchInts(ends[:k], nl+1) + 1
		}
	}
	b := build(k)
	return Answer{JSON: b, Tokens: f.counter.Count(string(b))}, nil
}

// runArgs are the arguments of a text run's query that the next run
// keeps.
func runArgs(q Query) string {
	switch {
	case q.MaxTokens != nil:
		return fmt.Sprintf(`,"max_tokens":%d`, *q.MaxTokens)
	case q.Limit != nil:
		return fmt.Sprintf(`,"limit":%d`, *q.Limit)
	}
	return ""
}
