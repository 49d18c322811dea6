package store_test

import (
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestMemosFollowChanges: the display names and counts that a server's
// memos keep (kernel.Memo) follow what another server changes, once
// Redis's invalidation reaches them, and a server reads its own changes
// at once; on one Redis and on a cluster.
func TestMemosFollowChanges(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		must.OK(t, f.St.SetAbout(f.Ctx, alice.ID, "Alice", ""))
		p := must.Value(f.St.CreatePost(f.Ctx, alice.ID, "hello"))(t)
		other := storetest.Open(t, f.URL, store.Options{})
		shown := func() retwis.Post { // the post as the other server's global timeline shows it
			t.Helper()
			page := must.Value(other.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 10))(t)
			must.OK(t, other.NameAuthors(f.Ctx, page.Posts))
			for _, q := range page.Posts {
				if q.ID == p.ID {
					return q
				}
			}
			t.Fatalf("the post is not on the global timeline: %v", page.Posts)
			return retwis.Post{}
		}
		f.Drain(t)
		if q := shown(); q.AuthorDisplayName != "Alice" || q.Favourites != 0 {
			t.Fatalf("the post shows %q, %d favourites; want Alice's name and none", q.AuthorDisplayName, q.Favourites)
		}
		shown() // warm: from the memos
		must.OK(t, f.St.SetAbout(f.Ctx, alice.ID, "Alice Liddell", ""))
		must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
		f.Drain(t)
		deadline := time.Now().Add(5 * time.Second)
		for q := shown(); q.AuthorDisplayName != "Alice Liddell" || q.Favourites != 1; q = shown() {
			if time.Now().After(deadline) {
				t.Fatalf("5 s after another server's changes, the post shows %q, %d favourites; want Alice Liddell's name and 1", q.AuthorDisplayName, q.Favourites)
			}
			time.Sleep(5 * time.Millisecond)
		}
		must.OK(t, other.SetAbout(f.Ctx, alice.ID, "Al", "")) // its own change: seen at once
		if q := shown(); q.AuthorDisplayName != "Al" {
			t.Fatalf("a server's own change of the name shows %q; want Al", q.AuthorDisplayName)
		}
	})
}
