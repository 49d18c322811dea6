package store

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of the graph queries, whatever the sizes of the graph.
const (
	// graphScan bounds the users followed that a query reads of one user.
	graphScan = 1000
	// suggestFrom is how many of the users the viewer follows "who to
	// follow" asks, drawn at random, and suggestEach how many of the
	// users each of them follows it reads.
	suggestFrom = 10
	suggestEach = 50
)

// graphRange returns the cached read of the third elements of user uid's
// graph after perm and next (see schema.GraphPrefix), at most limit.
func (s *Store) graphRange(uid int64, perm, next string, limit int64) rueidis.CacheableTTL {
	prefix := schema.GraphPrefix(perm, uid, next)
	return rueidis.CT(s.C.B().Zrangebylex().Key(schema.Graph(uid)).Min("["+prefix).Max("["+prefix+"\xff").
		Limit(0, limit).Cache(), s.Opts.CacheTTL)
}

// thirds returns the third elements of the members r holds, read with
// graphRange (the prefix cut off), as user ids where they are.
func thirds(r rueidis.RedisResult) ([]string, error) {
	members, err := r.AsStrSlice()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m[strings.LastIndexByte(m, ':')+1:]
	}
	return out, nil
}

// Relationship returns what links viewer to user, from the graph: what
// user did to viewer (follows, mentioned, replied), the users viewer
// follows who follow user (the first two named) and how many users they
// both follow. It reads, in one round trip through the client-side
// cache, the users viewer follows and those who follow user and whom
// user follows (up to graphScan each: ranges of user's graph that every
// visitor of the profile shares), with what user did to viewer (three
// members of user's graph, not cached: a visitor seldom sees a profile
// twice), and intersects them here; a range longer than graphScan is
// asked about the users viewer follows instead (one ZMSCORE). Then it
// names two. Two round trips cold, one warm.
func (s *Store) Relationship(ctx context.Context, viewer, user int64) (retwis.Relationship, error) {
	var rel retwis.Relationship
	if viewer == user || viewer == 0 {
		return rel, nil
	}
	did := []string{schema.RelFollows, schema.RelMentions, schema.RelReplies}
	members := make([]string, len(did))
	for i, r := range did {
		members[i] = schema.GraphPrefix("spo", user, r) + kernel.ID(viewer)
	}
	var scores []rueidis.RedisMessage
	var rerr error
	var wg sync.WaitGroup
	wg.Go(func() {
		scores, rerr = s.C.Do(ctx, s.C.B().Zmscore().Key(schema.Graph(user)).Member(members...).Build()).ToArray()
	})
	res := s.CachedMulti(ctx, s.graphRange(viewer, "spo", schema.RelFollows, graphScan),
		s.graphRange(user, "ops", schema.RelFollows, graphScan+1), s.graphRange(user, "spo", schema.RelFollows, graphScan+1))
	wg.Wait()
	if rerr == nil && len(scores) != len(did) {
		rerr = kernel.ErrShape
	}
	if rerr != nil {
		return rel, s.Wrap("relationship", rerr)
	}
	rel.FollowsYou, rel.MentionedYou, rel.RepliedToYou = !scores[0].IsNil(), !scores[1].IsNil(), !scores[2].IsNil()
	var lists [3][]string
	for i, r := range res {
		var err error
		if lists[i], err = thirds(r); err != nil {
			return rel, s.Wrap("relationship", err)
		}
	}
	followed := lists[0]
	followers, err := s.among(ctx, user, "ops", lists[1], followed) // who of followed follow user
	if err != nil {
		return rel, err
	}
	both, err := s.among(ctx, user, "spo", lists[2], followed) // whom of followed user follows
	if err != nil {
		return rel, err
	}
	rel.BothFollow, rel.FollowedByCount = len(both), len(followers)
	if len(followers) == 0 {
		return rel, nil
	}
	named := kernel.ParseIDs(followers[:min(2, len(followers))])
	names, err := s.Usernames(ctx, named)
	if err != nil {
		return rel, err
	}
	for _, uid := range named {
		rel.FollowedBy = append(rel.FollowedBy, retwis.User{ID: uid, Username: names[uid]})
	}
	return rel, nil
}

// among returns those of followed (user ids, in their order) that are
// in the range list of user's graph (perm "ops": user's followers,
// "spo": whom user follows), read up to graphScan+1: a complete range is
// intersected here, a longer one is asked about followed with one
// ZMSCORE.
func (s *Store) among(ctx context.Context, user int64, perm string, list, followed []string) ([]string, error) {
	var in []string
	if len(list) <= graphScan {
		set := make(map[string]bool, len(list))
		for _, x := range list {
			set[x] = true
		}
		for _, x := range followed {
			if set[x] {
				in = append(in, x)
			}
		}
		return in, nil
	}
	if len(followed) == 0 {
		return nil, nil
	}
	members := make([]string, len(followed))
	for i, x := range followed {
		members[i] = schema.GraphPrefix(perm, user, schema.RelFollows) + x
	}
	scores, err := s.C.Do(ctx, s.C.B().Zmscore().Key(schema.Graph(user)).Member(members...).Build()).ToArray()
	if err == nil && len(scores) != len(followed) {
		err = kernel.ErrShape
	}
	if err != nil {
		return nil, s.Wrap("relationship", err)
	}
	for i, x := range followed {
		if !scores[i].IsNil() {
			in = append(in, x)
		}
	}
	return in, nil
}

// suggestionsKept is how long the users to follow computed for a user
// are kept, unless the user follows or unfollows someone before.
const suggestionsKept = 10 * time.Minute

// WhoToFollow returns up to n users that many of those viewer follows
// follow (friends of friends), viewer and the users viewer follows left
// out, the most shared first, each with how many of viewer's follows
// follow them. The list is computed from the graph (the users viewer
// follows, then what up to suggestFrom of them, drawn at random, follow,
// up to suggestEach each) and kept for suggestionsKept, or until viewer
// follows or unfollows someone: a home page reads it (cached, with what
// viewer does not see: accounts blocked, muted or suspended, which are
// left out) and the names, no round trip when warm.
func (s *Store) WhoToFollow(ctx context.Context, viewer int64, n int) ([]retwis.Suggestion, error) {
	res := s.CachedMulti(ctx, append([]rueidis.CacheableTTL{
		rueidis.CT(s.C.B().Get().Key(schema.Suggestions(viewer)).Cache(), s.Opts.CacheTTL)}, s.HiddenCmds(viewer)...)...)
	hidden, err := s.ParseHidden(res[1:])
	if err != nil {
		return nil, err
	}
	kept, err := res[0].ToString()
	var found []retwis.Suggestion
	switch {
	case err == nil:
		found = parseSuggestions(kept)
	case rueidis.IsRedisNil(err):
		if found, err = s.suggest(ctx, viewer); err != nil {
			return nil, err
		}
		err = s.C.Do(ctx, s.C.B().Set().Key(schema.Suggestions(viewer)).Value(formatSuggestions(found)).
			Ex(suggestionsKept).Build()).Error()
		if err != nil {
			return nil, s.Wrap("who to follow: keep", err)
		}
	default:
		return nil, s.Wrap("who to follow", err)
	}
	found = slices.DeleteFunc(found, func(f retwis.Suggestion) bool { return hidden.Hides(f.User.ID, retwis.InTimeline) })
	found = found[:min(n, len(found))]
	uids := make([]int64, len(found))
	for i, f := range found {
		uids[i] = f.User.ID
	}
	names, err := s.Usernames(ctx, uids)
	if err != nil {
		return nil, err
	}
	named := found[:0]
	for _, f := range found {
		if f.User.Username = names[f.User.ID]; f.User.Username != "" {
			named = append(named, f)
		}
	}
	return named, nil
}

// maxSuggestions bounds the users to follow kept for a user.
const maxSuggestions = 20

// suggest computes the users to follow of viewer (see WhoToFollow),
// without their names.
func (s *Store) suggest(ctx context.Context, viewer int64) ([]retwis.Suggestion, error) {
	followed, err := thirds(s.CachedMulti(ctx, s.graphRange(viewer, "spo", schema.RelFollows, graphScan))[0])
	if err != nil {
		return nil, s.Wrap("who to follow", err)
	}
	sample := slices.Clone(followed)
	rand.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
	sample = sample[:min(suggestFrom, len(sample))]
	reads := make([]rueidis.CacheableTTL, 0, len(sample))
	for _, x := range kernel.ParseIDs(sample) {
		reads = append(reads, s.graphRange(x, "spo", schema.RelFollows, suggestEach))
	}
	skip := map[string]bool{kernel.ID(viewer): true}
	for _, x := range followed {
		skip[x] = true
	}
	counts := map[int64]int{}
	for _, r := range s.CachedMulti(ctx, reads...) {
		theirs, err := thirds(r)
		if err != nil {
			return nil, s.Wrap("who to follow", err)
		}
		for _, y := range theirs {
			if uid, err := strconv.ParseInt(y, 10, 64); err == nil && !skip[y] {
				counts[uid]++
			}
		}
	}
	found := make([]retwis.Suggestion, 0, len(counts))
	for uid, c := range counts {
		found = append(found, retwis.Suggestion{User: retwis.User{ID: uid}, FollowedBy: c})
	}
	slices.SortFunc(found, func(a, b retwis.Suggestion) int {
		return cmp.Or(cmp.Compare(b.FollowedBy, a.FollowedBy), cmp.Compare(a.User.ID, b.User.ID))
	})
	return found[:min(maxSuggestions, len(found))], nil
}

// formatSuggestions writes suggestions as schema.Suggestions keeps them
// ("" for none), and parseSuggestions reads them back.
func formatSuggestions(found []retwis.Suggestion) string {
	parts := make([]string, len(found))
	for i, f := range found {
		parts[i] = kernel.ID(f.User.ID) + ":" + strconv.Itoa(f.FollowedBy)
	}
	return strings.Join(parts, ",")
}

// parseSuggestions reads what formatSuggestions wrote, skipping what
// does not parse.
func parseSuggestions(kept string) []retwis.Suggestion {
	var found []retwis.Suggestion
	for part := range strings.SplitSeq(kept, ",") {
		u, c, _ := strings.Cut(part, ":")
		uid, err1 := strconv.ParseInt(u, 10, 64)
		n, err2 := strconv.Atoi(c)
		if err1 == nil && err2 == nil {
			found = append(found, retwis.Suggestion{User: retwis.User{ID: uid}, FollowedBy: n})
		}
	}
	return found
}
