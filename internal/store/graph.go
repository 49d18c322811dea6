package store

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
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
	for i, m := range members {
		members[i] = m[strings.LastIndexByte(m, ':')+1:]
	}
	return members, nil
}

// Relationship returns what links viewer to user, from the graph: what
// user did to viewer (follows, mentioned, replied), the users viewer
// follows who follow user (the first two named) and how many users they
// both follow. It reads, in one round trip through the client-side
// cache, the users viewer follows and those who follow user and whom
// user follows (up to graphScan each: ranges of user's graph that every
// visitor of the profile shares), with what user did to viewer (three
// members of user's graph: a read of its own for each pair, kept in the
// cache like the others, so that a visitor who comes back reads it from
// there and a first visit reads it with the rest), and intersects them
// here; a range longer than graphScan is
// asked about the users viewer follows instead (one ZMSCORE). Then it
// names two. Two round trips cold, one warm.
func (s *Store) Relationship(ctx context.Context, viewer, user int64) (retwis.Relationship, error) {
	var first, then kernel.Batch
	r := s.startRelationship(ctx, viewer, user, &first)
	s.ReadBatch(ctx, &first)
	r.then(ctx, &then)
	s.ReadBatch(ctx, &then)
	return r.done(ctx)
}

// relationship is the reading of a Relationship along with a page's
// other reads, in two batches: startRelationship adds its cached reads
// (what user did to viewer, the ranges of their follows) to the first;
// once it is read, then intersects the ranges and adds the reads of the
// names to the second; once that is read, done returns the relationship.
type relationship struct {
	s            *Store
	viewer, user int64
	scores       kernel.Slot // what user did to viewer
	ranges       kernel.Slot
	rel          retwis.Relationship
	named        []int64 // the two users followed who follow user, named
	names        accounts.Names
	err          error
}

// startRelationship begins reading what links viewer to user, adding its
// cached reads to first; none when there is nothing to read (a visitor
// logged out, or one's own profile).
func (s *Store) startRelationship(ctx context.Context, viewer, user int64, first *kernel.Batch) *relationship {
	r := &relationship{s: s, viewer: viewer, user: user}
	if viewer == user || viewer == 0 {
		return r
	}
	did := []string{schema.RelFollows, schema.RelMentions, schema.RelReplies}
	members := make([]string, len(did))
	for i, rel := range did {
		members[i] = schema.GraphPrefix("spo", user, rel) + kernel.ID(viewer)
	}
	r.scores = first.Add(rueidis.CT(s.C.B().Zmscore().Key(schema.Graph(user)).Member(members...).Cache(), s.Opts.CacheTTL))
	r.ranges = first.Add(s.graphRange(viewer, "spo", schema.RelFollows, graphScan),
		s.graphRange(user, "ops", schema.RelFollows, graphScan+1), s.graphRange(user, "spo", schema.RelFollows, graphScan+1))
	return r
}

// then works out the relationship from the first batch's replies, and
// adds the reads of the names it shows to b.
func (r *relationship) then(ctx context.Context, b *kernel.Batch) {
	if r.viewer == r.user || r.viewer == 0 {
		return
	}
	s := r.s
	scores, err := r.scores.Replies()[0].ToArray()
	if err == nil && len(scores) != 3 {
		err = kernel.ErrShape
	}
	if err != nil {
		r.err = s.Wrap("relationship", err)
		return
	}
	r.rel.FollowsYou, r.rel.MentionedYou, r.rel.RepliedToYou = !scores[0].IsNil(), !scores[1].IsNil(), !scores[2].IsNil()
	var lists [3][]string
	for i, res := range r.ranges.Replies() {
		var err error
		if lists[i], err = thirds(res); err != nil {
			r.err = s.Wrap("relationship", err)
			return
		}
	}
	followed := lists[0]
	followers, err := s.among(ctx, r.user, "ops", lists[1], followed) // who of followed follow user
	if err != nil {
		r.err = err
		return
	}
	both, err := s.among(ctx, r.user, "spo", lists[2], followed) // whom of followed user follows
	if err != nil {
		r.err = err
		return
	}
	r.rel.BothFollow, r.rel.FollowedByCount = len(both), len(followers)
	r.named = kernel.ParseIDs(followers[:min(2, len(followers))])
	r.names = s.StartNames(r.named, b)
}

// done returns the relationship, with the users it names.
func (r *relationship) done(ctx context.Context) (retwis.Relationship, error) {
	if r.err != nil || len(r.named) == 0 {
		return r.rel, r.err
	}
	names, err := r.names.Usernames(ctx)
	if err != nil {
		return r.rel, err
	}
	for _, uid := range r.named {
		r.rel.FollowedBy = append(r.rel.FollowedBy, retwis.User{ID: uid, Username: names[uid]})
	}
	return r.rel, nil
}

// among returns those of followed (user ids, in their order) that are
// in the range list of user's graph (perm "ops": user's followers,
// "spo": whom user follows), read up to graphScan+1: a complete range is
// intersected here, a longer one is asked about followed with one
// ZMSCORE.
func (s *Store) among(ctx context.Context, user int64, perm string, list, followed []string) ([]string, error) {
	var in []string
	if len(list) <= graphScan {
		// Both are ranges of a graph by a prefix of their own, in the
		// order of their members, and so of the ids that end them: a
		// merge finds those in both.
		for i, j := 0, 0; i < len(list) && j < len(followed); {
			switch c := strings.Compare(list[i], followed[j]); {
			case c < 0:
				i++
			case c > 0:
				j++
			default:
				in = append(in, followed[j])
				i, j = i+1, j+1
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
	var first, then kernel.Batch
	hidden := first.Add(s.HiddenCmds(viewer)...)
	w := s.startSuggestions(viewer, n, &first)
	s.ReadBatch(ctx, &first)
	h, err := s.ParseHidden(hidden.Replies())
	if err != nil {
		return nil, err
	}
	w.then(ctx, h, &then)
	s.ReadBatch(ctx, &then)
	return w.done(ctx)
}

// suggestions is the reading of who to follow (see WhoToFollow) along
// with a page's other reads, in two batches: startSuggestions adds the
// read of the users kept to the first; once it is read, then computes
// them if none are kept, and adds the reads of their names to the
// second; once that is read, done returns them named.
type suggestions struct {
	s      *Store
	viewer int64
	n      int
	kept   kernel.Slot
	found  []retwis.Suggestion
	names  accounts.Names
	err    error
}

// startSuggestions adds the read of the users to follow kept for viewer
// to first; n is how many are shown.
func (s *Store) startSuggestions(viewer int64, n int, first *kernel.Batch) *suggestions {
	cmd := s.C.B().Get().Key(schema.Suggestions(viewer)).Cache()
	return &suggestions{s: s, viewer: viewer, n: n, kept: first.Add(rueidis.CT(cmd, s.Opts.CacheTTL))}
}

// then takes the users kept, or computes and keeps them, leaves out
// those hidden (what the viewer does not see), and adds the reads of the
// names of the n first to b.
func (w *suggestions) then(ctx context.Context, hidden retwis.Hidden, b *kernel.Batch) {
	s := w.s
	kept, err := w.kept.Replies()[0].ToString()
	var found []retwis.Suggestion
	switch {
	case err == nil:
		found = parseSuggestions(kept)
	case rueidis.IsRedisNil(err):
		if found, err = s.suggest(ctx, w.viewer); err != nil {
			w.err = err
			return
		}
		err = s.C.Do(ctx, s.C.B().Set().Key(schema.Suggestions(w.viewer)).Value(formatSuggestions(found)).
			Ex(suggestionsKept).Build()).Error()
		if err != nil {
			w.err = s.Wrap("who to follow: keep", err)
			return
		}
	default:
		w.err = s.Wrap("who to follow", err)
		return
	}
	found = slices.DeleteFunc(found, func(f retwis.Suggestion) bool { return hidden.Hides(f.User.ID, retwis.InTimeline) })
	w.found = found[:min(w.n, len(found))]
	uids := make([]int64, len(w.found))
	for i, f := range w.found {
		uids[i] = f.User.ID
	}
	w.names = s.StartNames(uids, b)
}

// done returns the users to follow, named; those without a name (gone)
// are left out.
func (w *suggestions) done(ctx context.Context) ([]retwis.Suggestion, error) {
	if w.err != nil {
		return nil, w.err
	}
	names, err := w.names.Usernames(ctx)
	if err != nil {
		return nil, err
	}
	named := w.found[:0]
	for _, f := range w.found {
		if f.User.Username = names[f.User.ID]; f.User.Username != "" {
			named = append(named, f)
		}
	}
	return named, nil
}

// DismissSuggestion takes uid out of viewer's users to follow for good
// (WhoToFollow computes them again without it): one round trip.
func (s *Store) DismissSuggestion(ctx context.Context, viewer, uid int64) error {
	b, dismissed := s.C.B(), schema.SuggestionsDismissed(viewer)
	s.Written.Add(dismissed, schema.Suggestions(viewer))
	return s.Wrap("dismiss a suggestion", redisconn.FirstErr(s.C.DoMulti(ctx,
		b.Zadd().Key(dismissed).ScoreMember().ScoreMember(float64(time.Now().Unix()), kernel.ID(uid)).Build(),
		b.Zremrangebyrank().Key(dismissed).Start(0).Stop(-schema.MaxDismissed-1).Build(),
		b.Del().Key(schema.Suggestions(viewer)).Build())))
}

// maxSuggestions bounds the users to follow kept for a user.
const maxSuggestions = 20

// suggest computes the users to follow of viewer (see WhoToFollow),
// without their names.
func (s *Store) suggest(ctx context.Context, viewer int64) ([]retwis.Suggestion, error) {
	mine := s.CachedMulti(ctx, s.graphRange(viewer, "spo", schema.RelFollows, graphScan),
		rueidis.CT(s.C.B().Zrange().Key(schema.SuggestionsDismissed(viewer)).Min("0").Max("-1").Cache(), s.Opts.CacheTTL))
	followed, err := thirds(mine[0])
	dismissed, derr := mine[1].AsStrSlice()
	if err = cmp.Or(err, derr); err != nil {
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
	for _, x := range slices.Concat(followed, dismissed) {
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
