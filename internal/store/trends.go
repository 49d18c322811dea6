package store

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// Trending returns the n tags with the heaviest weight at time now: the
// number of posts that used each, every post counting half as much for
// every trendHalfLife since it was posted. It reads the top n of every
// shard of the trends with its epoch (one cached read), brings their
// scores to now and merges them; then the tags' names as first written
// (another).
func (s *Store) Trending(ctx context.Context, n int, now time.Time) ([]retwis.Trend, error) {
	b := s.c.B()
	cmds := make([]rueidis.CacheableTTL, 0, 2*schema.TrendShards)
	for i := range schema.TrendShards {
		cmds = append(cmds,
			rueidis.CT(b.Get().Key(schema.TrendEpoch(i)).Cache(), s.opts.CacheTTL),
			rueidis.CT(b.Zrevrange().Key(schema.Trends(i)).Start(0).Stop(int64(n-1)).Withscores().Cache(), s.opts.CacheTTL))
	}
	res := s.cachedMulti(ctx, cmds...)
	type trend struct {
		folded string
		weight float64
	}
	var top []trend
	for i := range schema.TrendShards {
		epoch, err := res[2*i].AsInt64()
		if rueidis.IsRedisNil(err) {
			continue // an empty shard
		}
		if err != nil {
			return nil, s.wrap("trends", err)
		}
		scores, err := res[2*i+1].AsZScores()
		if err != nil {
			return nil, s.wrap("trends", err)
		}
		decay := math.Exp2(-now.Sub(time.Unix(epoch, 0)).Seconds() / trendHalfLife.Seconds())
		for _, sc := range scores {
			top = append(top, trend{sc.Member, sc.Score * decay})
		}
	}
	slices.SortFunc(top, func(a, b trend) int { return cmp.Compare(b.weight, a.weight) })
	top = top[:min(n, len(top))]
	if len(top) == 0 {
		return nil, nil
	}
	names := make([]rueidis.CacheableTTL, len(top))
	for i, t := range top {
		names[i] = rueidis.CT(b.Hget().Key(schema.TagInfo(t.folded)).Field(schema.FieldTagName).Cache(), s.opts.CacheTTL)
	}
	trends := make([]retwis.Trend, 0, len(top))
	for i, r := range s.cachedMulti(ctx, names...) {
		name, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			name = top[i].folded
		} else if err != nil {
			return nil, s.wrap("trends: names", err)
		}
		trends = append(trends, retwis.Trend{Tag: name, Weight: top[i].weight})
	}
	return trends, nil
}
