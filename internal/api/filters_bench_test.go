package api_test

import (
	"context"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// BenchmarkFilteredHomeTimeline times a home timeline of 40 posts
// through the API, warm, for a reader without filters and for one with
// three (storetest.FilteredReaders), on the same server: the cost of
// applying filters. scripts/bench-filters.sh runs the two in turns,
// round after round, and prints their ratio.
func BenchmarkFilteredHomeTimeline(b *testing.B) {
	redisURL := redistest.Start(b).URL
	tokens := storetest.FilteredReaders(b, redisURL, 40, func(ctx context.Context, st *store.Store, uid int64, _ string) (string, error) {
		return st.CreateToken(ctx, uid, "", "bench", retwis.Scopes{"read"})
	})
	s := newServerAt(b, redisURL)
	for _, name := range []string{"unfiltered", "filtered"} {
		b.Run(name, func(b *testing.B) { benchGet(b, s.URL+"/api/v1/timelines/home?limit=40", tokens[name]) })
	}
}
