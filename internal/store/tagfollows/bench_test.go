package tagfollows_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/tagfollows"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkTaggedDelivery measures what a followed tag adds to a post's
// delivery: a worker drains a backlog of b.N posts, each to its
// author's 20 followers, without a tag, with a tag nobody follows, and
// with a tag 100 other users follow (who get the post too); and, to
// compare, posts with a tag nobody follows by an author of 120
// followers, the same number of timelines. The time is the drain's
// alone, per post. The sub-benchmarks run in turn, A B C D A B C D,
// round after round with the script:
//
//	scripts/bench-tagfollows.sh 7
func BenchmarkTaggedDelivery(b *testing.B) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, false)
	author := f.Register(b, "author")
	for i := range 20 {
		must.OK(b, f.St.Follow(f.Ctx, f.Register(b, fmt.Sprint("reader", i)).ID, author.ID))
	}
	big := f.Register(b, "big")
	for i := range 100 {
		fan := f.Register(b, fmt.Sprint("fan", i))
		must.Value(tagfollows.New(f.St).Follow(f.Ctx, fan.ID, "followed"))(b)
		must.OK(b, f.St.Follow(f.Ctx, fan.ID, big.ID))
	}
	for i := range 20 {
		must.OK(b, f.St.Follow(f.Ctx, f.Register(b, fmt.Sprint("other", i)).ID, big.ID))
	}
	for _, c := range []struct {
		name   string
		author int64
		text   string
	}{
		{"untagged", author.ID, "a status update of a realistic length"},
		{"tag-unfollowed", author.ID, "a status update of a realistic length #nobody"},
		{"tag-100-followers", author.ID, "a status update of a realistic length #followed"},
		{"120-followers", big.ID, "a status update of a realistic length #nobody"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				must.Value(f.St.CreatePost(f.Ctx, c.author, c.text))(b)
			}
			b.ResetTimer()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { delivery.New(f.St, delivery.Options{Consumer: "bench", Block: 10 * time.Millisecond}).Run(ctx) })
			f.Drain(b)
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}
