package store_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
)

// TestSeed seeds a small network and checks that it is consistent: a
// user's home timeline is exactly the newest posts of the user and those
// they follow, logins work, and popularity is skewed.
func TestSeed(t *testing.T) {
	f := newFixture(t)
	o := store.SeedOptions{NetworkOptions: store.NetworkOptions{Users: 300, Posts: 6000, AvgFollows: 10, Span: time.Hour, Seed: 7},
		Password: "seeded pw"}
	stats, err := f.st.Seed(f.ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Users != 300 || stats.Posts != 6000 || stats.Follows < 1500 || stats.Follows > 4500 {
		t.Fatalf("stats = %+v", stats)
	}
	if avg := stats.Follows / stats.Users; stats.MaxFollowers < 8*avg {
		t.Fatalf("the most followed user has %d followers, the average %d: not a power law", stats.MaxFollowers, avg)
	}
	if _, err := f.st.Seed(f.ctx, o); err == nil {
		t.Fatal("seeding a database that holds users succeeded")
	}
	for _, uid := range []int64{1, 150, 300} {
		got := pageAll(t, f.home(t, uid, 50), nil)
		want := f.newestOfFollowed(t, uid)
		if !slices.Equal(got, want) {
			t.Fatalf("user %d: home timeline has %d posts, the authors' indexes %d", uid, len(got), len(want))
		}
	}
	if _, _, err := f.st.Login(f.ctx, "user42", "seeded pw"); err != nil {
		t.Fatalf("a seeded user cannot log in: %v", err)
	}
	if p, err := f.st.GlobalTimeline(f.ctx, retwis.Cursor{}, 10); err != nil || p.Posts[0].ID != 6000 {
		t.Fatalf("global timeline: %v", err)
	}
}

// newestOfFollowed returns every post by uid or someone uid follows,
// newest first, read straight from the indexes.
func (f *fixture) newestOfFollowed(t *testing.T, uid int64) []int64 {
	authors := append(f.strs(t, "ZRANGE", "following:"+itoa(uid), "0", "-1"), itoa(uid))
	var all []int64
	for _, a := range authors {
		for _, p := range f.strs(t, "ZRANGE", "user_posts:"+a, "0", "-1") {
			n, _ := strconv.ParseInt(p, 10, 64)
			all = append(all, n)
		}
	}
	slices.Sort(all)
	slices.Reverse(all)
	return all
}
