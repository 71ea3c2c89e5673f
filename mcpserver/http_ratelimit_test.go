package mcpserver

import (
	"testing"
	"time"
)

// TestCarriesRequest: a request counts against a subject's limits; a
// notification or an answer to folio's own request does not.
func TestCarriesRequest(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`:             true,
		`{"method":"ping","jsonrpc":"2.0","id":"a"}`:                             true,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`:       false,
		`{"jsonrpc":"2.0","id":7,"result":{"action":"accept"}}`:                  false,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`:                               false,
		`[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"m"}]`: true,
		`[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"result":{}}]`:  false,
		`not json`: false,
	} {
		if got := carriesRequest([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}

// TestSubjectLimits: a subject's rate and concurrency are its own, a
// request ended gives its place back, and an idle subject's state goes.
func TestSubjectLimits(t *testing.T) {
	l := newSubjectLimits(2, 2)
	now := time.Unix(1000, 0)
	a1, _ := l.admit("alice", now)
	a2, _ := l.admit("alice", now)
	if a1 == nil || a2 == nil {
		t.Fatal("alice's first two")
	}
	if r, wait := l.admit("alice", now); r != nil || wait != time.Second {
		t.Fatalf("alice's third at once: %v", wait)
	}
	bob, _ := l.admit("bob", now)
	if bob == nil {
		t.Fatal("bob while alice is at her bound")
	}
	a1()
	if r, wait := l.admit("alice", now); r != nil || wait <= 0 || wait > time.Second {
		t.Fatalf("alice past her rate: %v", wait)
	}
	if r, _ := l.admit("alice", now.Add(time.Second)); r == nil {
		t.Fatal("alice a second later")
	}
	// Bob's request ends; alice's stay open. Once they are idle long
	// enough, bob's state goes and alice's stays.
	bob()
	l.admit("carol", now.Add(limitIdle+2*time.Minute))
	if _, ok := l.of["bob"]; ok {
		t.Error("bob's state kept after he was idle")
	}
	if _, ok := l.of["alice"]; !ok {
		t.Error("alice's state dropped while her requests are open")
	}
}
