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

// BenchmarkConversations reads a first page of 20 conversations of a
// reader, each a thread of 3 direct posts with another user, against the
// baseline of the same reader's page of the 20 newest posts that mention
// them (what the Direct page read before: a page of an index of posts,
// through the same read path), interleaved rounds, with the calls of
// each that the client-side cache does not answer (the posts' read goes
// through it, warm in both):
//
//	go test ./internal/store -run '^$' -bench Conversations -benchtime 2000x -count 9
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
		{"mentions-baseline", func() (int, error) {
			p, err := f.St.Mentions(f.Ctx, reader.ID, retwis.Cursor{Before: 1 << 52}, 20)
			return len(p.Posts), err
		}},
		{"conversations", func() (int, error) {
			p, err := f.St.Conversations(f.Ctx, reader.ID, retwis.Cursor{}, 20)
			return len(p.Conversations), err
		}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			calls := f.RC.Calls.Load()
			n := must.Value(bench.read())(b)
			b.ReportMetric(float64(f.RC.Calls.Load()-calls), "uncached-calls")
			if n != 20 {
				b.Fatalf("read %d; want 20", n)
			}
			for b.Loop() {
				must.Value(bench.read())(b)
			}
		})
	}
}
