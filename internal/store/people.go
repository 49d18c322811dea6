package store

import (
	"cmp"
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// peopleScan bounds the entries of the people index one search reads
// before it ranks the users found by follower count: a prefix that more
// users share ranks the first of them, in the index's order, and typing
// more narrows it.
const peopleScan = 200

// maxPeopleFound bounds the users one search returns.
const maxPeopleFound = 50

// SearchPeople returns up to n users found by query (see
// retwis.SearchWords and retwis.Matches: each word the prefix of the
// username or of a word of the display name, ignoring case and
// accents), the most followed first. It reads a range of the people
// index for the query's longest word, the candidates' follower counts,
// then the names of the most followed: three cached reads (more when
// many candidates drop out). Index entries that no longer match their
// user (a name changed meanwhile) are left out, and suspended accounts
// (accounts.Listed).
func (s *Store) SearchPeople(ctx context.Context, query string, n int) ([]retwis.Person, error) {
	words := retwis.SearchWords(query)
	if len(words) == 0 || n < 1 {
		return nil, nil
	}
	n = min(n, maxPeopleFound)
	key := slices.MaxFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	b := s.C.B()
	res := s.CachedMulti(ctx, rueidis.CT(b.Zrangebylex().Key(schema.People(schema.PeopleOf(key))).
		Min("["+key).Max("["+key+"\xff").Limit(0, peopleScan).Cache(), s.Opts.CacheTTL), s.SuspendedCmd())
	members, err := res[0].AsStrSlice()
	if err != nil {
		return nil, s.Wrap("search people", err)
	}
	suspended, err := s.ParseSuspended(res[1])
	if err != nil {
		return nil, err
	}
	var uids []int64
	for _, m := range members {
		if _, uid, ok := schema.PeopleEntryOf(m); ok && !slices.Contains(uids, uid) {
			uids = append(uids, uid)
		}
	}
	if uids = accounts.Listed(suspended, uids, func(uid int64) int64 { return uid }); len(uids) == 0 {
		return nil, nil
	}
	counts := make([]rueidis.CacheableTTL, len(uids))
	for i, uid := range uids {
		counts[i] = rueidis.CT(b.Zcard().Key(schema.Followers(uid)).Cache(), s.Opts.CacheTTL)
	}
	found := make([]retwis.Person, len(uids))
	for i, r := range s.CachedMulti(ctx, counts...) {
		followers, err := r.AsInt64()
		if err != nil {
			return nil, s.Wrap("search people: followers", err)
		}
		found[i] = retwis.Person{User: retwis.User{ID: uids[i]}, Followers: followers}
	}
	slices.SortStableFunc(found, func(a, b retwis.Person) int { return cmp.Compare(b.Followers, a.Followers) })
	// Then the names of the most followed, a batch at a time, each
	// checked against the words (folding is the costly part): an entry
	// left by a rename, or matching one word of a query of several,
	// drops out. A batch ends between two follower counts, so that
	// ordering each by name orders them all.
	var matched []retwis.Person
	for start := 0; start < len(found) && len(matched) < n; {
		end := min(len(found), start+n-len(matched)+peopleSlack)
		for end < len(found) && found[end].Followers == found[end-1].Followers {
			end++
		}
		batch, err := s.named(ctx, found[start:end])
		if err != nil {
			return nil, err
		}
		for _, p := range batch {
			if retwis.Matches(retwis.SearchTerms(p.User.Username, p.DisplayName), words) {
				matched = append(matched, p)
			}
		}
		start = end
	}
	return matched[:min(n, len(matched))], nil
}

// peopleSlack is how many more users than it still needs a search reads
// the names of at once, for those that drop out.
const peopleSlack = 10

// named fills in the usernames and display names of people (through
// the client-side cache), leaves out those whose user is gone, and
// orders the rest by follower count, then username.
func (s *Store) named(ctx context.Context, people []retwis.Person) ([]retwis.Person, error) {
	cmds := make([]rueidis.CacheableTTL, len(people))
	for i, p := range people {
		cmds[i] = rueidis.CT(s.C.B().Hmget().Key(schema.User(p.User.ID)).Field(schema.FieldUsername, schema.FieldDisplayName).Cache(), s.Opts.CacheTTL)
	}
	var named []retwis.Person
	for i, r := range s.CachedMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return nil, s.Wrap("search people: users", err)
		}
		if len(vals) != 2 {
			return nil, s.Wrap("search people: users", kernel.ErrShape)
		}
		p := people[i]
		p.User.Username, _ = vals[0].ToString()
		p.DisplayName, _ = vals[1].ToString()
		if p.User.Username != "" { // "": a user whose hash is gone
			named = append(named, p)
		}
	}
	slices.SortFunc(named, func(a, b retwis.Person) int {
		return cmp.Or(cmp.Compare(b.Followers, a.Followers), cmp.Compare(a.User.Username, b.User.Username))
	})
	return named, nil
}
