package deletion_test

import (
	"testing"

	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestDeleteAccountBoosts: an account's boosts go with its posts, out
// of the counts of the posts they boosted, and the boosts of its posts
// by others go too.
func TestDeleteAccountBoosts(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		w := newWorld(t, f, 0)
		annPost := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "boost this"})
		annBoost := must.Value(f.St.Boost(f.Ctx, w.ann.ID, w.bobPost.ID))(t)
		deeBoost := must.Value(f.St.Boost(f.Ctx, w.dee.ID, annPost.ID))(t)
		f.Drain(t)
		must.OK(t, f.del.DeleteAccount(f.Ctx, w.ann.ID, "password1"))
		f.Drain(t)
		for _, key := range []string{schema.Post(annBoost.ID), schema.Post(deeBoost.ID), schema.RebloggedBy(w.bobPost.ID),
			schema.RebloggedBy(annPost.ID), schema.Boosts(w.dee.ID)} {
			if f.Do(t, "EXISTS", key) != "0" {
				t.Errorf("%s is still there", key)
			}
		}
		if n := f.Do(t, "HGET", schema.Counts(w.bobPost.ID), schema.FieldReblogs); n != "" {
			t.Errorf("bob's post counts %s boosts; want none (0)", n)
		}
		if rep := f.Check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check found %v", storetest.Problems(rep))
		}
	})
}
