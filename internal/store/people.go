package store

import (
	"cmp"
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// peopleScan bounds the entries of the people index one search reads
// before it ranks the users found by follower count: a prefix that more
// users share ranks the first of them, in the index's order, and typing
// more narrows it.
const peopleScan = 200

// maxPeopleFound bounds the users one search returns.
const maxPeopleFound = 50

// peopleWrites are the plain commands that enter user uid in the people
// index under the terms add and take them out of the terms remove (see
// retwis.SearchTerms), each touching the shard of its term.
func peopleWrites(uid int64, add, remove []string) [][]string {
	var cmds [][]string
	for _, t := range remove {
		if !slices.Contains(add, t) {
			cmds = append(cmds, []string{"ZREM", schema.People(schema.PeopleOf(t)), schema.PeopleEntry(t, uid)})
		}
	}
	for _, t := range add {
		if !slices.Contains(remove, t) {
			cmds = append(cmds, []string{"ZADD", schema.People(schema.PeopleOf(t)), "0", schema.PeopleEntry(t, uid)})
		}
	}
	return cmds
}

// SearchPeople returns up to n users found by query (see
// retwis.SearchWords and retwis.Matches: each word the prefix of the
// username or of a word of the display name, ignoring case and
// accents), the most followed first. It reads a range of the people
// index for the query's longest word, then the candidates' names and
// follower counts: two cached reads. Index entries that no longer match
// their user (a name changed meanwhile) are left out.
func (s *Store) SearchPeople(ctx context.Context, query string, n int) ([]retwis.Person, error) {
	words := retwis.SearchWords(query)
	if len(words) == 0 || n < 1 {
		return nil, nil
	}
	n = min(n, maxPeopleFound)
	key := slices.MaxFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	b := s.c.B()
	members, err := s.cached(ctx, b.Zrangebylex().Key(schema.People(schema.PeopleOf(key))).
		Min("["+key).Max("["+key+"\xff").Limit(0, peopleScan).Cache(), s.opts.CacheTTL).AsStrSlice()
	if err != nil {
		return nil, s.wrap("search people", err)
	}
	var uids []int64
	for _, m := range members {
		if _, uid, ok := schema.PeopleEntryOf(m); ok && !slices.Contains(uids, uid) {
			uids = append(uids, uid)
		}
	}
	if len(uids) == 0 {
		return nil, nil
	}
	cmds := make([]rueidis.CacheableTTL, 0, 2*len(uids))
	for _, uid := range uids {
		cmds = append(cmds,
			rueidis.CT(b.Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldDisplayName).Cache(), s.opts.CacheTTL),
			rueidis.CT(b.Zcard().Key(schema.Followers(uid)).Cache(), s.opts.CacheTTL))
	}
	res := s.cachedMulti(ctx, cmds...)
	var found []retwis.Person
	for i, uid := range uids {
		vals, err := res[2*i].ToArray()
		if err != nil {
			return nil, s.wrap("search people: users", err)
		}
		if len(vals) != 2 {
			return nil, s.wrap("search people: users", errShape)
		}
		name, _ := vals[0].ToString()
		display, _ := vals[1].ToString()
		followers, err := res[2*i+1].AsInt64()
		if err != nil {
			return nil, s.wrap("search people: followers", err)
		}
		if name == "" || !retwis.Matches(retwis.SearchTerms(name, display), words) {
			continue // gone, or renamed since it was indexed
		}
		found = append(found, retwis.Person{User: retwis.User{ID: uid, Username: name}, DisplayName: display, Followers: followers})
	}
	slices.SortFunc(found, func(a, b retwis.Person) int {
		return cmp.Or(cmp.Compare(b.Followers, a.Followers), cmp.Compare(a.User.Username, b.User.Username))
	})
	return found[:min(n, len(found))], nil
}
