package store_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestCreatePostOnce sends the same post with the same idempotency key
// again, as a client that missed the answer does, also concurrently: one
// post is published, and every answer is that post.
func TestCreatePostOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.register(t, "retrier")
	first, err := f.st.CreatePostOnce(f.ctx, u.ID, "only once", "key-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.st.CreatePostOnce(f.ctx, u.ID, "only once", "key-1")
	if err != nil || again.ID != first.ID {
		t.Fatalf("the retry gave %+v, %v; want post %d", again, err, first.ID)
	}
	var wg sync.WaitGroup
	ids := make(chan int64, 10)
	for range 10 {
		wg.Go(func() {
			p, err := f.st.CreatePostOnce(f.ctx, u.ID, "concurrent", "key-2")
			if err == nil {
				ids <- p.ID
			} else if retwis.ErrorKind(err) != retwis.Conflict {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Fatalf("concurrent sends with one key published %d posts", len(seen))
	}
	prof := must.Value(f.st.Profile(f.ctx, 0, u, retwis.Cursor{}, 10))(t)
	if len(prof.Page.Posts) != 2 {
		t.Fatalf("the profile shows %d posts; want 2 (one per key)", len(prof.Page.Posts))
	}
	f.drain(t) // so that the worker changes nothing while the database is compared
	for _, bad := range []string{strings.Repeat("k", retwis.MaxIdempotencyKeyLen+1), "tab\tkey", "é"} {
		before := f.snapshot(t)
		if _, err := f.st.CreatePostOnce(f.ctx, u.ID, "x", bad); retwis.ErrorKind(err) != retwis.Invalid {
			t.Fatalf("key %q: %v; want invalid", bad, err)
		}
		f.assertUnchanged(t, before)
	}
}
