package store_test

import (
	"testing"

	"github.com/retwis/retwis/internal/redistest"
)

// TestClusterRegisterRace runs the sign-up race on Redis Cluster, where
// the name claim must stay atomic although users and user:<id> live on
// different nodes.
func TestClusterRegisterRace(t *testing.T) {
	f := newFixtureAt(t, redistest.Cluster(t))
	if wins := raceRegister(t, f, []string{"Same", "same", "SAME"}, 24); wins != 1 {
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
