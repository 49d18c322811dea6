package delivery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkDeliver times the delivery of 100 posts of an author with 20
// active followers, published then drained by the background worker,
// on a real Redis: what a post costs the delivery path, the lists'
// reverse index read included (the author is in no list).
// go test -run X -bench Deliver ./internal/store/delivery/
func BenchmarkDeliver(b *testing.B) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, true)
	author := f.Register(b, "author")
	for i := range 20 {
		reader := f.Register(b, fmt.Sprint("reader", i))
		if err := f.St.Follow(f.Ctx, reader.ID, author.ID); err != nil {
			b.Fatal(err)
		}
		if _, _, err := f.St.HomeTimeline(f.Ctx, reader.ID, retwis.Cursor{}, 1); err != nil { // active
			b.Fatal(err)
		}
	}
	f.Drain(b)
	for b.Loop() {
		for range 100 {
			f.Post(b, posts.Draft{Author: author.ID, Text: "a post"})
		}
		f.Drain(b)
	}
}

// BenchmarkDeliverLinkPreviews is BenchmarkDeliver with a link in every
// post, the worker queueing the previews of links (on: a read of the
// bodies and an XADD a post) or not (off): what link previews cost the
// delivery path, in time and in the worker's round trips a post (its
// blocking reads of the queue included; docs/PERFORMANCE.md, "Link
// previews").
func BenchmarkDeliverLinkPreviews(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
			url := redistest.Start(b).URL
			f := storetest.NewFixture(b, url, store.Options{}, false)
			st, rc := storetest.OpenCounting(b, url, store.Options{})
			runWorker(b, st, delivery.Options{Consumer: "bench", Block: 20 * time.Millisecond, LinkPreviews: on})
			author := f.Register(b, "author")
			for i := range 20 {
				reader := f.Register(b, fmt.Sprint("reader", i))
				if err := f.St.Follow(f.Ctx, reader.ID, author.ID); err != nil {
					b.Fatal(err)
				}
				if _, _, err := f.St.HomeTimeline(f.Ctx, reader.ID, retwis.Cursor{}, 1); err != nil {
					b.Fatal(err)
				}
			}
			f.Drain(b)
			calls := rc.Calls.Load()
			for b.Loop() {
				for range 100 {
					f.Post(b, posts.Draft{Author: author.ID, Text: "a post https://example.com/a/page"})
				}
				f.Drain(b)
			}
			n := float64(100 * b.N)
			b.ReportMetric(float64(rc.Calls.Load()-calls)/n, "worker-roundtrips/post")
		})
	}
}
