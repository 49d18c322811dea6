// Package trending reads the trending posts: the public posts rising by
// the replies, favourites and boosts they get, each counting half as
// much for every index.TrendHalfLife since it was made, as the tag
// trends count posts. The weights are written by the delivery jobs of
// the replies (index.Cmds), the favourites and the boosts
// (internal/store/delivery) into schema.StatusTrends, sharded by post
// id; this package merges the shards and reads the posts as the viewer
// sees them. It is its own package, above the online store, because the
// store's top layer is full (docs/ARCHITECTURE.md).
package trending

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxOffset bounds how deep the trending posts are read: Mastodon's
// apps page them by offset.
const MaxOffset = 200

// Statuses returns the trending posts at now that viewer (0: logged out)
// sees, the heaviest first, from the offset-th, at most n: public posts
// only, not boosts, neither those of suspended accounts nor those the
// viewer does not see (blocks both ways, mutes) nor those deleted. Three
// reads through the client-side cache (none when warm): the top of every
// shard with its epoch, then the posts, and what the viewer does not
// see.
func Statuses(ctx context.Context, st *store.Store, viewer int64, offset, n int, now time.Time) ([]retwis.Post, error) {
	offset = min(max(offset, 0), MaxOffset)
	want := offset + n
	top, err := heaviest(ctx, st, 2*want+10, now) // room for those left out
	if err != nil || len(top) == 0 {
		return nil, err
	}
	posts, err := st.Posts(ctx, viewer, top)
	if err != nil {
		return nil, err
	}
	hidden, err := st.Hidden(ctx, viewer)
	if err != nil {
		return nil, err
	}
	shown := make([]retwis.Post, 0, want)
	for _, p := range hidden.Posts(posts, retwis.InTimeline) {
		if p.Visibility == retwis.Public && p.Reblog == nil {
			shown = append(shown, p)
		}
	}
	if offset >= len(shown) {
		return nil, nil
	}
	return shown[offset:min(want, len(shown))], nil
}

// heaviest returns the ids of the k heaviest posts of the trends at now,
// the heaviest first.
func heaviest(ctx context.Context, st *store.Store, k int, now time.Time) ([]int64, error) {
	b := st.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, 2*schema.TrendShards)
	for i := range schema.TrendShards {
		cmds = append(cmds,
			rueidis.CT(b.Get().Key(schema.StatusTrendEpoch(i)).Cache(), st.Opts.CacheTTL),
			rueidis.CT(b.Zrevrange().Key(schema.StatusTrends(i)).Start(0).Stop(int64(k-1)).Withscores().Cache(), st.Opts.CacheTTL))
	}
	res := st.CachedMulti(ctx, cmds...)
	type weighed struct {
		pid    int64
		weight float64
	}
	var all []weighed
	for i := range schema.TrendShards {
		epoch, err := res[2*i].AsInt64()
		if rueidis.IsRedisNil(err) {
			continue // an empty shard
		}
		scores, err2 := res[2*i+1].AsZScores()
		if err = cmp.Or(err, err2); err != nil {
			return nil, st.Wrap("trending posts", err)
		}
		decay := math.Exp2(-now.Sub(time.Unix(epoch, 0)).Seconds() / index.TrendHalfLife.Seconds())
		for _, sc := range scores {
			if pid, err := strconv.ParseInt(sc.Member, 10, 64); err == nil {
				all = append(all, weighed{pid, sc.Score * decay})
			}
		}
	}
	slices.SortFunc(all, func(a, b weighed) int { return cmp.Compare(b.weight, a.weight) })
	ids := make([]int64, min(k, len(all)))
	for i := range ids {
		ids[i] = all[i].pid
	}
	return ids, nil
}
