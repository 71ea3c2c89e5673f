package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines are the records of the file at path.
func lines(t *testing.T, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// TestRotate: records written from many goroutines are whole lines, the
// file stays within its bound, one older file is kept, and no record is
// lost but those older still.
func TestRotate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, 4096)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Write(Record{Time: time.Now(), Subject: "alice", Tool: "read", Outcome: "ok", Ms: float64(g*100 + i)})
			}
		}()
	}
	wg.Wait()
	l.Close()
	info, err := os.Stat(path)
	if err != nil || info.Size() > 4096 || info.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v %v", info, err)
	}
	now, older := lines(t, path), lines(t, path+".1")
	if len(now) == 0 || len(older) == 0 || len(now)+len(older) >= 400 {
		t.Errorf("%d records now and %d in the older file, of 400 written (older ones dropped)", len(now), len(older))
	}
	// Reopened, it appends.
	l, _ = Open(path, 4096)
	l.Write(Record{Subject: "bob", Tool: "list", Outcome: "ok"})
	l.Close()
	if got := lines(t, path); got[len(got)-1].Subject != "bob" || len(got) != len(now)+1 && len(got) != 1 {
		t.Errorf("after reopening: %d records, the last %+v", len(got), got[len(got)-1])
	}
}

// TestArgs: arguments are kept only when asked, and bounded.
func TestArgs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, _ := Open(path, 0)
	args := json.RawMessage(`{"uri":"secret.md"}`)
	l.Write(Record{Tool: "read", Args: args})
	l.Args = true
	l.Write(Record{Tool: "read", Args: args})
	l.Write(Record{Tool: "read", Args: json.RawMessage(`"` + strings.Repeat("x", MaxArgBytes) + `"`)})
	l.Write(Record{Tool: strings.Repeat("界", maxText), Error: strings.Repeat("e", 5*maxText)})
	l.Close()
	got := lines(t, path)
	if long := got[3]; len(long.Tool) > maxText+len("…") || !strings.HasSuffix(long.Tool, "界…") || len(long.Error) > maxText+len("…") {
		t.Errorf("a long tool name and error: %d and %d bytes", len(long.Tool), len(long.Error))
	}
	if got[0].Args != nil || string(got[1].Args) != string(args) || !strings.Contains(string(got[2].Args), "bytes, over") {
		t.Errorf("args: %s | %s | %s", got[0].Args, got[1].Args, got[2].Args)
	}
}

// TestRotateFails: when the file cannot be renamed, records still go to
// the file the log has.
func TestRotateFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	l, err := Open(path, 200)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A directory in the way of path.1: the rename fails.
	os.Mkdir(path+".1", 0o700)
	os.WriteFile(filepath.Join(path+".1", "x"), nil, 0o600)
	for range 5 {
		l.Write(Record{Subject: "alice", Tool: "read", Outcome: "ok"})
	}
	if got := lines(t, path); len(got) != 5 {
		t.Errorf("%d records in the file, want all 5", len(got))
	}
}
