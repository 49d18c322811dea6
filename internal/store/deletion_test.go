package store_test

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// world is a small network around ann, whose account is deleted: bob and
// cy follow her, she follows bob and dee; she posts with a tag, mentions
// and a reply, bob answers her, dee mentions her; she has a session and
// an API token.
type world struct {
	ann, bob, cy, dee retwis.User
	session, token    string
	annPosts          []int64
	bobPost, bobReply retwis.Post // the post ann answers, and bob's reply to her
}

// newWorld makes the world, with extra more posts of ann's, tagged
// #deleted, and waits for their delivery.
func newWorld(t *testing.T, f *fixture, extra int) world {
	t.Helper()
	var w world
	var err error
	if w.ann, w.session, err = f.st.Register(f.ctx, "ann", "password1"); err != nil {
		t.Fatal(err)
	}
	w.bob, w.cy, w.dee = f.register(t, "bob"), f.register(t, "cy"), f.register(t, "dee")
	if err := f.st.SetAbout(f.ctx, w.ann.ID, "Ann Année", "here"); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]retwis.User{{w.bob, w.ann}, {w.cy, w.ann}, {w.ann, w.bob}, {w.ann, w.dee}} {
		if err := f.st.Follow(f.ctx, pair[0].ID, pair[1].ID); err != nil {
			t.Fatal(err)
		}
	}
	w.bobPost = f.post(t, store.Draft{Author: w.bob.ID, Text: "#Café for all"})
	tagged := f.post(t, store.Draft{Author: w.ann.ID, Text: "#Café with @bob and @cy"})
	reply := f.post(t, store.Draft{Author: w.ann.ID, Text: "agreed #café", InReplyTo: w.bobPost.ID})
	w.annPosts = []int64{tagged.ID, reply.ID}
	w.bobReply = f.post(t, store.Draft{Author: w.bob.ID, Text: "@ann yes", InReplyTo: tagged.ID})
	f.post(t, store.Draft{Author: w.dee.ID, Text: "hi @ann #deleted"})
	for i := range extra {
		w.annPosts = append(w.annPosts, f.post(t, store.Draft{Author: w.ann.ID, Text: fmt.Sprint("#deleted number ", i, " for @cy")}).ID)
	}
	if w.token, err = f.st.CreateToken(f.ctx, w.ann.ID, "", "script", retwis.Scopes{"read", "write"}); err != nil {
		t.Fatal(err)
	}
	f.drain(t)
	return w
}

// assertGone checks that nothing refers to ann any more, key by key, that
// the others' data stands, and that a check finds nothing wrong.
func (w world) assertGone(t *testing.T, f *fixture) {
	t.Helper()
	a := itoa(w.ann.ID)
	for _, prefix := range []string{"user", "followers", "following", "posts", "archive", "user_posts", "mentions",
		"notifications", "graph", "suggestions", "celebrities_followed", "tokens", "tokens_used", "login_failures",
		"login_notice", "deleting"} {
		if keys := f.keys(t, prefix+":{"+a+"}*"); len(keys) > 0 {
			t.Errorf("ann's keys remain: %v", keys)
		}
	}
	for _, other := range []retwis.User{w.bob, w.cy, w.dee} {
		o := itoa(other.ID)
		for _, key := range []string{"followers:{" + o + "}", "following:{" + o + "}", "celebrities_followed:{" + o + "}"} {
			if slices.Contains(f.strs(t, "ZRANGE", key, "0", "-1"), a) {
				t.Errorf("%s still holds ann", key)
			}
		}
		for _, m := range f.strs(t, "ZRANGE", "graph:{"+o+"}", "0", "-1") {
			if strings.HasSuffix(m, ":"+a) {
				t.Errorf("graph:{%s} still relates to ann: %s", o, m)
			}
		}
		for _, m := range f.strs(t, "ZRANGE", "notifications:{"+o+"}", "0", "-1") {
			if strings.Split(m, ":")[1] == a {
				t.Errorf("%s still has a notification from ann: %s", other.Username, m)
			}
		}
		w.assertNone(t, f, "mentions:{"+o+"}", f.strs(t, "ZRANGE", "mentions:{"+o+"}", "0", "-1"))
		w.assertNone(t, f, "posts:{"+o+"}", f.strs(t, "LRANGE", "posts:{"+o+"}", "0", "-1"))
	}
	w.assertNone(t, f, "the global timeline", f.strs(t, "LRANGE", "timeline", "0", "-1"))
	w.assertNone(t, f, "tag café", f.strs(t, "ZRANGE", store.KeyTag("cafe"), "0", "-1"))
	w.assertNone(t, f, "the replies of bob's post", f.strs(t, "ZRANGE", "replies:{"+itoa(w.bobPost.ID)+"}", "0", "-1"))
	for _, key := range []string{store.KeyExplore, "users_by_time"} {
		if slices.Contains(f.strs(t, "ZRANGE", key, "0", "-1"), a) || slices.Contains(f.strs(t, "ZRANGE", key, "0", "-1"), "ann") {
			t.Errorf("%s still holds ann", key)
		}
	}
	if found, err := f.st.SearchPeople(f.ctx, "Année", 10); err != nil || len(found) != 0 {
		t.Errorf("the people search finds %v, %v", found, err)
	}
	if n := f.completions(t, "cafe"); n != "1" {
		t.Errorf("#café is counted %s times in the completion; want 1, bob's post", n)
	}
	if th, err := f.st.Thread(f.ctx, 0, w.bobReply.ID, 0, 10); err != nil || !th.ParentGone {
		t.Errorf("bob's reply to ann: %+v, %v; want it standing, in reply to a deleted post", th, err)
	}
	if got := problems(f.check(t, false)); len(got) != 0 {
		t.Errorf("the check found %v after the deletion", got)
	}
}

// assertNone checks that the post ids ids (of what) hold none of ann's.
func (w world) assertNone(t *testing.T, f *fixture, what string, ids []string) {
	t.Helper()
	for _, pid := range w.annPosts {
		if slices.Contains(ids, itoa(pid)) {
			t.Errorf("%s still holds ann's post %d", what, pid)
		}
	}
}

// assertLocked checks that ann's account answers to nothing.
func (w world) assertLocked(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := f.st.Authenticate(f.ctx, w.session); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("ann's session: %v; want it ended", err)
	}
	if _, err := f.st.AuthenticateToken(f.ctx, w.token); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("ann's API token: %v; want it ended (401)", err)
	}
	if _, _, err := f.st.Login(f.ctx, "ann", "password1"); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("logging in as ann: %v; want refused", err)
	}
	if _, err := f.st.Summary(f.ctx, w.ann.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("ann's account by id: %v; want 404", err)
	}
	_, _, err := f.st.Register(f.ctx, "ANN", "password2")
	if retwis.ErrorKind(err) != retwis.Conflict || !strings.Contains(err.Error(), "reserved until") {
		t.Errorf("registering ann's name: %v; want it reserved", err)
	}
}

// keys returns the keys matching pattern on every master.
func (f *fixture) keys(t *testing.T, pattern string) []string {
	t.Helper()
	var all []string
	for _, node := range f.raw.Nodes() {
		keys, err := node.Do(f.ctx, node.B().Keys().Pattern(pattern).Build()).AsStrSlice()
		if err == nil {
			all = append(all, keys...)
		}
	}
	return all
}

// completions returns how many posts the completion counts for a folded
// tag ("" for none).
func (f *fixture) completions(t *testing.T, folded string) string {
	t.Helper()
	for _, m := range f.strs(t, "ZRANGEBYLEX", store.KeyCompletionOf(folded), "["+folded+":", "["+folded+":\xff") {
		return strings.Split(m, ":")[1]
	}
	return ""
}

// TestDeleteSmallAccount deletes an account within the request: a wrong
// password writes nothing; the right one ends every way in at once and
// removes everything that refers to the account, which a check confirms;
// the name stays reserved.
func TestDeleteSmallAccount(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		w := newWorld(t, f, 3)
		before := f.snapshot(t)
		for _, wrong := range []string{"password2", "", strings.Repeat("x", 200)} {
			wantKind(t, f.st.DeleteAccount(f.ctx, w.ann.ID, wrong), retwis.Invalid)
		}
		f.assertUnchanged(t, before)
		if err := f.st.DeleteAccount(f.ctx, w.ann.ID, "password1"); err != nil {
			t.Fatal(err)
		}
		d, err := f.st.Deletion(f.ctx, "Ann")
		if err != nil || !d.Done || time.Until(d.Reserved) < kernel.DefaultNameReserve-time.Hour {
			t.Fatalf("the deletion: %+v, %v; want done, the name reserved for 30 days", d, err)
		}
		w.assertLocked(t, f)
		f.drain(t)
		w.assertGone(t, f)
		if _, err := f.st.Deletion(f.ctx, "bob"); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("the deletion of bob, who is not deleted: %v", err)
		}
		// A follow that raced the deletion, written on bob's side after
		// the deletion ended his: a check finds it, a repair ends it.
		following := "following:{" + itoa(w.bob.ID) + "}"
		f.do(t, "ZADD", following, "1", itoa(w.ann.ID))
		if got := problems(f.check(t, false)); !slices.Equal(got, []string{"follows: a follow of an account that is gone ×1"}) {
			t.Fatalf("a follow of ann after her deletion: found %q", got)
		}
		f.check(t, true)
		if got := problems(f.check(t, false)); len(got) != 0 || f.do(t, "ZSCORE", following, itoa(w.ann.ID)) != "" {
			t.Fatalf("after the repair: %q, the follow %q", got, f.do(t, "ZSCORE", following, itoa(w.ann.ID)))
		}
	})
}

// TestDeleteLargeAccountInBackground deletes an account of more posts
// than a request deletes in the background, with a check repairing what
// it finds all the while: the progress is logged batch by batch, and in
// the end nothing refers to the account and the check finds nothing.
func TestDeleteLargeAccountInBackground(t *testing.T) {
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			logs := &syncbuf.Buffer{}
			f := newFixtureWith(t, db.url(t), store.Options{Log: slog.New(slog.NewTextHandler(logs, nil))}, true)
			w := newWorld(t, f, 250)
			if err := f.st.DeleteAccount(f.ctx, w.ann.ID, "password1"); err != nil {
				t.Fatal(err)
			}
			w.assertLocked(t, f)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			wg.Go(func() { // a check that repairs, as maintenance's, all the while
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := check.Run(f.ctx, f.st, check.Options{Repair: true, Scope: "concurrent", Settle: 20 * time.Millisecond}); err != nil {
						t.Errorf("a check during the deletion: %v", err)
						return
					}
				}
			})
			d := f.waitDeleted(t, "ann")
			close(stop)
			wg.Wait()
			if !d.Done {
				t.Fatalf("the deletion: %+v", d)
			}
			log := logs.String()
			for _, want := range []string{"account deletion begun", "background=true", "posts_removed=200 posts=252", "account deleted"} {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			f.drain(t)
			w.assertGone(t, f)
		})
	}
}

// waitDeleted waits until the deletion of the account called name is
// done, and returns it.
func (f *fixture) waitDeleted(t *testing.T, name string) retwis.Deletion {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := f.st.Deletion(f.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done || time.Now().After(deadline) {
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDeletionResumes stops a deletion half-way, in the middle of a
// batch of posts, as a server that dies would: its progress shows, and
// maintenance resumes it to the end, each post's tags counted down once
// whether the batch stopped before or after counting them down.
func TestDeletionResumes(t *testing.T) {
	for _, stage := range []struct {
		name  string
		stage int
	}{{"hashes", store.StageHashes}, {"counted", store.StageCounted}} {
		t.Run(stage.name, func(t *testing.T) {
			onRedisAndCluster(t, func(t *testing.T, f *fixture) { testDeletionResumes(t, f, stage.stage) })
		})
	}
}

func testDeletionResumes(t *testing.T, f *fixture, stage int) {
	w := newWorld(t, f, 250)
	if n := f.completions(t, "deleted"); n != "251" {
		t.Fatalf("#deleted counted %s times; want 251", n)
	}
	// The followers, the follows, then 200 posts; and the next batch
	// begun.
	if err := f.st.StartDeletion(f.ctx, w.ann.ID, "password1", 3, stage); err != nil {
		t.Fatal(err)
	}
	d, err := f.st.Deletion(f.ctx, "ann")
	want := retwis.Deletion{Posts: 252, PostsRemoved: 200, Follows: 4, FollowsRemoved: 4, Reserved: d.Reserved}
	if err != nil || d != want {
		t.Fatalf("half-way: %+v, %v; want %+v", d, err, want)
	}
	w.assertLocked(t, f)
	rep, err := f.st.Maintain(f.ctx, delivery.New(f.st, delivery.Options{}))
	if err != nil || rep.Deletions != 1 {
		t.Fatalf("maintenance: %+v, %v; want the deletion resumed", rep, err)
	}
	if d, err := f.st.Deletion(f.ctx, "ann"); err != nil || !d.Done {
		t.Fatalf("after maintenance: %+v, %v; want done", d, err)
	}
	if n := f.completions(t, "deleted"); n != "1" {
		t.Errorf("#deleted counted %s times; want 1, dee's post", n)
	}
	if rep, err := f.st.Maintain(f.ctx, delivery.New(f.st, delivery.Options{})); err != nil || rep.Deletions != 0 {
		t.Errorf("maintenance again: %+v, %v; want nothing to resume", rep, err)
	}
	w.assertGone(t, f)
}

// TestNameReservedThenFree: the name of a deleted account cannot be
// registered, in any case, until its reservation ends; then it can.
func TestNameReservedThenFree(t *testing.T) {
	f := newFixtureWith(t, databases[0].url(t), store.Options{NameReserve: 300 * time.Millisecond}, true)
	ann, _, err := f.st.Register(f.ctx, "ann", "password1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.DeleteAccount(f.ctx, ann.ID, "password1"); err != nil {
		t.Fatal(err)
	}
	d, err := f.st.Deletion(f.ctx, "ANN")
	if err != nil || !d.Done || d.Reserved.IsZero() {
		t.Fatalf("the deletion: %+v, %v", d, err)
	}
	before := f.snapshot(t)
	if _, _, err := f.st.Register(f.ctx, "Ann", "password2"); retwis.ErrorKind(err) != retwis.Conflict {
		t.Fatalf("registering the reserved name: %v; want a conflict", err)
	}
	f.assertUnchanged(t, before)
	time.Sleep(time.Until(d.Reserved))
	deadline := time.Now().Add(10 * time.Second)
	for {
		again, _, err := f.st.Register(f.ctx, "Ann", "password2")
		if err == nil {
			if again.ID == ann.ID || again.Username != "Ann" {
				t.Fatalf("the new account: %+v", again)
			}
			break
		}
		if retwis.ErrorKind(err) != retwis.Conflict || time.Now().After(deadline) {
			t.Fatalf("registering the name once free: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := f.st.Deletion(f.ctx, "ann"); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("the deletion once the name is free: %v; want none", err)
	}
}

// TestDeleteAccountTwice: a second request to delete an account being
// deleted finds it gone.
func TestDeleteAccountTwice(t *testing.T) {
	f := newFixture(t)
	ann := f.register(t, "ann")
	if err := f.st.DeleteAccount(f.ctx, ann.ID, "password1"); err != nil {
		t.Fatal(err)
	}
	wantKind(t, f.st.DeleteAccount(f.ctx, ann.ID, "password1"), retwis.NotFound)
	if n := f.do(t, "ZCARD", "deletions"); n != "0" {
		t.Errorf("%s deletions left to resume; want none", n)
	}
}
