package store_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestTagHistory: a tag's history counts its posts and their distinct
// authors on each of the last days, the newest first, whatever the
// spelling asked; a tag never used, or not a tag, has days of zeros;
// the day's authors expire 8 days after the day began.
func TestTagHistory(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "#Go one"})
		f.post(t, posts.Draft{Author: alice.ID, Text: "#go two"})
		f.post(t, posts.Draft{Author: bob.ID, Text: "#GO three"})
		f.Drain(t)
		now := p.Time
		h := must.Value(f.St.TagHistory(f.Ctx, []string{"go", "#GO", "never", "not a tag"}, 7, now))(t)
		today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
		for i, want := range [][2]int64{{3, 2}, {3, 2}, {0, 0}, {0, 0}} {
			if len(h[i]) != 7 {
				t.Fatalf("tag %d: %d days; want 7", i, len(h[i]))
			}
			for j, d := range h[i] {
				if !d.Day.Equal(today.AddDate(0, 0, -j)) {
					t.Fatalf("tag %d day %d is %v; want %v", i, j, d.Day, today.AddDate(0, 0, -j))
				}
				if j == 0 && (d.Posts != want[0] || d.Accounts != want[1]) || j > 0 && (d.Posts != 0 || d.Accounts != 0) {
					t.Fatalf("tag %d day %d: %d posts by %d accounts; want %v today, none before", i, j, d.Posts, d.Accounts, want)
				}
			}
		}
		ttl := time.Duration(must.Value(strconv.Atoi(f.Do(t, "TTL", schema.TagAuthors("go", schema.Day(now)))))(t)) * time.Second
		if left := today.AddDate(0, 0, schema.TagAuthorsDays).Sub(now); ttl <= 0 || ttl > left+time.Second {
			t.Fatalf("the day's authors live %v; want about %v", ttl, left)
		}
	})
}

// TestTagHistoryRoundTrips: the history of 10 tags costs one round
// trip, as that of one does, and none when the same list is read again
// at once.
func TestTagHistoryRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tags := make([]string, 10)
	for i := range tags {
		tags[i] = fmt.Sprint("tag", i)
	}
	began := time.Now()
	for _, n := range []int{1, 10} {
		before := f.RC.Calls.Load()
		must.Value(f.St.TagHistory(f.Ctx, tags[:n], 7, time.Now()))(t)
		if calls := f.RC.Calls.Load() - before; calls != 1 {
			t.Fatalf("the history of %d tags took %d round trips; want 1", n, calls)
		}
	}
	before := f.RC.Calls.Load()
	must.Value(f.St.TagHistory(f.Ctx, tags, 7, time.Now()))(t)
	if calls := f.RC.Calls.Load() - before; calls != 0 && time.Since(began) < store.TrendsFresh {
		t.Fatalf("the same history again took %d round trips; want 0", calls)
	}
}
