package store_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
)

// TestGraphBruteForce follows and unfollows at random among 25 users, on
// one Redis and on a cluster, and checks every pair's relationship and
// the suggestions of every user who follows no more than who to follow
// samples against a brute-force computation over the follows; mentions
// and replies enter the graph too; a follow renews the suggestions.
func TestGraphBruteForce(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		rng := rand.New(rand.NewPCG(3, 5))
		var users []retwis.User
		for i := range 25 {
			users = append(users, f.Register(t, fmt.Sprint("node", i)))
		}
		follows := map[int64]map[int64]bool{}
		for _, u := range users {
			follows[u.ID] = map[int64]bool{}
		}
		for range 200 {
			a, b := users[rng.IntN(len(users))], users[rng.IntN(len(users))]
			if a.ID == b.ID {
				continue
			}
			if follows[a.ID][b.ID] && rng.IntN(3) == 0 {
				if err := f.St.Unfollow(f.Ctx, a.ID, b.ID); err != nil {
					t.Fatal(err)
				}
				delete(follows[a.ID], b.ID)
			} else {
				if err := f.St.Follow(f.Ctx, a.ID, b.ID); err != nil {
					t.Fatal(err)
				}
				follows[a.ID][b.ID] = true
			}
		}
		f.St.ForgetWrites()
		for _, v := range users {
			for _, p := range users {
				if v.ID == p.ID {
					continue
				}
				var followedBy []int64
				both := 0
				for x := range follows[v.ID] {
					if follows[x][p.ID] {
						followedBy = append(followedBy, x)
					}
					if follows[p.ID][x] {
						both++
					}
				}
				rel, err := f.St.Relationship(f.Ctx, v.ID, p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if rel.FollowsYou != follows[p.ID][v.ID] || rel.FollowedByCount != len(followedBy) || rel.BothFollow != both ||
					len(rel.FollowedBy) != min(2, len(followedBy)) {
					t.Fatalf("relationship of %d to %d = %+v; want follows you %v, followed by %d, both follow %d",
						v.ID, p.ID, rel, follows[p.ID][v.ID], len(followedBy), both)
				}
				for _, u := range rel.FollowedBy {
					if !slices.Contains(followedBy, u.ID) || u.Username != fmt.Sprint("node", u.ID-users[0].ID) {
						t.Fatalf("relationship of %d to %d names %+v, not one of %v", v.ID, p.ID, u, followedBy)
					}
				}
			}
			counts := map[int64]int{}
			for x := range follows[v.ID] {
				for y := range follows[x] {
					if y != v.ID && !follows[v.ID][y] {
						counts[y]++
					}
				}
			}
			var want []retwis.Suggestion
			for y, c := range counts {
				want = append(want, retwis.Suggestion{User: retwis.User{ID: y, Username: fmt.Sprint("node", y-users[0].ID)}, FollowedBy: c})
			}
			slices.SortFunc(want, func(a, b retwis.Suggestion) int {
				return cmp.Or(cmp.Compare(b.FollowedBy, a.FollowedBy), cmp.Compare(a.User.ID, b.User.ID))
			})
			got, err := f.St.WhoToFollow(f.Ctx, v.ID, 5)
			if len(follows[v.ID]) > store.SuggestFrom {
				continue // drawn from a sample: not to be compared
			}
			if err != nil || !slices.Equal(got, want[:min(5, len(want))]) {
				t.Fatalf("who to follow for %d = %+v, %v; want %+v", v.ID, got, err, want[:min(5, len(want))])
			}
		}

		a, b := users[0], users[1]
		parent := f.post(t, posts.Draft{Author: b.ID, Text: "a question"})
		f.post(t, posts.Draft{Author: a.ID, Text: "hello @node2"})
		f.post(t, posts.Draft{Author: a.ID, Text: "an answer", InReplyTo: parent.ID})
		f.Drain(t)
		f.St.ForgetWrites()
		if rel, err := f.St.Relationship(f.Ctx, users[2].ID, a.ID); err != nil || !rel.MentionedYou || rel.RepliedToYou {
			t.Fatalf("node0 to node2 after a mention: %+v, %v", rel, err)
		}
		if rel, err := f.St.Relationship(f.Ctx, b.ID, a.ID); err != nil || !rel.RepliedToYou || rel.MentionedYou {
			t.Fatalf("node0 to node1 after a reply: %+v, %v", rel, err)
		}
	})
}

// TestSuggestionsRenewed: the users to follow are kept, and computed
// anew once the viewer follows someone, who is then no longer suggested,
// or dismisses one, who is never suggested again.
func TestSuggestionsRenewed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b, c, d := f.Register(t, "a"), f.Register(t, "b"), f.Register(t, "c"), f.Register(t, "d")
	for _, p := range [][2]retwis.User{{a, b}, {b, c}, {b, d}} {
		if err := f.St.Follow(f.Ctx, p[0].ID, p[1].ID); err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		found, err := f.St.WhoToFollow(f.Ctx, a.ID, 5)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range found {
			out = append(out, s.User.Username)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("suggestions = %q; want c, d", got)
	}
	if err := f.St.Follow(f.Ctx, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"d"}) {
		t.Fatalf("suggestions after following c = %q; want d", got)
	}
	if err := f.St.Unfollow(f.Ctx, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.St.DismissSuggestion(f.Ctx, a.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("suggestions after dismissing d = %q; want c, for good", got)
	}
}

// TestRelationshipRoundTrips: the relationship panel costs two calls
// cold (the ranges of the visitor's and the profile's graphs with the
// pair's three members of the profile's graph; then the names of two)
// and none warm, whatever the number followed.
func TestRelationshipRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	visitor, profile := f.Register(t, "visitor"), f.Register(t, "profile")
	for i := range 20 {
		u := f.Register(t, fmt.Sprint("mutual", i))
		for _, pair := range [][2]int64{{visitor.ID, u.ID}, {u.ID, profile.ID}} {
			if err := f.St.Follow(f.Ctx, pair[0], pair[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := func() int64 {
		before := f.RC.Calls.Load()
		rel, err := f.St.Relationship(f.Ctx, visitor.ID, profile.ID)
		if err != nil || rel.FollowedByCount != 20 || len(rel.FollowedBy) != 2 {
			t.Fatalf("relationship: %+v, %v", rel, err)
		}
		return f.RC.Calls.Load() - before
	}
	f.St.ForgetWrites()
	if cold, warm := calls(), calls(); cold != 2 || warm != 0 {
		t.Fatalf("the panel took %d round trips cold, %d warm; want 2 and 0", cold, warm)
	}
}
