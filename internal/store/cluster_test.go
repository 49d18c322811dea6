package store_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestClusterRegisterRace runs the sign-up race on Redis Cluster, where
// the name claim must stay atomic although users and user:<id> live on
// different nodes. The store is given two seed nodes, the first of them
// dead: it starts from the other.
func TestClusterRegisterRace(t *testing.T) {
	t.Parallel()
	url := cluster.URL(t)
	f := newFixtureAt(t, "redis://127.0.0.1:1,"+strings.TrimPrefix(url, "redis://"))
	raw, err := redisconn.Dial(url) // the test's own commands need no dead seed
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	f.Raw = raw
	if err := f.St.Health(f.Ctx); err != nil {
		t.Fatalf("health with a dead seed that is no part of the cluster: %v", err)
	}
	if wins := raceRegister(t, f, []string{"Same", "same", "SAME"}, 24); wins != 1 {
		t.Fatalf("%d sign-ups won; want exactly 1", wins)
	}
	u, err := f.St.UserByName(f.Ctx, "sAmE")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Do(t, "HGET", "user:{"+itoa(u.ID)+"}", "username"); got != u.Username {
		t.Fatalf("user hash holds %q; want %q", got, u.Username)
	}
}

// TestClusterTimelines runs the timeline machinery on Redis Cluster:
// scripts, the delivery stream, celebrity merges and deep paging all touch
// one slot per command.
func TestClusterTimelines(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, cluster.URL(t), store.Options{HomeCap: 15, CelebrityThreshold: 3}, true)
	reader := f.Register(t, "reader")
	star := f.Register(t, "star")
	writer := f.Register(t, "writer")
	must.OK(t, f.St.Follow(f.Ctx, reader.ID, writer.ID))
	must.OK(t, f.St.Follow(f.Ctx, reader.ID, star.ID))
	for i := range 4 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", star.ID, "}"), "1", strconv.Itoa(5000+i))
	}
	var want []int64
	for i := range 40 {
		author := []retwis.User{writer, star}[i%2]
		p, err := f.St.CreatePost(f.Ctx, author.ID, fmt.Sprint("post ", i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p.ID)
	}
	f.Drain(t)
	if err := f.St.DeletePost(f.Ctx, writer.ID, want[0]); err != nil {
		t.Fatal(err)
	}
	want = want[1:]
	slices.Reverse(want)
	if got := pageAll(t, f.Home(t, reader.ID, 10), nil); !slices.Equal(got, want) {
		t.Fatalf("home paging on the cluster saw %v;\nwant %v", got, want)
	}
	f.Drain(t)
}
