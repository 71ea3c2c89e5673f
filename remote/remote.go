// Package remote is folio's client of a server that keeps folio's page
// contract (folio serve, or any other): the command line's read and verify
// with --server, over Streamable HTTP with an optional bearer token.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// Client is one session with a server.
type Client struct {
	cs *mcp.ClientSession
}

// Dial connects to the Streamable HTTP endpoint (for folio serve, the URL
// ending in /mcp) and sends token as a bearer token when it is not empty.
// A server that refuses the token is a *toolerr.Error of CodeUnauthorized
// with the server's reason.
func Dial(ctx context.Context, endpoint, token, version string) (*Client, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "folio", Version: version}, nil)
	denied := &refusal{}
	hc := &http.Client{Transport: watch{denied, HTTPClient(token).Transport}}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		if reason, ok := denied.get(); ok {
			return nil, toolerr.Wrap(toolerr.CodeUnauthorized, err, "%s refused the token: %s", endpoint, reason)
		}
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	return &Client{cs: cs}, nil
}

// refusal keeps the reason of the last 401 answer a client got.
type refusal struct {
	mu     sync.Mutex
	reason string
	seen   bool
}

func (r *refusal) get() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason, r.seen
}

// watch notes 401 answers, with their body as the reason.
type watch struct {
	denied *refusal
	base   http.RoundTripper
}

func (w watch) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := w.base.RoundTrip(r)
	if err == nil && res.StatusCode == http.StatusUnauthorized {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1024))
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		w.denied.mu.Lock()
		w.denied.reason, w.denied.seen = strings.TrimSpace(string(body)), true
		w.denied.mu.Unlock()
	}
	return res, err
}

// HTTPClient is an HTTP client that sends token as a bearer token on every
// request (none when token is empty).
func HTTPClient(token string) *http.Client {
	if token == "" {
		return &http.Client{Transport: http.DefaultTransport}
	}
	return &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// Close ends the session.
func (c *Client) Close() error { return c.cs.Close() }

// Call calls a tool and returns the text of its answer. An answer with
// isError is returned as a *toolerr.Error when its text is the contract's
// error body, and as a CodeInternal *toolerr.Error with the text otherwise.
func (c *Client) Call(ctx context.Context, tool string, args any) ([]byte, error) {
	text, _, err := c.CallMeta(ctx, tool, args)
	return text, err
}

// CallMeta is Call that also returns the answer's _meta.
func (c *Client) CallMeta(ctx context.Context, tool string, args any) ([]byte, mcp.Meta, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, nil, err
	}
	var text strings.Builder
	for _, content := range res.Content {
		tc, ok := content.(*mcp.TextContent)
		if !ok {
			return nil, nil, fmt.Errorf("%s answered %T content, not text", tool, content)
		}
		text.WriteString(tc.Text)
	}
	if res.IsError {
		return nil, nil, asError(text.String())
	}
	if len(res.Content) != 1 {
		return nil, nil, fmt.Errorf("%s answered %d content blocks, not one", tool, len(res.Content))
	}
	return []byte(text.String()), res.Meta, nil
}

// asError is the error of an answer with isError: its error body, or the
// text as an internal error when it is not one.
func asError(body string) *toolerr.Error {
	if e, ok := toolerr.Parse([]byte(body)); ok {
		return e
	}
	return toolerr.New(toolerr.CodeInternal, "the server answered an error: %s", body)
}

// contentBytes is the length of the lines that a line answer's _meta
// gives, checked against the answer's text: its footer follows them.
func contentBytes(text []byte, meta mcp.Meta) (int, error) {
	v := meta[wire.MetaContentBytes]
	n, ok := v.(float64)
	if !ok || n < 0 || n > float64(len(text)) || n != float64(int(n)) {
		return 0, fmt.Errorf("%s is %v", wire.MetaContentBytes, v)
	}
	return int(n), nil
}

// Lines reads lines through the read tool (args in line mode): the lines,
// and the footer line that the server put after them.
func (c *Client) Lines(ctx context.Context, args wire.ReadArgs) (lines []byte, footer string, err error) {
	text, meta, err := c.CallMeta(ctx, wire.Read, args)
	if err != nil {
		return nil, "", err
	}
	n, err := contentBytes(text, meta)
	if err != nil {
		return nil, "", fmt.Errorf("the server's line answer: %w", err)
	}
	return text[:n], strings.TrimPrefix(string(text[n:]), "\n"), nil
}

// Page reads one page of the file at path (as read's path takes it: see
// wire.PathForms); format, when not empty, names the page format to ask
// for.
func (c *Client) Page(ctx context.Context, path string, maxTokens int, format, cursor string) (pager.Page, error) {
	return c.page(ctx, wire.ReadArgs{Path: path, MaxTokens: &maxTokens, Cursor: cursor, Format: format})
}

// PageAt reads the page of the file at path that starts at line (from 1).
func (c *Client) PageAt(ctx context.Context, path string, maxTokens int, format string, line int) (pager.Page, error) {
	return c.page(ctx, wire.ReadArgs{Path: path, MaxTokens: &maxTokens, Line: &line, Format: format})
}

func (c *Client) page(ctx context.Context, args wire.ReadArgs) (pager.Page, error) {
	text, meta, err := c.CallMeta(ctx, wire.Read, args)
	if err != nil {
		return pager.Page{}, err
	}
	// The answer's _meta says its page's format (see pager.Page.Meta).
	p, err := pager.PageOf(text, meta)
	if err != nil {
		return p, fmt.Errorf("%w: %v", ErrNotAPage, err)
	}
	return p, nil
}

// Pages reads the file at path page by page from cursor ("" for the
// start) to the end; see Follow.
func (c *Client) Pages(ctx context.Context, path string, maxTokens int, format, cursor string) iter.Seq2[pager.Page, error] {
	return Follow(cursor, func(cur string) (pager.Page, error) { return c.Page(ctx, path, maxTokens, format, cur) })
}

// ErrNotAPage is the error Follow yields after a page it cannot follow:
// not a page of the contract, or has_more without next_cursor.
var ErrNotAPage = errors.New("the server's answer is not a page of the contract")

// Follow is the one loop that follows next_cursor: it yields each page
// as the server sent it, starting from cursor, while the page has more. An
// error from page is yielded and ends the read; so is ErrNotAPage, after
// the page it is about.
func Follow(cursor string, page func(cursor string) (pager.Page, error)) iter.Seq2[pager.Page, error] {
	return func(yield func(pager.Page, error) bool) {
		for {
			b, err := page(cursor)
			if err != nil {
				yield(pager.Page{}, err)
				return
			}
			if !yield(b, nil) {
				return
			}
			p, err := b.Decode()
			if err == nil && p.HasMore && p.NextCursor == nil {
				err = errors.New("has_more without next_cursor")
			}
			if err != nil {
				yield(pager.Page{}, fmt.Errorf("%w: %v", ErrNotAPage, err))
				return
			}
			if !p.HasMore {
				return
			}
			cursor = *p.NextCursor
		}
	}
}

// Files lists the files under the directory at path, recursively, with
// the list tool, as file:// URIs. When path is not a directory the server
// can list (a file, or a server without list), it is the one file.
func (c *Client) Files(ctx context.Context, path string) ([]string, error) {
	most := 10000
	text, err := c.Call(ctx, wire.List, wire.ListArgs{Path: path, Recursive: true, MaxEntries: &most, Details: true})
	var e *toolerr.Error
	if errors.As(err, &e) {
		return []string{path}, nil
	}
	if err != nil {
		return nil, err
	}
	var l wire.Listing
	if err := json.Unmarshal(text, &l); err != nil || !strings.HasPrefix(l.Root, "file://") {
		return nil, fmt.Errorf("the list answer is not folio's: %.200s", text)
	}
	if l.Truncated {
		return nil, fmt.Errorf("%s holds more than %d entries: verify its subdirectories one by one", path, most)
	}
	var out []string
	for _, en := range l.Entries {
		if en.Type == "file" {
			// The root URI is canonical; encode the path the same way.
			out = append(out, strings.TrimSuffix(l.Root, "/")+strings.TrimPrefix(fileuri.Of("/"+en.Path), "file://"))
		}
	}
	return out, nil
}
