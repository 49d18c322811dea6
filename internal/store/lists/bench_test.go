package lists_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkListIDs compares the two designs of a list's timeline on the
// read of a page's 21 post ids, for lists of 10, 100 and 1,000 members
// who each wrote 50 posts: fanned out (the design kept: one range of
// the list's timeline, the sorted set delivery pushes onto) and merged
// on read (a range of each member's own posts, in one pipeline, merged).
// go test -run X -bench ListIDs ./internal/store/lists/
func BenchmarkListIDs(b *testing.B) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, false)
	const owner, lid, page = 1, 1, 21
	for _, members := range []int{10, 100, 1000} {
		timeline := schema.ListPosts(owner, lid+int64(members))
		for m := range members {
			args := []string{"ZADD", schema.UserPosts(int64(1000 + m))}
			for p := range 50 {
				id := strconv.Itoa(1_000_000 + p*members + m) // the members' posts interleave in time
				args = append(args, id, id)
			}
			f.Do(b, args...)
			f.Do(b, append([]string{"ZADD", timeline}, args[2:]...)...)
		}
		f.Do(b, "ZREMRANGEBYRANK", timeline, "0", "-801") // capped as delivery caps it
		b.Run(fmt.Sprint("fanout/members=", members), func(b *testing.B) {
			for b.Loop() {
				ids, err := f.Raw.Do(b.Context(), f.Raw.B().Zrevrange().Key(timeline).Start(0).Stop(page-1).Build()).AsIntSlice()
				if err != nil || len(ids) != page {
					b.Fatal(err, len(ids))
				}
			}
		})
		b.Run(fmt.Sprint("merge/members=", members), func(b *testing.B) {
			cmds := make(rueidis.Commands, members)
			for b.Loop() {
				for m := range members {
					cmds[m] = f.Raw.B().Zrevrange().Key(schema.UserPosts(int64(1000 + m))).Start(0).Stop(page - 1).Build()
				}
				var all []int64
				for _, r := range f.Raw.DoMulti(b.Context(), cmds...) {
					ids, err := r.AsIntSlice()
					if err != nil {
						b.Fatal(err)
					}
					all = append(all, ids...)
				}
				slices.Sort(all)
				if len(all[len(all)-page:]) != page {
					b.Fatal(len(all))
				}
			}
		})
	}
}
