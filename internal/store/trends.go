package store

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// Trending returns the n tags with the heaviest weight at time now: the
// number of posts that used each, every post counting half as much for
// every index.TrendHalfLife since it was posted. It reads the top n of every
// shard of the trends with its epoch (one cached read), brings their
// scores to now and merges them; then the tags' names as first written
// (another). The result is kept for trendsFresh (see trendMemo).
func (s *Store) Trending(ctx context.Context, n int, now time.Time) ([]retwis.Trend, error) {
	if trends, ok := s.trendMemo.get(n, now); ok {
		return trends, nil
	}
	trends, err := s.readTrending(ctx, n, now)
	if err == nil {
		s.trendMemo.put(n, now, trends)
	}
	return trends, err
}

// readTrending reads the n tags trending at now from Redis.
func (s *Store) readTrending(ctx context.Context, n int, now time.Time) ([]retwis.Trend, error) {
	b := s.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, 2*schema.TrendShards)
	for i := range schema.TrendShards {
		cmds = append(cmds,
			rueidis.CT(b.Get().Key(schema.TrendEpoch(i)).Cache(), s.Opts.CacheTTL),
			rueidis.CT(b.Zrevrange().Key(schema.Trends(i)).Start(0).Stop(int64(n-1)).Withscores().Cache(), s.Opts.CacheTTL))
	}
	res := s.CachedMulti(ctx, cmds...)
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
			return nil, s.Wrap("trends", err)
		}
		scores, err := res[2*i+1].AsZScores()
		if err != nil {
			return nil, s.Wrap("trends", err)
		}
		decay := math.Exp2(-now.Sub(time.Unix(epoch, 0)).Seconds() / index.TrendHalfLife.Seconds())
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
		names[i] = rueidis.CT(b.Hget().Key(schema.TagInfo(t.folded)).Field(schema.FieldTagName).Cache(), s.Opts.CacheTTL)
	}
	trends := make([]retwis.Trend, 0, len(top))
	for i, r := range s.CachedMulti(ctx, names...) {
		name, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			name = top[i].folded
		} else if err != nil {
			return nil, s.Wrap("trends: names", err)
		}
		trends = append(trends, retwis.Trend{Tag: name, Weight: top[i].weight})
	}
	return trends, nil
}

// trendsFresh is how long a server shows the trending tags it read
// before reading them again. Merging the 16 shards is the largest part
// of the global timeline page's cost (a quarter of its throughput), and
// trends move over hours: a second's delay is invisible.
const trendsFresh = time.Second

// trendMemo keeps the trending tags last read, by how many were asked
// for. Since every weight decays at the same rate, the tags read at one
// time rank the same at another: only the weights are brought to the
// time asked.
type trendMemo struct {
	mu  sync.Mutex
	byN map[int]trendsRead
}

// trendsRead is the trending tags as read at a time.
type trendsRead struct {
	read   time.Time // when they were read
	now    time.Time // the time their weights are at
	trends []retwis.Trend
}

// get returns the n trending tags at now if they were read less than
// trendsFresh ago.
func (m *trendMemo) get(n int, now time.Time) ([]retwis.Trend, bool) {
	m.mu.Lock()
	r, ok := m.byN[n]
	m.mu.Unlock()
	if !ok || time.Since(r.read) >= trendsFresh {
		return nil, false
	}
	decay := math.Exp2(-now.Sub(r.now).Seconds() / index.TrendHalfLife.Seconds())
	trends := make([]retwis.Trend, len(r.trends))
	for i, t := range r.trends {
		trends[i] = retwis.Trend{Tag: t.Tag, Weight: t.Weight * decay}
	}
	return trends, true
}

// put keeps the n trending tags read for now.
func (m *trendMemo) put(n int, now time.Time, trends []retwis.Trend) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byN == nil {
		m.byN = make(map[int]trendsRead)
	}
	m.byN[n] = trendsRead{read: time.Now(), now: now, trends: slices.Clone(trends)}
}
