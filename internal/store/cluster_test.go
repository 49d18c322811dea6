package store_test

import (
	"sync"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redistest"
)

// TestClusterRegisterRace runs the sign-up race on Redis Cluster, where
// the name claim must stay atomic although users and user:<id> live on
// different nodes.
func TestClusterRegisterRace(t *testing.T) {
	f := newFixtureAt(t, redistest.Cluster(t))
	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		name := []string{"Same", "same", "SAME"}[i%3]
		wg.Go(func() { _, _, errs[i] = f.st.Register(f.ctx, name, "password1") })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else if retwis.ErrorKind(err) != retwis.Conflict {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d sign-ups won; want exactly 1", wins)
	}
	if n := f.do(t, "HLEN", "auths"); n != "1" {
		t.Fatalf("auths has %s entries after the race; want 1", n)
	}
	u, err := f.st.UserByName(f.ctx, "sAmE")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.do(t, "HGET", "user:"+itoa(u.ID), "username"); got != u.Username {
		t.Fatalf("user hash holds %q; want %q", got, u.Username)
	}
}
