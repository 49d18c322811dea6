package delivery_test

import (
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
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
