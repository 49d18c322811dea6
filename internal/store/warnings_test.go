package store_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestContentWarning: a post's content warning is stored as one line
// and read back with the post, on its own page and on the timelines;
// a post without one reads back without; a post resent with its
// idempotency key and another warning is the post first published, as
// with another text; the warning's words enter no
// index (no tag page, no mention), the body's do.
func TestContentWarning(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "the plot #film", Warning: "  spoilers\r\n for\t#hidden @bob  "})
		plain := f.post(t, posts.Draft{Author: alice.ID, Text: "no warning"})
		if p.Warning != "spoilers for #hidden @bob" || plain.Warning != "" {
			t.Fatalf("published warnings %q and %q; want one line and none", p.Warning, plain.Warning)
		}
		equal(t, "the post read back", p)(f.St.Post(f.Ctx, 0, p.ID))
		keyed := f.post(t, posts.Draft{Author: alice.ID, Text: "keyed", Warning: "first", Key: "k"})
		again, err := f.St.Publish(f.Ctx, posts.Draft{Author: alice.ID, Text: "keyed", Warning: "second", Key: "k"})
		if err != nil || again.Post.ID != keyed.ID || again.Post.Warning != "first" {
			t.Errorf("resent with another warning: %+v, %v; want post %d as first published (the key names the post, as with its text)", again.Post, err, keyed.ID)
		}
		equal(t, "the post without a warning read back", plain)(f.St.Post(f.Ctx, 0, plain.ID))
		f.Drain(t)
		timeline, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 10)
		if err != nil || len(timeline.Posts) != 3 || timeline.Posts[2].Warning != p.Warning || timeline.Posts[1].Warning != "" {
			t.Errorf("global timeline %+v, %v; want the warning read with the post", timeline, err)
		}
		if got := f.tagPosts(t, "film"); len(got) != 1 || got[0] != p.ID {
			t.Errorf("#film = %v; want the post (the body's tag)", got)
		}
		if got := f.tagPosts(t, "hidden"); len(got) != 0 {
			t.Errorf("#hidden = %v; want nothing (a warning's words are not indexed)", got)
		}
		if got := f.mentions(t, bob.ID); len(got) != 0 {
			t.Errorf("bob's mentions = %v; want none (a warning mentions nobody)", got)
		}
	})
}

// TestContentWarningLimit: the warning counts with the text against
// MaxPostChars, as Mastodon counts spoiler_text; a post too long
// together, a warning too long alone or holding a control character is
// refused saying why, and nothing is written.
func TestContentWarningLimit(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{MaxPostChars: 30}, true)
	alice := f.Register(t, "alice")
	f.Post(t, posts.Draft{Author: alice.ID, Text: strings.Repeat("é", 20), Warning: strings.Repeat("w", 10)})
	f.Drain(t) // the posts above delivered: nothing changes but what is refused
	before := f.Snapshot(t)
	for _, tc := range []struct {
		d    posts.Draft
		want string
	}{
		{posts.Draft{Author: alice.ID, Text: strings.Repeat("é", 20), Warning: strings.Repeat("w", 11)}, "the content warning and the text together"},
		{posts.Draft{Author: alice.ID, Text: "x", Warning: strings.Repeat("w", 31)}, "Content warnings are at most 30 characters"},
		{posts.Draft{Author: alice.ID, Text: "x", Warning: "bell\a"}, "control characters"},
	} {
		_, err := f.St.Publish(f.Ctx, tc.d)
		storetest.WantKind(t, err, retwis.Invalid)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("warning %q: %v; want %q said", tc.d.Warning, err, tc.want)
		}
	}
	f.AssertUnchanged(t, before)
}
