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
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Trending returns the n tags with the heaviest weight at time now: the
// number of posts that used each, every post counting half as much for
// every index.TrendHalfLife since it was posted. It reads the top n of every
// shard of the trends with its epoch (one cached read), brings their
// scores to now and merges them; then the tags' names as first written
// (another). The result is kept for trendsFresh (see trendMemo).
func (s *Store) Trending(ctx context.Context, n int, now time.Time) ([]retwis.Trend, error) {
	var first, then kernel.Batch
	t := s.startTrending(n, now, &first)
	s.ReadBatch(ctx, &first)
	t.then(&then)
	s.ReadBatch(ctx, &then)
	return t.done()
}

// trending is the reading of the trending tags (see Trending) along with
// a page's other reads, in two batches: startTrending adds the reads of
// the shards to the first, unless the tags were read lately; once it is
// read, then merges them and adds the reads of the tags' names to the
// second; once that is read, done returns the tags.
type trending struct {
	s      *Store
	n      int
	now    time.Time
	trends []retwis.Trend // read lately, or once done
	kept   bool           // the trends were read lately
	shards kernel.Slot
	top    []trend
	names  kernel.Slot
	err    error
}

// trend is a tag (folded) with its weight.
type trend struct {
	folded string
	weight float64
}

// startTrending adds to first the reads of the n tags trending at now,
// unless they were read lately.
func (s *Store) startTrending(n int, now time.Time, first *kernel.Batch) *trending {
	t := &trending{s: s, n: n, now: now}
	if t.trends, t.kept = s.trendMemo.get(n, now); t.kept {
		return t
	}
	b := s.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, 2*schema.TrendShards)
	for i := range schema.TrendShards {
		cmds = append(cmds,
			rueidis.CT(b.Get().Key(schema.TrendEpoch(i)).Cache(), s.Opts.CacheTTL),
			rueidis.CT(b.Zrevrange().Key(schema.Trends(i)).Start(0).Stop(int64(n-1)).Withscores().Cache(), s.Opts.CacheTTL))
	}
	t.shards = first.Add(cmds...)
	return t
}

// then brings the shards' scores to now, merges them, and adds the reads
// of the names of the n heaviest to b.
func (t *trending) then(b *kernel.Batch) {
	if t.kept {
		return
	}
	s := t.s
	res := t.shards.Replies()
	for i := range schema.TrendShards {
		epoch, err := res[2*i].AsInt64()
		if rueidis.IsRedisNil(err) {
			continue // an empty shard
		}
		if err != nil {
			t.err = s.Wrap("trends", err)
			return
		}
		scores, err := res[2*i+1].AsZScores()
		if err != nil {
			t.err = s.Wrap("trends", err)
			return
		}
		decay := math.Exp2(-t.now.Sub(time.Unix(epoch, 0)).Seconds() / index.TrendHalfLife.Seconds())
		for _, sc := range scores {
			t.top = append(t.top, trend{sc.Member, sc.Score * decay})
		}
	}
	slices.SortFunc(t.top, func(a, b trend) int { return cmp.Compare(b.weight, a.weight) })
	t.top = t.top[:min(t.n, len(t.top))]
	names := make([]rueidis.CacheableTTL, len(t.top))
	for i, tr := range t.top {
		names[i] = rueidis.CT(s.C.B().Hget().Key(schema.TagInfo(tr.folded)).Field(schema.FieldTagName).Cache(), s.Opts.CacheTTL)
	}
	t.names = b.Add(names...)
}

// done returns the trending tags, named as first written, and keeps them
// for trendsFresh.
func (t *trending) done() ([]retwis.Trend, error) {
	if t.kept || t.err != nil {
		return t.trends, t.err
	}
	if len(t.top) > 0 {
		t.trends = make([]retwis.Trend, 0, len(t.top))
	}
	for i, r := range t.names.Replies() {
		name, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			name = t.top[i].folded
		} else if err != nil {
			return nil, t.s.Wrap("trends: names", err)
		}
		t.trends = append(t.trends, retwis.Trend{Tag: name, Weight: t.top[i].weight})
	}
	t.s.trendMemo.put(t.n, t.now, t.trends)
	return t.trends, nil
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
