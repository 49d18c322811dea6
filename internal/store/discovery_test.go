package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestSomePeople draws active users at random: never one unseen for
// months, at most as many as asked, each once; the same draw for a
// moment, and over draws every active user.
func TestSomePeople(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	active := map[string]bool{}
	for i := range 12 {
		u := f.Register(t, fmt.Sprint("person", i))
		if i%3 == 0 {
			f.Do(t, "HSET", store.KeyUser(u.ID), "seen", "1401267700") // 2014
		} else {
			f.Do(t, "HSET", store.KeyUser(u.ID), "seen", fmt.Sprint(time.Now().Unix()))
			active[u.Username] = true
		}
	}
	seen := map[string]bool{}
	for range 20 {
		f.St.ForgetDraw()
		people, err := f.St.SomePeople(f.Ctx, 5)
		if err != nil || len(people) != 5 {
			t.Fatalf("some people: %d, %v; want 5", len(people), err)
		}
		var names []string
		for _, p := range people {
			if !active[p.User.Username] || slices.Contains(names, p.User.Username) {
				t.Fatalf("drew %q: inactive or twice", p.User.Username)
			}
			names = append(names, p.User.Username)
			seen[p.User.Username] = true
		}
		again := must.Value(f.St.SomePeople(f.Ctx, 5))(t)
		if !slices.Equal(again, people) {
			t.Fatal("a second draw within the moment differs")
		}
	}
	if len(seen) != len(active) {
		t.Fatalf("20 draws suggested %d of the %d active users", len(seen), len(active))
	}
}
