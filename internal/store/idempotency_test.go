package store_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestCreatePostOnce sends the same post with the same idempotency key
// again, as a client that missed the answer does, also concurrently: one
// post is published, and every answer is that post.
func TestCreatePostOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "retrier")
	first, err := f.St.CreatePostOnce(f.Ctx, u.ID, "only once", "key-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.St.CreatePostOnce(f.Ctx, u.ID, "only once", "key-1")
	if err != nil || again.ID != first.ID {
		t.Fatalf("the retry gave %+v, %v; want post %d", again, err, first.ID)
	}
	var wg sync.WaitGroup
	ids := make(chan int64, 10)
	for range 10 {
		wg.Go(func() {
			p, err := f.St.CreatePostOnce(f.Ctx, u.ID, "concurrent", "key-2")
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
	prof := must.Value(f.St.Profile(f.Ctx, 0, u, retwis.Cursor{}, 10))(t)
	if len(prof.Page.Posts) != 2 {
		t.Fatalf("the profile shows %d posts; want 2 (one per key)", len(prof.Page.Posts))
	}
	f.Drain(t) // so that the worker changes nothing while the database is compared
	for _, bad := range []string{strings.Repeat("k", retwis.MaxIdempotencyKeyLen+1), "tab\tkey", "é"} {
		before := f.Snapshot(t)
		if _, err := f.St.CreatePostOnce(f.Ctx, u.ID, "x", bad); retwis.ErrorKind(err) != retwis.Invalid {
			t.Fatalf("key %q: %v; want invalid", bad, err)
		}
		f.AssertUnchanged(t, before)
	}
}

// TestPublished: Publish returns the post as a read of it gives it, with
// its author's summary as Summary reads it once the post is published
// (the count of posts, the last post's time) and no replies; a repeat
// with its idempotency key returns the same, with the replies it got
// since, on one Redis and on a cluster.
func TestPublished(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		u := f.Register(t, "author")
		other := f.Register(t, "other")
		if err := f.St.Follow(f.Ctx, other.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		f.post(t, posts.Draft{Author: u.ID, Text: "an earlier post"})
		d := posts.Draft{Author: u.ID, Text: "hello @other #tag", Key: "k"}
		p, err := f.St.Publish(f.Ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "the post", p.Post)(f.St.Post(f.Ctx, 0, p.Post.ID))
		equal(t, "its author", p.Author)(f.St.Summary(f.Ctx, u.ID))
		if p.Replies != 0 || p.Author.Posts != 2 || p.Author.Counts.Followers != 1 {
			t.Errorf("published %+v; want no replies, by an author of 2 posts and a follower", p)
		}
		f.post(t, posts.Draft{Author: other.ID, Text: "a reply", InReplyTo: p.Post.ID})
		f.Drain(t)
		again, err := f.St.Publish(f.Ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		p.Replies = 1
		equal(t, "the post published again", again)(p, nil)
	})
}
