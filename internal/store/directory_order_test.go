package store_test

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestDirectoryOrders: the client API's directory lists the users who
// posted, the most recently active first, or every user, the newest
// sign-up first, paged by offset, suspended accounts left out; and a
// database of version 8 gets its users ordered by activity by the
// backfill of maintenance.
func TestDirectoryOrders(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		ann, bob, cat := f.Register(t, "ann"), f.Register(t, "bob"), f.Register(t, "cat")
		f.post(t, posts.Draft{Author: bob.ID, Text: "first"})
		f.post(t, posts.Draft{Author: ann.ID, Text: "second"})
		f.Drain(t)
		read := func(newest bool, offset, n int) []int64 {
			return must.Value(f.St.Directory(f.Ctx, newest, offset, n))(t)
		}
		for _, c := range []struct {
			newest    bool
			offset, n int
			want      []int64
		}{
			{false, 0, 10, []int64{ann.ID, bob.ID}},
			{true, 0, 10, []int64{cat.ID, bob.ID, ann.ID}},
			{true, 1, 1, []int64{bob.ID}},
			{false, 2, 10, []int64{}},
		} {
			if got := read(c.newest, c.offset, c.n); !slices.Equal(got, c.want) {
				t.Errorf("Directory(newest %v, offset %d, n %d) = %v; want %v", c.newest, c.offset, c.n, got, c.want)
			}
		}
		must.OK(t, f.St.Suspend(f.Ctx, "cli:test", ann.ID, ""))
		if got := read(false, 0, 10); !slices.Equal(got, []int64{bob.ID}) {
			t.Errorf("with ann suspended: %v; want bob alone", got)
		}

		f.Do(t, "DEL", schema.UsersByActivity)
		f.Do(t, "SET", schema.VersionKey, "8")
		must.OK(t, f.St.Migrate(f.Ctx, slog.New(slog.DiscardHandler)))
		_, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
		must.OK(t, err)
		if got := f.Strs(t, "ZRANGE", schema.UsersByActivity, "0", "-1", "REV"); !slices.Equal(got, []string{itoa(ann.ID), itoa(bob.ID)}) {
			t.Errorf("users by activity after the backfill: %v; want ann, bob", got)
		}
	})
}
