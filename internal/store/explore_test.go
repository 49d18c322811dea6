package store_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
)

// account is what the brute force of the directory knows of a user.
type account struct {
	user      retwis.User
	followers int64
	posts     []time.Time // when each post was made (as its hash says)
	joined    time.Time
}

// postsSince counts a's posts made at since or later.
func (a *account) postsSince(since time.Time) int64 {
	var n int64
	for _, t := range a.posts {
		if !t.Before(since) {
			n++
		}
	}
	return n
}

// TestExploreBruteForce makes 40 users with random sign-up days, random
// followers and up to 16 posts (the first of them dated more than a
// week ago, so that some users' posts straddle the start of the week),
// on one Redis and on a cluster, and checks the directory against a
// brute-force computation for random boxes of the three ranges: the
// same accounts, the most followed first, and the count of matches.
func TestExploreBruteForce(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		rng := rand.New(rand.NewPCG(3, 5))
		now := time.Now()
		today := now.UTC().Truncate(24 * time.Hour)
		var all []*account
		for i := range 40 {
			u := f.Register(t, fmt.Sprint("explorer", i))
			joined := today.Add(-time.Duration(rng.IntN(60)) * 24 * time.Hour).Add(time.Hour)
			f.Do(t, "HSET", store.KeyUser(u.ID), store.FieldJoined, itoa(joined.Unix()))
			all = append(all, &account{user: u, joined: joined})
		}
		for _, a := range all {
			for _, b := range all {
				if a != b && rng.IntN(6) == 0 {
					if err := f.St.Follow(f.Ctx, b.user.ID, a.user.ID); err != nil {
						t.Fatal(err)
					}
					a.followers++
				}
			}
			n := rng.IntN(5) * rng.IntN(5)
			old := rng.IntN(n + 1)
			for k := range n {
				p, err := f.St.CreatePost(f.Ctx, a.user.ID, "hello")
				if err != nil {
					t.Fatal(err)
				}
				made := now
				if k < old { // the first ones backdated past the week, older first, as ids go
					made = now.Add(-time.Duration(30-k) * 24 * time.Hour)
					f.Do(t, "HSET", store.KeyPost(p.ID), store.FieldTime, itoa(made.Unix()))
				}
				a.posts = append(a.posts, made)
			}
		}
		f.Drain(t)
		uids := make([]int64, len(all))
		for i, a := range all {
			uids[i] = a.user.ID
		}
		if err := f.St.RefreshDirectory(f.Ctx, uids...); err != nil { // after the backdating
			t.Fatal(err)
		}
		week := now.Add(-retwis.DirectoryWeek)
		brute := func(d retwis.Directory) []string {
			var found []*account
			for _, a := range all {
				day := a.joined.UTC().Truncate(24 * time.Hour)
				if d.Followers.Contains(a.followers) && d.Posts.Contains(a.postsSince(week)) &&
					(d.JoinedFrom.IsZero() || !day.Before(d.JoinedFrom)) && (d.JoinedTo.IsZero() || !day.After(d.JoinedTo)) {
					found = append(found, a)
				}
			}
			slices.SortFunc(found, func(a, b *account) int {
				return cmp.Or(cmp.Compare(b.followers, a.followers), cmp.Compare(a.user.ID, b.user.ID))
			})
			names := []string{}
			for _, a := range found {
				names = append(names, fmt.Sprintf("%s:%d:%d", a.user.Username, a.followers, a.postsSince(week)))
			}
			return names
		}
		randRange := func(top int) retwis.Range {
			lo := int64(rng.IntN(top))
			switch rng.IntN(4) {
			case 0:
				return retwis.Any
			case 1:
				return retwis.Range{Min: lo, Max: -1}
			}
			return retwis.Range{Min: lo, Max: lo + int64(rng.IntN(top))}
		}
		for q := range 300 {
			d := retwis.Directory{Followers: randRange(10), Posts: randRange(12)}
			if rng.IntN(2) == 0 {
				d.JoinedFrom = today.Add(-time.Duration(rng.IntN(70)) * 24 * time.Hour)
			}
			if rng.IntN(2) == 0 {
				d.JoinedTo = d.JoinedFrom.Add(time.Duration(rng.IntN(40)) * 24 * time.Hour)
				if d.JoinedFrom.IsZero() {
					d.JoinedTo = today.Add(-time.Duration(rng.IntN(70)) * 24 * time.Hour)
				}
			}
			l, err := f.St.Explore(f.Ctx, d, 100)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, a := range l.Accounts {
				got = append(got, fmt.Sprintf("%s:%d:%d", a.User.Username, a.Followers, a.PostsThisWeek))
			}
			want := brute(d)
			if !slices.Equal(got, want) || !l.Exact || l.Matched != int64(len(want)) {
				t.Fatalf("query %d %+v:\n got %v (%d matched, exact %v)\nwant %v", q, d, got, l.Matched, l.Exact, want)
			}
		}
	})
}

// TestExploreRepairsOnRead dates a user's posts back past the week
// behind the directory's back: a query for active accounts leaves the
// user out and corrects the entry.
func TestExploreRepairsOnRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "fading")
	var pids []int64
	for range 3 {
		p, err := f.St.CreatePost(f.Ctx, u.ID, "soon old")
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p.ID)
	}
	f.Drain(t)
	active := retwis.Directory{Followers: retwis.Any, Posts: retwis.Range{Min: 3, Max: -1}}
	if l, err := f.St.Explore(f.Ctx, active, 10); err != nil || len(l.Accounts) != 1 || l.Accounts[0].PostsThisWeek != 3 {
		t.Fatalf("before: %+v, %v", l, err)
	}
	before := f.Do(t, "ZSCORE", store.KeyExplore, itoa(u.ID))
	for _, pid := range pids {
		f.Do(t, "HSET", store.KeyPost(pid), store.FieldTime, itoa(time.Now().Add(-8*24*time.Hour).Unix()))
	}
	if l, err := f.St.Explore(f.Ctx, active, 10); err != nil || len(l.Accounts) != 0 {
		t.Fatalf("after the week: %+v, %v", l, err)
	}
	if after := f.Do(t, "ZSCORE", store.KeyExplore, itoa(u.ID)); after == before {
		t.Fatal("the out-of-date entry was not corrected")
	}
	quiet := retwis.Directory{Followers: retwis.Any, Posts: retwis.Range{Min: 0, Max: 0}}
	if l, err := f.St.Explore(f.Ctx, quiet, 10); err != nil || len(l.Accounts) != 1 {
		t.Fatalf("quiet accounts: %+v, %v", l, err)
	}
}

// TestExploreBounded asks for everything of a directory larger than a
// query reads: it reads no more than its budget, says the count is a
// lower bound, and still lists the most followed first.
func TestExploreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	star := f.Register(t, "star")
	fan := f.Register(t, "fan")
	if err := f.St.Follow(f.Ctx, fan.ID, star.ID); err != nil {
		t.Fatal(err)
	}
	day := time.Now().Unix() / 86400
	for i := range accounts.DirectoryBudget + 200 { // entries of users that are not there: never shown
		f.Do(t, "ZADD", store.KeyExplore, fmt.Sprint(store.DirectoryCode(0, 0, day)), itoa(int64(1_000_000+i)))
	}
	l, err := f.St.Explore(f.Ctx, retwis.Directory{Followers: retwis.Any, Posts: retwis.Any}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if l.Exact || l.Matched < accounts.DirectoryBudget || len(l.Accounts) == 0 || l.Accounts[0].User.ID != star.ID {
		t.Fatalf("got %+v", l)
	}
}

// TestExploreRoundTrips: a query of the directory costs three round
// trips cold (the sizes of its ranges, their entries, the facts of those
// shown; the times of posts whose ids tell none are in the client-side
// cache since the refresh of the entries read them), and two warm (the
// facts come from the cache), whatever the number of accounts.
func TestExploreRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // the tutorial's counters: post ids tell no time
	var users []retwis.User
	for i := range 30 {
		users = append(users, f.Register(t, fmt.Sprint("round", i)))
	}
	if _, err := f.St.CreatePost(f.Ctx, users[0].ID, "one"); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	f.St.ForgetWrites()
	for _, c := range []struct {
		d    retwis.Directory
		cold int64
	}{
		{retwis.Directory{Followers: retwis.Any, Posts: retwis.Range{Min: 1, Max: -1}}, 3},
		{retwis.Directory{Followers: retwis.Any, Posts: retwis.Range{Min: 0, Max: 0}}, 3},
	} {
		calls := func() int64 {
			before := f.RC.Calls.Load()
			l, err := f.St.Explore(f.Ctx, c.d, 30)
			if err != nil || len(l.Accounts) == 0 {
				t.Fatalf("explore %+v: %+v, %v", c.d, l, err)
			}
			return f.RC.Calls.Load() - before
		}
		if cold, warm := calls(), calls(); cold != c.cold || warm != 2 {
			t.Fatalf("explore %+v took %d round trips cold, %d warm; want %d and 2", c.d, cold, warm, c.cold)
		}
	}
}
