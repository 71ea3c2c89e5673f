package toolerr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestBody: the body is the contract's JSON, as encoding/json reads it,
// and Parse reads back what JSON wrote, refusing what is not a body.
func TestBody(t *testing.T) {
	e := Wrap(CodeNotFound, fs.ErrNotExist, "no %q <here> & \"there\"", "a\x01b")
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(e.JSON(), &body); err != nil || body.Error.Code != CodeNotFound || body.Error.Message != e.Message {
		t.Fatalf("%s: %v", e.JSON(), err)
	}
	back, ok := Parse(e.JSON())
	if !ok || back.Code != e.Code || back.Message != e.Message {
		t.Fatalf("Parse gave %+v, %v", back, ok)
	}
	if !errors.Is(e, fs.ErrNotExist) || e.Error() != e.Message {
		t.Errorf("Error %q, unwraps to the cause: %v", e.Error(), errors.Is(e, fs.ErrNotExist))
	}
	for _, text := range []string{``, `plain words`, `{}`, `{"error":{}}`, `{"error":{"message":"m"}}`} {
		if _, ok := Parse([]byte(text)); ok {
			t.Errorf("Parse took %q", text)
		}
	}
}

// TestFrom: the one mapper gives a Kind's error its code and message, a
// Coded error its own, and what it does not know internal; errors.Is
// still finds the kind, and With adds members after the message.
func TestFrom(t *testing.T) {
	kind := NewKind(CodeNotFound, "no such file", "%v; check the path")
	fixed := NewKind(CodeCursorExpired, "cursor expired", "restart without a cursor")
	for _, c := range []struct {
		err           error
		code, message string
	}{
		{fmt.Errorf("%w: a.txt", kind), CodeNotFound, "no such file: a.txt; check the path"},
		{fmt.Errorf("open: %w", fixed), CodeCursorExpired, "restart without a cursor"},
		{coded{}, CodeBudgetTooSmall, "needs 7"},
		{errors.New("disk on fire"), CodeInternal, "disk on fire"},
		{fmt.Errorf("read: %w", context.Canceled), CodeInternal, "the read was cancelled: read: context canceled"},
	} {
		e := From(c.err)
		if e.Code != c.code || e.Message != c.message || !errors.Is(e, c.err) {
			t.Errorf("%v: %s %q", c.err, e.Code, e.Message)
		}
	}
	if !errors.Is(From(fmt.Errorf("%w: x", kind)), kind) || From(nil) != nil {
		t.Error("From loses the kind, or makes an error of nil")
	}
	e := New(CodeReferenceNotFound, "gone").With("missing_uris", []string{"a<b"}).With("missing", 12)
	if got := string(e.JSON()); got != `{"error":{"code":"reference_not_found","message":"gone","missing_uris":["a\u003cb"],"missing":12}}` {
		t.Errorf("body %s", got)
	}
}

type coded struct{}

func (coded) Error() string     { return "coded" }
func (coded) ToolError() *Error { return New(CodeBudgetTooSmall, "needs 7") }
