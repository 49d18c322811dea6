package store_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestSearchPeopleBruteForce gives 36 users random display names (with
// accents and other scripts) and random followers, on one Redis and on a
// cluster, and checks the people search against a brute-force
// computation for random one- and two-word queries: the same users, the
// most followed first. Renaming moves a user from the old words to the
// new ones.
func TestSearchPeopleBruteForce(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		rng := rand.New(rand.NewPCG(7, 11))
		words := []string{"José", "Jos", "Joseph", "María", "Marie", "Núñez", "Nunes", "Ada", "Adam", "東京", "東", "Ömer", "Omar", "van", "Vanessa"}
		type person struct {
			user      retwis.User
			display   string
			followers int64
		}
		var people []*person
		for i := range 36 {
			u := f.Register(t, fmt.Sprintf("user%02d_%s", i, []string{"jo", "ma", "ad", "x"}[i%4]))
			display := ""
			for range rng.IntN(4) {
				display += words[rng.IntN(len(words))] + " "
			}
			if err := f.St.SetAbout(f.Ctx, u.ID, display, ""); err != nil {
				t.Fatal(err)
			}
			normalized := must.Value(retwis.NormalizeDisplayName(display))(t)
			people = append(people, &person{user: u, display: normalized})
		}
		for _, p := range people {
			for _, q := range people {
				if p != q && rng.IntN(5) == 0 {
					if err := f.St.Follow(f.Ctx, q.user.ID, p.user.ID); err != nil {
						t.Fatal(err)
					}
					p.followers++
				}
			}
		}
		brute := func(query string) []string {
			if len(retwis.SearchWords(query)) == 0 {
				return nil // an empty query finds nobody
			}
			var found []*person
			for _, p := range people {
				if retwis.Matches(retwis.SearchTerms(p.user.Username, p.display), retwis.SearchWords(query)) {
					found = append(found, p)
				}
			}
			slices.SortFunc(found, func(a, b *person) int {
				return cmp.Or(cmp.Compare(b.followers, a.followers), cmp.Compare(a.user.Username, b.user.Username))
			})
			var names []string
			for _, p := range found[:min(len(found), 50)] {
				names = append(names, p.user.Username)
			}
			return names
		}
		search := func(query string) []string {
			found, err := f.St.SearchPeople(f.Ctx, query, 50)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range found {
				names = append(names, p.User.Username)
			}
			return names
		}
		queries := []string{"j", "JOSE", "jos", "josé", "nu", "núñez", "ma", "mari", "東", "東京", "omer", "ö", "van", "user0", "@user1", "ad", "jos ma", "ma jo", "x", "zzz", ""}
		for range 40 {
			w := strings.ToLower(words[rng.IntN(len(words))])
			r := []rune(w)
			queries = append(queries, string(r[:1+rng.IntN(len(r))]))
		}
		for _, q := range queries {
			if got, want := search(q), brute(q); !slices.Equal(got, want) {
				t.Fatalf("search %q = %q; want %q", q, got, want)
			}
		}

		renamed := people[0]
		if err := f.St.SetAbout(f.Ctx, renamed.user.ID, "Zebulon Quartz", ""); err != nil {
			t.Fatal(err)
		}
		renamed.display = "Zebulon Quartz"
		for _, q := range []string{"zeb", "quartz", "jos", "ma", "zebulon qu"} {
			if got, want := search(q), brute(q); !slices.Equal(got, want) {
				t.Fatalf("after renaming, search %q = %q; want %q", q, got, want)
			}
		}
		if got := search("zeb"); len(got) != 1 || got[0] != renamed.user.Username {
			t.Fatalf("the new name finds %q", got)
		}
	})
}

// TestSearchPeopleRoundTrips: a search costs three round trips cold (the
// index range, the follower counts, the names of the most followed) and
// none warm, whatever the number of candidates.
func TestSearchPeopleRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 40 {
		f.Register(t, fmt.Sprint("ann", i))
	}
	calls := func() int64 {
		before := f.RC.Calls.Load()
		found, err := f.St.SearchPeople(f.Ctx, "ann", 10)
		if err != nil || len(found) != 10 {
			t.Fatalf("search: %d found, %v", len(found), err)
		}
		return f.RC.Calls.Load() - before
	}
	f.St.ForgetWrites()
	if cold, warm := calls(), calls(); cold > 3 || warm != 0 {
		t.Fatalf("a search took %d round trips cold, %d warm; want at most 3, none", cold, warm)
	}
}
