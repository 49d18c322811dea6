package store

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// TagHistory returns, for each of tags, how many posts used it and how
// many accounts wrote them on each of the days days before now (UTC),
// the newest first: a ZLEXCOUNT of its composite index and a PFCOUNT of
// the day's authors (see schema.TagAuthors) per tag and day, all in one
// round trip, kept trendsFresh for the same list (see historyMemo). A
// day's accounts are at least one and at most its posts when it had any
// (authors of posts deleted since, or written before the authors were
// kept, are estimated so). A tag never used has days of zeros.
func (s *Store) TagHistory(ctx context.Context, tags []string, days int, now time.Time) ([][]retwis.DayCount, error) {
	folded := make([]string, len(tags))
	for i, tag := range tags {
		folded[i] = retwis.FoldTag(strings.TrimPrefix(tag, "#"))
	}
	key := historyKey(folded, days, now)
	if h, ok := s.historyMemo.get(key); ok {
		return h, nil
	}
	h, err := s.readHistory(ctx, folded, days, now)
	if err == nil {
		s.historyMemo.put(key, h)
	}
	return h, err
}

// readHistory reads the histories of the folded tags for TagHistory.
func (s *Store) readHistory(ctx context.Context, folded []string, days int, now time.Time) ([][]retwis.DayCount, error) {
	out := make([][]retwis.DayCount, len(folded))
	var cmds rueidis.Commands
	for i, f := range folded {
		out[i] = make([]retwis.DayCount, days)
		for j := range out[i] {
			day := now.UTC().AddDate(0, 0, -j)
			out[i][j].Day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
			if f != "" {
				d := schema.Day(day)
				cmds = append(cmds, s.C.B().Zlexcount().Key(schema.TagDays(f)).Min("["+d+":").Max("["+d+":\xff").Build(),
					s.C.B().Pfcount().Key(schema.TagAuthors(f, d)).Build())
			}
		}
	}
	res := s.C.DoMulti(ctx, cmds...)
	for i, f := range folded {
		for j := range out[i] {
			if f == "" {
				continue
			}
			d := &out[i][j]
			var err error
			if d.Posts, err = res[0].AsInt64(); err == nil {
				d.Accounts, err = res[1].AsInt64()
			}
			if err != nil {
				return nil, s.Wrap("tag history", err)
			}
			d.Accounts = max(min(d.Accounts, d.Posts), min(d.Posts, 1))
			res = res[2:]
		}
	}
	return out, nil
}

// historyKey names a list of folded tags, a number of days and the day
// of now, for historyMemo.
func historyKey(folded []string, days int, now time.Time) string {
	return schema.Day(now) + " " + strings.Repeat("+", days) + " " + strings.Join(folded, " ")
}

// historyMemoSize bounds how many lists historyMemo keeps.
const historyMemoSize = 64

// historyMemo keeps the histories of the lists of tags last read, for
// trendsFresh: the trends' list is read with every Trending screen, and
// a day's counts move slowly.
type historyMemo struct {
	mu     sync.Mutex
	byList map[string]historyRead
}

// historyRead is the histories of a list of tags as read at a time.
type historyRead struct {
	read    time.Time
	history [][]retwis.DayCount
}

// get returns the histories of the list key if they were read less than
// trendsFresh ago.
func (m *historyMemo) get(key string) ([][]retwis.DayCount, bool) {
	m.mu.Lock()
	r, ok := m.byList[key]
	m.mu.Unlock()
	if !ok || time.Since(r.read) >= trendsFresh {
		return nil, false
	}
	h := make([][]retwis.DayCount, len(r.history))
	for i := range h {
		h[i] = slices.Clone(r.history[i])
	}
	return h, true
}

// put keeps the histories of the list key, forgetting all others when
// it keeps historyMemoSize.
func (m *historyMemo) put(key string, h [][]retwis.DayCount) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byList == nil || len(m.byList) >= historyMemoSize {
		m.byList = make(map[string]historyRead)
	}
	m.byList[key] = historyRead{read: time.Now(), history: h}
}
