package fold

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/schema"
)

// Defaults and bounds of Options.
const (
	DefaultThresholdBytes = 16384
	MinThresholdBytes     = 1024
	DefaultPreviewItems   = 5
	DefaultPreviewChars   = 500
	DefaultTTL            = 10 * time.Minute
	// SecretLen is the length of the server secret.
	SecretLen = 32
)

// Options shape folding.
type Options struct {
	// ThresholdBytes: answers whose JSON is larger fold, and no Query
	// answer is larger. At least MinThresholdBytes.
	ThresholdBytes int
	// PreviewItems and PreviewChars are how many items of each list and
	// characters of each string the preview keeps.
	PreviewItems, PreviewChars int
	// TTL is how long a folded answer can be read.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// DefaultOptions are the options of `folio serve` when no flag is given.
func DefaultOptions() Options {
	return Options{ThresholdBytes: DefaultThresholdBytes, PreviewItems: DefaultPreviewItems, PreviewChars: DefaultPreviewChars, TTL: DefaultTTL}
}

// Owner is who may read a handle: the session it was issued in, the
// caller's subject, and the caller's grant (the token and what it allowed
// when the handle was made). A handle is only ever read back by the same
// three: another token of the subject, or a narrowed allow list, finds
// nothing.
type Owner struct {
	Session string
	Subject string
	Grant   string
}

// Folder folds answers and answers queries on them. It is safe for
// concurrent use.
type Folder struct {
	secret  []byte
	store   Store
	counter pager.Counter
	opt     Options
}

// New returns a Folder that keeps answers in store, encrypted under keys
// derived from secret (SecretLen bytes, the same on every replica that
// shares the store), and counts tokens with counter.
func New(secret []byte, store Store, counter pager.Counter, opt Options) (*Folder, error) {
	var errs []error
	if len(secret) != SecretLen {
		errs = append(errs, fmt.Errorf("the secret is %d bytes, want %d", len(secret), SecretLen))
	}
	if store == nil || counter == nil {
		errs = append(errs, errors.New("a store and a counter are required"))
	}
	if err := errors.Join(append(errs, opt.check()...)...); err != nil {
		return nil, fmt.Errorf("fold: %w", err)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Folder{secret: secret, store: store, counter: counter, opt: opt}, nil
}

// Check says what makes the options unusable, if anything.
func (opt Options) Check() error {
	if err := errors.Join(opt.check()...); err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	return nil
}

func (opt Options) check() []error {
	var errs []error
	if opt.ThresholdBytes < MinThresholdBytes {
		errs = append(errs, fmt.Errorf("threshold %d bytes is under the minimum of %d", opt.ThresholdBytes, MinThresholdBytes))
	}
	if opt.PreviewItems < 0 || opt.PreviewChars < 0 {
		errs = append(errs, errors.New("preview items and characters cannot be negative"))
	}
	if opt.TTL < time.Second {
		errs = append(errs, fmt.Errorf("TTL %v is under one second", opt.TTL))
	}
	return errs
}

// TTL is how long a folded answer can be read after it is made.
func (f *Folder) TTL() time.Duration { return f.opt.TTL }

// Threshold is the size in bytes over which an answer folds.
func (f *Folder) Threshold() int { return f.opt.ThresholdBytes }

// handleLen is the number of random bytes of a handle: 128 bits.
const handleLen = 16

// recordHead is the expiry (Unix milliseconds) and nonce before a record's
// ciphertext.
const recordHead = 8 + 12

// Fold keeps the answer data (a JSON object, array or string) for owner and
// returns what the model gets in its place. When the tool has an output
// schema (out, compiled once per tool definition), the folded answer must
// be admitted by it. An error means the answer was not kept and should be
// sent whole.
func (f *Folder) Fold(ctx context.Context, owner Owner, data []byte, out *schema.Checker) (*Folded, error) {
	sum, err := summarize(data, shapeDepth)
	if err != nil {
		return nil, err
	}
	if sum.arr == nil && sum.obj == nil && sum.str == nil {
		return nil, errNotFoldable
	}
	raw := make([]byte, handleLen)
	rand.Read(raw)
	handle := base64.RawURLEncoding.EncodeToString(raw)
	folded := &Folded{Handle: handle, Bytes: len(data), TTL: f.opt.TTL}
	folded.Hint = hint(sum, folded, f.counter.Count(string(data)))
	folded.JSON = f.describe(data, sum, handle, f.opt.ThresholdBytes-len(folded.Hint)-1)
	if err := admits(out, folded.JSON); err != nil {
		return nil, err
	}
	storeKey, aead, err := f.keys(handle, owner)
	if err != nil {
		return nil, err
	}
	expires := f.opt.Now().Add(f.opt.TTL)
	record := make([]byte, recordHead, recordHead+len(data)+aead.Overhead())
	binary.BigEndian.PutUint64(record, uint64(expires.UnixMilli()))
	rand.Read(record[8:recordHead])
	record = aead.Seal(record, record[8:recordHead], data, additional(storeKey, record[:8]))
	if err := f.store.Put(ctx, storeKey, record, expires); err != nil {
		return nil, fmt.Errorf("fold: keeping the answer: %w", err)
	}
	return folded, nil
}

// Folded is what the model gets in place of a folded answer.
type Folded struct {
	Handle string
	// Bytes is the size of the whole answer.
	Bytes int
	TTL   time.Duration
	// JSON is {"preview":…,"shape":…,"handle":…,"uri":"mcp+cache://…"}.
	JSON []byte
	// Hint is the line that tells the model how to read the rest.
	Hint string
}

// Text is the folded answer as a text block: its JSON, then the hint. It is
// never longer than the threshold.
func (f *Folded) Text() string { return string(f.JSON) + "\n" + f.Hint }

// describe encodes the folded answer in at most size bytes, cutting the
// shape's depth and the preview as far as that needs.
func (f *Folder) describe(data []byte, s *summary, handle string, size int) []byte {
	budget := size - len(`{"preview":,"shape":,"handle":"","uri":""}`) - len(handle) - len(URI(handle, ""))
	var shape any
	var shapeLen int
	for depth := shapeDepth; depth >= 1; depth-- {
		shape = s.render(depth)
		shapeLen = len(jsonvalue.Marshal(shape))
		if shapeLen <= budget/2 {
			break
		}
	}
	items, chars := f.opt.PreviewItems, f.opt.PreviewChars
	steps := []struct{ items, chars, members int }{
		{items, chars, 0},
		{min(items, 2), min(chars, 200), 50},
		{min(items, 1), min(chars, 100), 20},
		{min(items, 1), min(chars, 40), 8},
		{0, 0, 4},
	}
	var shown any
	for _, st := range steps {
		p := preview(data, st.items, st.chars, st.members)
		if len(jsonvalue.Marshal(p))+shapeLen <= budget {
			shown = p
			break
		}
	}
	return jsonvalue.Marshal(jsonvalue.Obj("preview", shown, "shape", shape, "handle", handle, "uri", URI(handle, "")))
}

// hintTokens is the max_tokens a hint's example asks for: enough to read
// most folded answers in one or two calls, small enough for any context.
const hintTokens = 8000

// hint tells the model how to read the rest, with an example call that
// reads it cheapest: a string (a text answer) in runs of max_tokens, saying
// how many tokens it is; a list of objects (the first of the answer, when
// its key is short) projected to one short key of its items, when they
// have one, and in runs of max_tokens too.
func hint(s *summary, f *Folded, tokens int) string {
	example := `,"offset":0,"limit":20`
	switch {
	case s.str != nil:
		return fmt.Sprintf(`This answer (%d bytes, %d tokens) was folded: the preview is its start. Read it with the result_query tool, e.g. {"handle":%q,"max_tokens":%d}; it comes back as text, then a [folio] line with the call that goes on; the handle works for this session and caller for %s.`,
			f.Bytes, tokens, f.Handle, min(hintTokens, tokens+200), ttlText(f.TTL))
	case s.arr != nil:
		example = projection(s.arr) + fmt.Sprintf(`,"max_tokens":%d`, hintTokens)
	case s.obj != nil:
		example = ""
		for _, k := range s.obj.keys {
			if m := s.obj.members[k]; m.arr != nil && len(k) <= 64 {
				example = fmt.Sprintf(`,"path":%s%s,"max_tokens":%d`, jsonvalue.Marshal(k), projection(m.arr), hintTokens)
				break
			}
		}
	}
	return fmt.Sprintf(`This answer (%d bytes, %d tokens) was folded into a preview and its shape. Read the parts you need with the result_query tool, e.g. {"handle":%q%s}, and on from next_offset; fields keeps only the keys you need; the handle works for this session and caller for %s.`,
		f.Bytes, tokens, f.Handle, example, ttlText(f.TTL))
}

// projection is the fields argument that keeps one key of a list's items,
// when they are objects that all have a string key: the first such key of
// a name ("path", "name", "id", "title", "uri", "url", "key"), else none.
func projection(a *arraySummary) string {
	o := a.items
	if o == nil || o.obj == nil || len(o.obj.keys) < 2 {
		return ""
	}
	for _, name := range []string{"path", "name", "id", "title", "uri", "url", "key"} {
		if m := o.obj.members[name]; m != nil && m.seen == o.obj.n && m.str != nil {
			return fmt.Sprintf(`,"fields":[%q]`, name)
		}
	}
	return ""
}

// ttlText says d in whole minutes where it can.
func ttlText(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// additional is the data a record's ciphertext is bound to: its storage key
// and its expiry.
func additional(storeKey string, expiry []byte) []byte {
	return append([]byte(storeKey+"\x00"), expiry...)
}

// keys derives the storage key and the cipher of a handle for owner.
func (f *Folder) keys(handle string, owner Owner) (string, cipher.AEAD, error) {
	info := lengthPrefixed(handle, owner.Session, owner.Subject, owner.Grant)
	id, err := hkdf.Key(sha256.New, f.secret, nil, "folio fold storage key\x00"+info, 32)
	if err != nil {
		return "", nil, err
	}
	key, err := hkdf.Key(sha256.New, f.secret, nil, "folio fold encryption key\x00"+info, 32)
	if err != nil {
		return "", nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return "", nil, err
	}
	return "folio:fold:" + hex.EncodeToString(id), aead, nil
}

// lengthPrefixed joins strings so that no two lists of them join the same.
func lengthPrefixed(parts ...string) string {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return string(b)
}

// load returns the answer kept under handle for owner.
func (f *Folder) load(ctx context.Context, owner Owner, handle string) ([]byte, error) {
	if raw, err := base64.RawURLEncoding.DecodeString(handle); err != nil || len(raw) != handleLen {
		return nil, errHandleNotFound
	}
	storeKey, aead, err := f.keys(handle, owner)
	if err != nil {
		return nil, err
	}
	record, err := f.store.Get(ctx, storeKey)
	if errors.Is(err, ErrNotFound) {
		return nil, errHandleNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("fold: reading the result store: %w", err)
	}
	if len(record) < recordHead {
		return nil, errHandleNotFound
	}
	expires := time.UnixMilli(int64(binary.BigEndian.Uint64(record)))
	if !f.opt.Now().Before(expires) {
		return nil, errHandleNotFound
	}
	data, err := aead.Open(nil, record[8:recordHead], record[recordHead:], additional(storeKey, record[:8]))
	if err != nil {
		return nil, errHandleNotFound
	}
	return data, nil
}

// Sizer is a Store that knows the bytes of the records it holds (the
// memory and bbolt stores; a shared store does not say).
type Sizer interface {
	HeldBytes() int64
}

// HeldBytes is the bytes of records the store holds, and whether it says.
func (f *Folder) HeldBytes() (int64, bool) {
	s, ok := f.store.(Sizer)
	if !ok {
		return 0, false
	}
	return s.HeldBytes(), true
}

// Reachable reports whether the store answers: a Get of a key no handle
// has is answered ErrNotFound by a store that works.
func (f *Folder) Reachable(ctx context.Context) error {
	_, err := f.store.Get(ctx, "folio-readiness-probe")
	if err == nil || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}
