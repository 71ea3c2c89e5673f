package toolerr

import (
	"encoding/json"
	"errors"
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
