package store_test

import (
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkConversations reads a page of 20 conversations of a reader,
// each a thread of 3 direct posts with another user, against the
// baseline of the same reader's page of the 20 newest posts that mention
// them (what the Direct page read before: a page of an index of posts,
// through the same read path), a first page (through the client-side
// cache) and a page by cursor, with the calls of each that the
// client-side cache does not answer, warm. Interleaved rounds:
//
//	go test -c -o /tmp/store.test ./internal/store && cd internal/store &&
//	  for i in $(seq 9); do /tmp/store.test -test.run '^$' -test.bench Conversations -test.benchtime 2000x; done
func BenchmarkConversations(b *testing.B) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, true)
	reader := f.Register(b, "reader")
	for i := range 20 {
		other := f.Register(b, fmt.Sprint("other", i))
		p := f.Post(b, posts.Draft{Author: other.ID, Text: "@reader psst", Visibility: retwis.Direct})
		p = f.Post(b, posts.Draft{Author: reader.ID, Text: "yes?", InReplyTo: p.ID, Visibility: retwis.Direct})
		f.Post(b, posts.Draft{Author: other.ID, Text: "@reader tonight", InReplyTo: p.ID, Visibility: retwis.Direct})
	}
	f.Drain(b)
	for _, bench := range []struct {
		name string
		read func() (int, error)
	}{
		{"first/mentions-baseline", mentions(f, reader.ID, retwis.Cursor{})},
		{"first/conversations", conversations(f, reader.ID, retwis.Cursor{})},
		{"cursor/mentions-baseline", mentions(f, reader.ID, retwis.Cursor{Before: 1 << 52})},
		{"cursor/conversations", conversations(f, reader.ID, retwis.Cursor{Before: 1 << 52})},
	} {
		b.Run(bench.name, func(b *testing.B) {
			if n := must.Value(bench.read())(b); n != 20 { // and the cache is warm
				b.Fatalf("read %d; want 20", n)
			}
			calls := f.RC.Calls.Load()
			for b.Loop() {
				must.Value(bench.read())(b)
			}
			b.ReportMetric(float64(f.RC.Calls.Load()-calls)/float64(b.N), "calls/op")
		})
	}
}

// mentions reads uid's page of mentions at c, returning how many posts.
func mentions(f *storetest.Fixture, uid int64, c retwis.Cursor) func() (int, error) {
	return func() (int, error) {
		p, err := f.St.Mentions(f.Ctx, uid, c, 20)
		return len(p.Posts), err
	}
}

// conversations reads uid's page of conversations at c, returning how
// many.
func conversations(f *storetest.Fixture, uid int64, c retwis.Cursor) func() (int, error) {
	return func() (int, error) {
		p, err := f.St.Conversations(f.Ctx, uid, c, 20)
		return len(p.Conversations), err
	}
}
