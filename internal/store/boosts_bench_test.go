package store_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkBoost compares, on one Redis, 16 goroutines at once, posting
// (to 20 followers) with boosting a post and taking the boost back (a
// pair an iteration, each goroutine a booster of 20 followers of its
// own), the delivery jobs queued and left, as in BenchmarkTopologies:
//
//	go test ./internal/store -run '^$' -bench Boost -benchtime 2s -count 5
func BenchmarkBoost(b *testing.B) {
	gen := must.Value(snowflake.New(2))(b)
	st := storetest.Open(b, redistest.Start(b).URL, store.Options{IDs: gen})
	must.OK(b, st.Migrate(b.Context(), quiet))
	register := func(name string) retwis.User {
		u, _, err := st.Register(b.Context(), name, "password1")
		must.OK(b, err)
		return u
	}
	author := register("author")
	boosters := make([]retwis.User, 32)
	for i := range boosters {
		boosters[i] = register(fmt.Sprint("booster", i))
	}
	for i := range 20 {
		reader := register(fmt.Sprint("reader", i))
		must.OK(b, st.Follow(b.Context(), reader.ID, author.ID))
		for _, u := range boosters {
			must.OK(b, st.Follow(b.Context(), reader.ID, u.ID))
		}
	}
	post := must.Value(st.CreatePost(b.Context(), author.ID, "a status update worth a boost"))(b)
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
	b.Run("boost+unboost", func(b *testing.B) {
		b.SetParallelism(8)
		var goroutines atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			u := boosters[int(goroutines.Add(1)-1)%len(boosters)].ID
			for pb.Next() {
				if _, err := st.Boost(b.Context(), u, post.ID); err != nil {
					b.Error(err)
					return
				}
				if _, err := st.Unboost(b.Context(), u, post.ID); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
