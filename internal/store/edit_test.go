package store_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// edit edits post pid of author, failing the test on an error.
func (f *fixture) edit(t *testing.T, author, pid int64, text, warning string) retwis.Post {
	t.Helper()
	p, err := f.St.EditPost(f.Ctx, interact.Edit{Author: author, Post: pid, Text: text, Warning: warning})
	if err != nil {
		t.Fatalf("edit post %d to %q: %v", pid, text, err)
	}
	return p
}

// history returns the versions of post pid as viewer sees them,
// failing the test on an error.
func (f *fixture) history(t *testing.T, viewer, pid int64) []retwis.Version {
	t.Helper()
	_, vs, err := f.St.History(f.Ctx, viewer, pid)
	if err != nil {
		t.Fatalf("history of post %d: %v", pid, err)
	}
	return vs
}

// TestEditPost edits a post twice, on one Redis and on a cluster: the
// text and warning change at once with the time of the edit, the
// versions are kept newest first, and once the edit job ran every index
// follows the new text: the old tag's page, trend and completion no
// longer list it, the new tag's do; the user no longer mentioned leaves
// the mentions but keeps the notification, the newly mentioned is
// notified of the mention, then of the second edit, and the one
// mentioned throughout is told of the edits once (an update
// notification, moved to the last); the check finds nothing wrong; and
// the post deleted takes its notifications, of the mention and of the
// edits, with it.
func TestEditPost(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol, dan := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol"), f.Register(t, "dan")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "hello #oldtag @bob @dan"})
		f.Drain(t)
		before := time.Now()
		e := f.edit(t, alice.ID, p.ID, "hello #newtag @carol @dan", "careful")
		if e.Body != "hello #newtag @carol @dan" || e.Warning != "careful" || e.Edited.Before(before.Truncate(time.Millisecond)) || !e.Time.Equal(p.Time) {
			t.Fatalf("edited post %+v; want the new text and warning, edited now, posted when it was", e)
		}
		// Read back at once: the text; its mentions follow with the edit job.
		if got := must.Value(f.St.Post(f.Ctx, bob.ID, p.ID))(t); got.Body != e.Body || got.Warning != e.Warning || !got.Edited.Equal(e.Edited) {
			t.Errorf("the edited post read back: %+v; want %+v", got, e)
		}
		f.Drain(t)
		if got := f.tagPosts(t, "oldtag"); len(got) != 0 {
			t.Errorf("#oldtag = %v; want nothing once edited away", got)
		}
		if got := f.tagPosts(t, "newtag"); !slices.Equal(got, []int64{p.ID}) {
			t.Errorf("#newtag = %v; want the edited post", got)
		}
		if tr := f.trending(t, time.Now()); slices.Contains(tr, "oldtag") || !slices.Contains(tr, "newtag") {
			t.Errorf("trending %v; want newtag, not oldtag", tr)
		}
		if got := f.complete(t, "oldt"); len(got) != 0 {
			t.Errorf("completion of oldt = %v; want none", got)
		}
		if got := f.mentions(t, bob.ID); len(got) != 0 {
			t.Errorf("bob's mentions %v; want none once the edit dropped him", got)
		}
		if got := f.mentions(t, carol.ID); !slices.Equal(got, []int64{p.ID}) {
			t.Errorf("carol's mentions %v; want the edited post", got)
		}
		e2 := f.edit(t, alice.ID, p.ID, "hello #newtag @carol @dan, again", "")
		f.Drain(t)
		id := itoa(p.ID)
		for _, c := range []struct {
			who  retwis.User
			want []string
		}{
			{bob, []string{"mention alice " + id}},
			{carol, []string{"update alice " + id, "mention alice " + id}},
			{dan, []string{"update alice " + id, "mention alice " + id}},
		} {
			if got := f.notes(t, c.who.ID); !slices.Equal(got, c.want) {
				t.Errorf("%s's notifications %q; want %q", c.who.Username, got, c.want)
			}
		}
		hist := f.history(t, 0, p.ID)
		want := []retwis.Version{{Body: e2.Body, Time: e2.Edited}, {Body: e.Body, Warning: "careful", Time: e.Edited}, {Body: p.Body, Time: p.Time}}
		if !reflect.DeepEqual(hist, want) {
			t.Errorf("history %+v; want %+v", hist, want)
		}
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Errorf("check after edits: %v", got)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
		if got := f.notes(t, dan.ID); len(got) != 0 {
			t.Errorf("dan's notifications once the post is deleted: %q; want none (the mention's and the edits' gone)", got)
		}
	})
}

// TestEditRefused: an edit of another's post, of a post that is not
// there, with bad text, or past retwis.MaxEdits is refused saying why,
// and writes nothing; the edit job of a post deleted meanwhile does
// nothing.
func TestEditRefused(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{MaxPostChars: 30}, true)
	alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
	p := f.post(t, posts.Draft{Author: alice.ID, Text: "mine #tag"})
	for i := range retwis.MaxEdits {
		f.edit(t, alice.ID, p.ID, "mine #tag, take "+itoa(int64(i)), "")
	}
	f.Drain(t)
	snap := f.Snapshot(t)
	for _, tc := range []struct {
		e    interact.Edit
		kind retwis.Kind
		want string
	}{
		{interact.Edit{Author: bob.ID, Post: p.ID, Text: "yours"}, retwis.Forbidden, "your own posts"},
		{interact.Edit{Author: alice.ID, Post: p.ID + 1000, Text: "gone"}, retwis.NotFound, "no post"},
		{interact.Edit{Author: alice.ID, Post: p.ID, Text: "  "}, retwis.Invalid, ""},
		{interact.Edit{Author: alice.ID, Post: p.ID, Text: strings.Repeat("x", 31)}, retwis.Invalid, "30"},
		{interact.Edit{Author: alice.ID, Post: p.ID, Text: "one more"}, retwis.Invalid, "edited 20 times at most"},
		{interact.Edit{Author: alice.ID, Post: p.ID, Text: "one more", Key: "bad\x01key"}, retwis.Invalid, "printable"},
	} {
		_, err := f.St.EditPost(f.Ctx, tc.e)
		storetest.WantKind(t, err, tc.kind)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("edit %+v: %v; want %q said", tc.e, err, tc.want)
		}
	}
	f.AssertUnchanged(t, snap)
	if n := len(f.history(t, alice.ID, p.ID)); n != retwis.MaxEdits+1 {
		t.Errorf("%d versions; want %d", n, retwis.MaxEdits+1)
	}
	must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
	if _, fanout, err := f.St.ReconcileEdit(f.Ctx, p.ID); fanout || err != nil {
		t.Errorf("edit job of a deleted post: %v, %v; want nothing to do", fanout, err)
	}
}

// TestEditOnce: an edit costs four round trips; sent again with its
// idempotency key it is applied once (the second text is not) in two,
// and the edit job run again once done changes nothing.
func TestEditOnce(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "hi @bob #one"})
		warm := f.post(t, posts.Draft{Author: alice.ID, Text: "warming up"})
		f.Drain(t)
		f.edit(t, alice.ID, warm.ID, "warmed up", "")   // the first loads the script where it was not
		must.Value(f.St.Post(f.Ctx, alice.ID, p.ID))(t) // its counts and alice's marks in the client-side cache, as on a page she saw
		calls := f.RC.Calls.Load()
		first := must.Value(f.St.EditPost(f.Ctx, interact.Edit{Author: alice.ID, Post: p.ID, Text: "hi @bob #two", Key: "k"}))(t)
		if n := f.RC.Calls.Load() - calls; n != 4 {
			t.Errorf("an edit took %d round trips; want 4 (read and claim the key, write, queue the job, read back)", n)
		}
		calls = f.RC.Calls.Load()
		again := must.Value(f.St.EditPost(f.Ctx, interact.Edit{Author: alice.ID, Post: p.ID, Text: "hi @bob #three", Key: "k"}))(t)
		if n := f.RC.Calls.Load() - calls; n != 2 {
			t.Errorf("an edit sent again took %d round trips; want 2 (read and find the key, read back)", n)
		}
		if again.Body != first.Body || !again.Edited.Equal(first.Edited) {
			t.Errorf("resent edit %+v; want the first edit's post %+v", again, first)
		}
		if n := len(f.history(t, 0, p.ID)); n != 2 {
			t.Errorf("%d versions; want 2 (the edit applied once)", n)
		}
		f.Drain(t)
		snap := f.Snapshot(t)
		if _, fanout, err := f.St.ReconcileEdit(f.Ctx, p.ID); !fanout || err != nil {
			t.Fatalf("edit job again: %v, %v", fanout, err)
		}
		f.AssertUnchanged(t, snap)
		if got := f.tagPosts(t, "two"); !slices.Equal(got, []int64{p.ID}) {
			t.Errorf("#two = %v; want the post", got)
		}
		if got := f.notes(t, bob.ID); !slices.Equal(got, []string{"update alice " + itoa(p.ID), "mention alice " + itoa(p.ID)}) {
			t.Errorf("bob's notifications %q; want the mention and one update (the edit told once)", got)
		}
	})
}

// TestEditJobLost: an edit whose job was lost (its text written, the
// job never queued) is found by the check, whose repair queues the job
// again, after which the indexes follow the text and the check is
// clean.
func TestEditJobLost(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice := f.Register(t, "alice")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "lost #before"})
		f.Drain(t)
		f.Do(t, "HSET", schema.Post(p.ID), schema.FieldBody, "lost #after", schema.FieldEdited, "1700000000000")
		want := []string{"posts: an edited post whose indexes do not follow its text ×1"}
		if got := problems(f.check(t, true)); !slices.Equal(got, want) {
			t.Fatalf("check of a lost edit job: %q; want %q", got, want)
		}
		f.Drain(t)
		if got := f.tagPosts(t, "after"); !slices.Equal(got, []int64{p.ID}) || len(f.tagPosts(t, "before")) != 0 {
			t.Errorf("#after = %v; want the post, and #before empty, once repaired", got)
		}
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Errorf("check once repaired: %v", got)
		}
	})
}

// TestEditNotifiesInteracted: an edit tells those who favourited or
// boosted the post, once each (one who did both, once), but not its
// author nor one who only read it.
func TestEditNotifiesInteracted(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, fan, booster, both, reader := f.Register(t, "alice"), f.Register(t, "fan"), f.Register(t, "booster"),
			f.Register(t, "both"), f.Register(t, "reader")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "first words"})
		f.Drain(t)
		must.Value(f.St.Favourite(f.Ctx, fan.ID, p.ID))(t)
		must.Value(f.St.Boost(f.Ctx, booster.ID, p.ID))(t)
		must.Value(f.St.Favourite(f.Ctx, both.ID, p.ID))(t)
		must.Value(f.St.Boost(f.Ctx, both.ID, p.ID))(t)
		must.Value(f.St.Favourite(f.Ctx, alice.ID, p.ID))(t) // her own: no notification of her edit
		f.Drain(t)
		f.edit(t, alice.ID, p.ID, "better words", "")
		f.Drain(t)
		update := "update alice " + itoa(p.ID)
		for _, u := range []retwis.User{fan, booster, both} {
			if got := f.notes(t, u.ID); !slices.Equal(got, []string{update}) {
				t.Errorf("%s's notifications %q; want the update once", u.Username, got)
			}
		}
		for _, u := range []retwis.User{alice, reader} {
			if got := f.notes(t, u.ID); slices.Contains(got, update) {
				t.Errorf("%s's notifications %q; want no update", u.Username, got)
			}
		}
	})
}
