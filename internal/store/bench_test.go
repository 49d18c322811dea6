package store_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkTopologies posts (to 20 followers, delivery queued), follows
// and unfollows, and reads a home page of 10 posts, 16 goroutines at once, on one Redis, on one
// Redis with one or two replicas and WAIT, on a 3-master cluster, and on
// a 3-master cluster with one or two replicas a master (the recommended
// topology) and WAIT, so that the cost of the cluster and of waiting for
// replicas shows in one run:
//
//	go test ./internal/store -run '^$' -bench Topologies -benchtime 3s -count 3
func BenchmarkTopologies(b *testing.B) {
	for _, top := range []struct {
		name string
		url  func(b *testing.B) string
		wait int
	}{
		{"single", func(b *testing.B) string { return redistest.Start(b).URL }, 0},
		{"single+replica+WAIT", func(b *testing.B) string { m, _ := redistest.Replicated(b); return m.URL }, 1},
		{"cluster3", func(b *testing.B) string { return redistest.Cluster(b) }, 0},
		{"single+2replicas+WAIT", func(b *testing.B) string { m, _ := redistest.Replicas(b, 2); return m.URL }, 1},
		{"cluster3+replicas+WAIT", func(b *testing.B) string {
			return "redis://" + strings.Join(redistest.ReplicatedCluster(b).Addrs(), ",")
		}, 1},
		{"cluster3+2replicas+WAIT", func(b *testing.B) string {
			return "redis://" + strings.Join(redistest.RecommendedCluster(b).Addrs(), ",")
		}, 1},
	} {
		b.Run(top.name, func(b *testing.B) {
			gen := must.Value(snowflake.New(2))(b)
			st := storetest.Open(b, top.url(b), store.Options{IDs: gen, WaitReplicas: top.wait})
			if err := st.Migrate(b.Context(), quiet); err != nil {
				b.Fatal(err)
			}
			author, _, err := st.Register(b.Context(), "author", "password1")
			if err != nil {
				b.Fatal(err)
			}
			readers := make([]retwis.User, 20)
			for i := range readers {
				if readers[i], _, err = st.Register(b.Context(), fmt.Sprint("reader", i), "password1"); err != nil {
					b.Fatal(err)
				}
				must.OK(b, st.Follow(b.Context(), readers[i].ID, author.ID))
			}
			b.Run("post", func(b *testing.B) {
				b.SetParallelism(8) // 16 goroutines on 2 cores
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := st.CreatePost(b.Context(), author.ID, "a status update of a realistic length"); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
			b.Run("follow", func(b *testing.B) { // a follow or an unfollow of one reader by another
				b.SetParallelism(8)
				var goroutines atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					g := int(goroutines.Add(1))
					for i := 0; pb.Next(); i++ {
						follower, followee := readers[g%len(readers)].ID, readers[(g+1+i/2)%len(readers)].ID
						if follower == followee {
							continue
						}
						change := st.Follow
						if i%2 == 1 {
							change = st.Unfollow
						}
						if err := change(b.Context(), follower, followee); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
			b.Run("home", func(b *testing.B) {
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for i := 0; pb.Next(); i++ {
						if _, _, err := st.HomeTimeline(b.Context(), readers[i%len(readers)].ID, retwis.Cursor{}, 10); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		})
	}
}

// BenchmarkMarkMemory favourites and bookmarks users × posts posts (each
// user every post), then reports what they take in Redis, per favourite
// and per bookmark: MEMORY USAGE of the keys they write (the users'
// favourites and bookmarks, who favourited each post, its counts)
// summed and divided. Two shapes: many short sets on both sides (small
// sets are listpacks) and users of many favourites (skiplists):
//
//	go test ./internal/store -run '^$' -bench MarkMemory -benchtime 1x
func BenchmarkMarkMemory(b *testing.B) {
	for _, shape := range []struct{ users, posts int }{{200, 50}, {10, 1000}} {
		b.Run(fmt.Sprintf("%dx%d", shape.users, shape.posts), func(b *testing.B) {
			for b.Loop() {
				f := &fixture{storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, true)}
				author := f.Register(b, "author")
				var pids []int64
				for range shape.posts {
					pids = append(pids, must.Value(f.St.CreatePost(f.Ctx, author.ID, "a post"))(b).ID)
				}
				for u := range shape.users {
					uid := f.Register(b, fmt.Sprint("user", u)).ID
					for _, pid := range pids {
						must.Value(f.St.Favourite(f.Ctx, uid, pid))(b)
						must.Value(f.St.Bookmark(f.Ctx, uid, pid))(b)
					}
				}
				f.Drain(b)
				n := float64(shape.users * shape.posts)
				b.ReportMetric(f.memory(b, "favourites:{*}", "favourited_by:{*}", "counts:{*}")/n, "B/favourite")
				b.ReportMetric(f.memory(b, "bookmarks:{*}")/n, "B/bookmark")
			}
		})
	}
}

// memory sums MEMORY USAGE of the keys matching patterns.
func (f *fixture) memory(b *testing.B, patterns ...string) float64 {
	var sum int64
	for _, p := range patterns {
		for _, k := range f.Keys(b, p) {
			sum += must.Value(f.Raw.Do(f.Ctx, f.Raw.B().MemoryUsage().Key(k).Samples(0).Build()).AsInt64())(b)
		}
	}
	return float64(sum)
}
