package store

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// TagInfo returns tag as first written and how many posts it had on each
// of the days days before now (UTC), the oldest first: counts of ranges
// of its composite index, in one cached read.
func (s *Store) TagInfo(ctx context.Context, tag string, days int, now time.Time) (string, []retwis.DayCount, error) {
	f, err := posts.FoldedTag(tag)
	if err != nil {
		return "", nil, err
	}
	b := s.C.B()
	cmds := []rueidis.CacheableTTL{rueidis.CT(b.Hget().Key(schema.TagInfo(f)).Field(schema.FieldTagName).Cache(), s.Opts.CacheTTL)}
	counts := make([]retwis.DayCount, days)
	for i := range counts {
		day := now.UTC().AddDate(0, 0, i-days+1)
		counts[i].Day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		d := schema.Day(day)
		cmds = append(cmds, rueidis.CT(b.Zlexcount().Key(schema.TagDays(f)).Min("["+d+":").Max("["+d+":\xff").Cache(), s.Opts.CacheTTL))
	}
	res := s.CachedMulti(ctx, cmds...)
	name, err := res[0].ToString()
	if rueidis.IsRedisNil(err) {
		return "", nil, retwis.Errorf(retwis.NotFound, "Nobody has used #%s yet.", tag)
	}
	if err != nil {
		return "", nil, s.Wrap("tag", err)
	}
	for i := range counts {
		if counts[i].Posts, err = res[1+i].AsInt64(); err != nil {
			return "", nil, s.Wrap("tag: activity", err)
		}
	}
	return name, counts, nil
}

// completionScan bounds how many entries of the completion index one
// prefix reads, before it ranks them by count.
const completionScan = 200

// CompleteTags returns up to n tags, as first written, that begin with
// prefix (ignoring case and accents), the most used first (then in
// alphabetical order): a range of
// the lexicographic completion index, read through the client-side
// cache.
func (s *Store) CompleteTags(ctx context.Context, prefix string, n int) ([]string, error) {
	f := retwis.FoldTag(strings.TrimPrefix(prefix, "#"))
	if f == "" || len(prefix) > 400 {
		return nil, nil
	}
	cmd := s.C.B().Zrangebylex().Key(schema.Completion(schema.CompletionOf(f))).Min("["+f).Max("["+f+"\xff").
		Limit(0, completionScan).Cache()
	members, err := s.Cached(ctx, cmd, s.Opts.CacheTTL).AsStrSlice()
	if err != nil {
		return nil, s.Wrap("complete tags", err)
	}
	type entry struct {
		folded, tag string
		count       int64
	}
	var found []entry
	for _, m := range members {
		folded, rest, _ := strings.Cut(m, ":")
		count, tag, ok := strings.Cut(rest, ":")
		c, err := strconv.ParseInt(count, 10, 64)
		if ok && err == nil {
			found = append(found, entry{folded, tag, c})
		}
	}
	slices.SortFunc(found, func(a, b entry) int { return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.folded, b.folded)) })
	tags := make([]string, 0, min(n, len(found)))
	for _, e := range found[:min(n, len(found))] {
		tags = append(tags, e.tag)
	}
	return tags, nil
}
