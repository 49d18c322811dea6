package deletion_test

import (
	"slices"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestDeleteAccountConversations: an account's direct conversations go
// with it, the one it deleted from its list too; in the others' lists a
// conversation shows their own post that is left, and one with none of
// theirs goes.
func TestDeleteAccountConversations(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		w := newWorld(t, f, 0)
		first := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "@bob psst", Visibility: retwis.Direct})
		answer := f.Post(t, posts.Draft{Author: w.bob.ID, Text: "yes", InReplyTo: first.ID, Visibility: retwis.Direct})
		alone := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "@cy hi", Visibility: retwis.Direct})
		gone := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "@dee hi", Visibility: retwis.Direct})
		f.Drain(t)
		must.OK(t, f.St.DeleteConversation(f.Ctx, w.ann.ID, gone.ID))
		must.OK(t, f.del.DeleteAccount(f.Ctx, w.ann.ID, "password1"))
		f.Drain(t)
		for _, prefix := range []string{"conversations", "conversations_read", "conversation"} {
			if keys := f.Keys(t, prefix+":{"+itoa(w.ann.ID)+"}*"); len(keys) > 0 {
				t.Errorf("ann's keys remain: %v", keys)
			}
		}
		page := must.Value(f.St.Conversations(f.Ctx, w.bob.ID, retwis.Cursor{}, 10))(t)
		if len(page.Conversations) != 1 || page.Conversations[0].Last.ID != answer.ID {
			t.Errorf("bob's conversations: %+v; want his answer left", page.Conversations)
		}
		if got := f.Strs(t, "ZRANGE", "conversations:{"+itoa(w.cy.ID)+"}", "0", "-1"); slices.Contains(got, itoa(alone.ID)) {
			t.Errorf("cy's conversations hold %v; want ann's gone", got)
		}
		if rep := f.Check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check found %v", storetest.Problems(rep))
		}
	})
}
