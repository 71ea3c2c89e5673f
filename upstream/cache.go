package upstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/folio-mcp/folio/internal/atomicfile"
)

// Entry is what the cache keeps of one upstream: the fingerprint of the
// configuration it was fetched with, its tools as it last advertised them
// (each definition as it came, every field of it), and when and from which
// server version.
type Entry struct {
	Fingerprint string            `json:"fingerprint"`
	Tools       []json.RawMessage `json:"tools"`
	Fetched     time.Time         `json:"fetched"`
	Server      string            `json:"server,omitempty"`
	Version     string            `json:"version,omitempty"`
	// Protocol is the MCP version the upstream spoke: 2026-07-28 when it
	// speaks it, else the older one it chose.
	Protocol string `json:"protocol,omitempty"`
	// ToolsTTLMs is the least ttlMs the upstream's tools/list pages gave,
	// when it speaks an era that gives them: how long it says a client
	// may keep its tools.
	ToolsTTLMs *int `json:"tools_ttl_ms,omitempty"`
	// TaskRequired names the tools that can only be called as tasks, in
	// an entry an older folio wrote (its definitions lack execution); a
	// discovery now leaves it empty, the definitions saying it.
	TaskRequired []string `json:"task_required,omitempty"`
}

// Cache is the schema cache: an Entry for each upstream, by name.
type Cache struct {
	Upstreams map[string]Entry `json:"upstreams"`
}

// DefaultCachePath is where the schema cache of the configuration file at
// config lives when not told: $XDG_CACHE_HOME/folio/upstreams-HASH.json
// (or under the system's cache directory), HASH naming the file's absolute
// path. Folio processes that read one configuration share a cache; those
// of different configurations, which would prune each other's entries, do
// not.
func DefaultCachePath(config string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w; give --schema-cache", err)
	}
	abs, err := filepath.Abs(config)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "folio", "upstreams-"+hex.EncodeToString(sum[:8])+".json"), nil
}

// ReadCache reads the cache file at path. It always returns a usable
// cache: a missing file is empty, and one that cannot be read or parsed is
// empty too, with an error saying why for the caller to warn of.
func ReadCache(path string) (*Cache, error) {
	c := &Cache{Upstreams: map[string]Entry{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err == nil {
		var read Cache
		if err = json.Unmarshal(b, &read); err == nil && read.Upstreams != nil {
			read.compact()
			return &read, nil
		}
		if err == nil {
			err = errors.New(`no "upstreams" object`)
		}
	}
	return c, fmt.Errorf("schema cache %s unusable, starting empty: %w", path, err)
}

// compact makes each tool definition compact, as a discovery takes it
// (the file is indented, and escapes no HTML): a definition is the same,
// byte for byte, whether it was read from the file or discovered.
func (c *Cache) compact() {
	var buf bytes.Buffer
	for _, e := range c.Upstreams {
		for i, raw := range e.Tools {
			buf.Reset()
			if json.Compact(&buf, raw) == nil {
				e.Tools[i] = bytes.Clone(buf.Bytes())
			}
		}
	}
}

// Lookup returns the entry of s when its fingerprint is s's: an entry made
// with another configuration is no entry.
func (c *Cache) Lookup(s Server) (Entry, bool) {
	e, ok := c.Upstreams[s.Name]
	return e, ok && e.Fingerprint == s.Fingerprint()
}

// UpdateCache changes the cache file at path under its lock: it reads the
// file as it is now (another folio may have written it since), lets change
// edit it, and replaces it atomically (0600, its directory made 0700 when
// missing). Two processes sharing the file never tear it and never lose
// each other's entries. An unusable file is started afresh.
func UpdateCache(path string, change func(*Cache)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := atomicfile.Lock(path)
	if err != nil {
		return fmt.Errorf("locking the schema cache %s: %w", path, err)
	}
	defer unlock()
	atomicfile.RemoveLeftovers(path)
	c, _ := ReadCache(path)
	change(c)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// Keep drops the entries of upstreams that are not among servers: those no
// longer configured. Entries of configured upstreams stay, even when they
// could not be reached this run.
func (c *Cache) Keep(servers []Server) {
	configured := map[string]bool{}
	for _, s := range servers {
		configured[s.Name] = true
	}
	for name := range c.Upstreams {
		if !configured[name] {
			delete(c.Upstreams, name)
		}
	}
}
