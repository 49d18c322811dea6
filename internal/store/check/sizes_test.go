package check_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestMeasureSizes measures the timelines of a reader and the author
// they follow, whose home timelines have archives, on one Redis and on
// a cluster: every post id is counted once, in the list or the archive,
// and every user is sampled, from whichever master holds them.
func TestMeasureSizes(t *testing.T) {
	for _, db := range storetest.Databases(&cluster) {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			f := storetest.NewFixture(t, db.URL(t), store.Options{HomeCap: 5, ArchiveChunk: 3}, true)
			reader, author := f.Register(t, "reader"), f.Register(t, "author")
			must.OK(t, f.St.Follow(f.Ctx, reader.ID, author.ID))
			for i := range 20 {
				f.Post(t, posts.Draft{Author: author.ID, Text: fmt.Sprint("post ", i)})
			}
			f.Drain(t)
			list := must.Value(strconv.ParseInt(f.Do(t, "LLEN", fmt.Sprint("posts:{", reader.ID, "}")), 10, 64))(t)
			s := must.Value(check.MeasureSizes(f.Ctx, f.St, 10))(t)
			switch {
			case s.Users != 2:
				t.Fatalf("%d users sampled; want the 2 there are", s.Users)
			case s.HomeIDs.P50 != 20 || s.HomeIDs.Max != 20:
				t.Fatalf("home timelines of %+v post ids; want 20 each", s.HomeIDs)
			case s.ArchiveIDs.Max != 20-list:
				t.Fatalf("archives of at most %d post ids; want %d, what is not in the list", s.ArchiveIDs.Max, 20-list)
			case s.OwnIDs.Max != 20 || s.OwnIDs.Mean != 10:
				t.Fatalf("own posts %+v; want the author's 20 and the reader's none", s.OwnIDs)
			case s.HomeBytes.P50 <= 0 || s.OwnBytes.Max <= 0:
				t.Fatalf("bytes: home %+v, own %+v; want some", s.HomeBytes, s.OwnBytes)
			}
		})
	}
}
