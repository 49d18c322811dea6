package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkFilteredHome times the home page (50 posts), warm, in
// parallel, for a reader without filters and for one with three
// (storetest.FilteredReaders: a fifth of the posts veiled), on the same
// site: the cost of applying filters to a page. scripts/bench-filters.sh
// runs the two in turns, round after round, and prints their ratio.
func BenchmarkFilteredHome(b *testing.B) {
	redisURL := redistest.Start(b).URL
	sessions := storetest.FilteredReaders(b, redisURL, 50, func(_ context.Context, _ *store.Store, _ int64, session string) (string, error) {
		return session, nil
	})
	s := newSiteAt(b, redisURL, httptest.NewServer)
	for _, name := range []string{"unfiltered", "filtered"} {
		cookie := authCookie(sessions[name])
		b.Run(name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("GET", s.srv.URL+"/", nil)
					req.AddCookie(cookie)
					res, err := s.srv.Client().Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Fatalf("home: %v %v", res, err)
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			})
		})
	}
}
