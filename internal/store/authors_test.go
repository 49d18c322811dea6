package store_test

import (
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestNameAuthors: the posts of several lists get their authors' display
// names, empty for an author without one, a zero post is left alone, a
// boost on a home timeline gets the name of the boosted post's author;
// on another server, which wrote none of it, a second read of the same
// authors comes from the client-side cache alone.
func TestNameAuthors(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		must.OK(t, f.St.SetAbout(f.Ctx, alice.ID, "Alice Liddell", ""))
		a := must.Value(f.St.CreatePost(f.Ctx, alice.ID, "one"))(t)
		b := must.Value(f.St.CreatePost(f.Ctx, bob.ID, "two"))(t)
		first, second, zero := []retwis.Post{a, b}, []retwis.Post{b, a}, []retwis.Post{{}}
		must.OK(t, f.St.NameAuthors(f.Ctx, first, nil, second, zero))
		for _, got := range [][]retwis.Post{first, {second[1], second[0]}} {
			if got[0].AuthorDisplayName != "Alice Liddell" || got[1].AuthorDisplayName != "" {
				t.Errorf("display names %q and %q; want Alice Liddell's, and none for bob", got[0].AuthorDisplayName, got[1].AuthorDisplayName)
			}
		}
		if zero[0].AuthorDisplayName != "" {
			t.Errorf("a zero post got the display name %q", zero[0].AuthorDisplayName)
		}
		carol := f.Register(t, "carol")
		must.OK(t, f.St.Follow(f.Ctx, carol.ID, bob.ID))
		must.Value(f.St.Boost(f.Ctx, bob.ID, a.ID))(t)
		f.Drain(t)
		home, _, err := f.St.HomeTimeline(f.Ctx, carol.ID, retwis.Cursor{}, 10)
		must.OK(t, err)
		must.OK(t, f.St.NameAuthors(f.Ctx, home.Posts))
		if len(home.Posts) == 0 || home.Posts[0].Reblog == nil || home.Posts[0].Reblog.AuthorDisplayName != "Alice Liddell" {
			t.Errorf("carol's home timeline, named: %+v; want bob's boost of alice's post, named Alice Liddell", home.Posts)
		}
		other, calls := storetest.OpenCounting(t, f.URL, store.Options{})
		for round, want := range []int64{1, 0} {
			before := calls.Calls.Load()
			must.OK(t, other.NameAuthors(f.Ctx, first))
			if n := calls.Calls.Load() - before; n != want || first[0].AuthorDisplayName != "Alice Liddell" {
				t.Errorf("read %d by another server: %d round trips, %q; want %d and Alice Liddell's name", round, n, first[0].AuthorDisplayName, want)
			}
		}
	})
}

// BenchmarkNameAuthors times the reading of the display names of a page
// of 50 posts by 5 and by 20 authors, warm (the client-side cache
// answers, on a server that did not write them), beside the store call
// of the warm global timeline page of the same posts, which the page
// pays anyway:
//
//	go test ./internal/store -run '^$' -bench NameAuthors -count 5
func BenchmarkNameAuthors(b *testing.B) {
	for _, authors := range []int{5, 20} {
		f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, true)
		st := f.St
		for a := range authors {
			u, _, err := st.Register(b.Context(), fmt.Sprint("author", a), "password1")
			must.OK(b, err)
			must.OK(b, st.SetAbout(b.Context(), u.ID, fmt.Sprint("Author ", a), ""))
			for range 50 / authors {
				must.Value(st.CreatePost(b.Context(), u.ID, "a post of a realistic length for a status update"))(b)
			}
		}
		f.Drain(b)
		st, calls := storetest.OpenCounting(b, f.URL, store.Options{}) // a server that wrote none of it: read through the cache
		q := store.PageQuery{N: 50}
		page := must.Value(st.TimelinePage(b.Context(), 0, q, 10, 10))(b).Page.Posts
		for _, bm := range []struct {
			name string
			op   func() error
		}{
			{"page", func() error { _, err := st.TimelinePage(b.Context(), 0, q, 10, 10); return err }},
			{"names", func() error { return st.NameAuthors(b.Context(), page) }},
		} {
			b.Run(fmt.Sprint(bm.name, "/", authors), func(b *testing.B) {
				must.OK(b, bm.op()) // warm
				before := calls.Calls.Load()
				for b.Loop() {
					must.OK(b, bm.op())
				}
				b.ReportMetric(float64(calls.Calls.Load()-before)/float64(b.N), "roundtrips/op")
			})
		}
	}
}
