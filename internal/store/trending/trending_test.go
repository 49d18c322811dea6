package trending_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/trending"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// TestTrendingStatuses: posts rise by the replies of others, the
// favourites and the boosts they get, the heaviest first; the author's
// own reply does not count, a second favourite of the same user does
// not either; a post that is not public, one of a suspended account,
// one deleted and one of an account the viewer muted are left out;
// offset pages them.
func TestTrendingStatuses(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ann, bob, cat, spam := f.Register(t, "ann"), f.Register(t, "bob"), f.Register(t, "cat"), f.Register(t, "spam")
		post := func(author retwis.User, text string, v retwis.Visibility) int64 {
			return f.Post(t, posts.Draft{Author: author.ID, Text: text, Visibility: v}).ID
		}
		top, second, third := post(ann, "the top", retwis.Public), post(bob, "the second", retwis.Public), post(cat, "the third", retwis.Public)
		quiet, spammy, gone := post(ann, "unlisted", retwis.Unlisted), post(spam, "spam", retwis.Public), post(bob, "deleted", retwis.Public)
		f.Drain(t)
		f.Post(t, posts.Draft{Author: bob.ID, Text: "a reply", InReplyTo: top})
		f.Post(t, posts.Draft{Author: ann.ID, Text: "my own reply", InReplyTo: second})
		for _, p := range []int64{top, second, quiet, spammy, gone} {
			must.Value(f.St.Favourite(f.Ctx, cat.ID, p))(t)
			must.Value(f.St.Favourite(f.Ctx, bob.ID, p))(t)
		}
		must.Value(f.St.Unfavourite(f.Ctx, cat.ID, top))(t)
		must.Value(f.St.Favourite(f.Ctx, cat.ID, top))(t) // counted once
		must.Value(f.St.Boost(f.Ctx, cat.ID, top))(t)
		must.Value(f.St.Favourite(f.Ctx, ann.ID, third))(t)
		f.Drain(t)
		must.OK(t, f.St.Suspend(f.Ctx, "cli:test", spam.ID, "spam"))
		must.OK(t, f.St.DeletePost(f.Ctx, bob.ID, gone))
		f.Drain(t)
		ids := func(viewer int64, offset, n int) []int64 {
			var out []int64
			for _, p := range must.Value(trending.Statuses(f.Ctx, f.St, viewer, offset, n, time.Now()))(t) {
				out = append(out, p.ID)
			}
			return out
		}
		if got := ids(0, 0, 10); !slices.Equal(got, []int64{top, second, third}) {
			t.Errorf("trending = %v; want %v", got, []int64{top, second, third})
		}
		if got := ids(0, 1, 1); !slices.Equal(got, []int64{second}) {
			t.Errorf("trending from 1, one = %v; want the second", got)
		}
		must.OK(t, f.St.Mute(f.Ctx, cat.ID, bob.ID))
		if got := ids(cat.ID, 0, 10); !slices.Equal(got, []int64{top, third}) {
			t.Errorf("trending as cat, who muted bob = %v", got)
		}
	})
}
