package deletion_test

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// fixture is a store under test (see storetest.Fixture) with its
// Deleter.
type fixture struct {
	*storetest.Fixture
	del *deletion.Deleter
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureAt(t, redistest.Start(t).URL)
}

func newFixtureAt(t *testing.T, url string) *fixture {
	t.Helper()
	return newFixtureWith(t, url, store.Options{}, true)
}

// newFixtureWith returns a fixture whose store has opts, and a
// background delivery worker if worker is set.
func newFixtureWith(t *testing.T, url string, opts store.Options, worker bool) *fixture {
	t.Helper()
	f := storetest.NewFixture(t, url, opts, worker)
	return &fixture{Fixture: f, del: deletion.New(f.St)}
}

// cluster is the 3-master cluster that this package's tests of
// onRedisAndCluster take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// databases are the two kinds of database the tests of
// onRedisAndCluster run on: one Redis, and the package's cluster
// (flushed).
var databases = storetest.Databases(&cluster)

// onRedisAndCluster runs test on a fixture of each of databases, side
// by side: the Redis one need not wait for the cluster's turn.
func onRedisAndCluster(t *testing.T, test func(t *testing.T, f *fixture)) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		test(t, &fixture{Fixture: f, del: deletion.New(f.St)})
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// world is a small network around ann, whose account is deleted: bob and
// cy follow her, she follows bob and dee; she posts with a tag, mentions
// and a reply, bob answers her, dee mentions her; she has a session and
// an API token; she favourites and bookmarks bob's post and pins hers,
// which bob favourites.
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
	if w.ann, w.session, err = f.St.Register(f.Ctx, "ann", "password1"); err != nil {
		t.Fatal(err)
	}
	w.bob, w.cy, w.dee = f.Register(t, "bob"), f.Register(t, "cy"), f.Register(t, "dee")
	if err := f.St.SetAbout(f.Ctx, w.ann.ID, "Ann Année", "here"); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]retwis.User{{w.bob, w.ann}, {w.cy, w.ann}, {w.ann, w.bob}, {w.ann, w.dee}} {
		if err := f.St.Follow(f.Ctx, pair[0].ID, pair[1].ID); err != nil {
			t.Fatal(err)
		}
	}
	w.bobPost = f.Post(t, posts.Draft{Author: w.bob.ID, Text: "#Café for all"})
	tagged := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "#Café with @bob and @cy"})
	reply := f.Post(t, posts.Draft{Author: w.ann.ID, Text: "agreed #café", InReplyTo: w.bobPost.ID})
	w.annPosts = []int64{tagged.ID, reply.ID}
	w.bobReply = f.Post(t, posts.Draft{Author: w.bob.ID, Text: "@ann yes", InReplyTo: tagged.ID})
	f.Post(t, posts.Draft{Author: w.dee.ID, Text: "hi @ann #deleted"})
	for i := range extra {
		w.annPosts = append(w.annPosts, f.Post(t, posts.Draft{Author: w.ann.ID, Text: fmt.Sprint("#deleted number ", i, " for @cy")}).ID)
	}
	if w.token, err = f.St.CreateToken(f.Ctx, w.ann.ID, "", "script", retwis.Scopes{"read", "write"}); err != nil {
		t.Fatal(err)
	}
	title, action := "Spoilers", filters.Hide
	if _, err := filters.New(f.St).Create(f.Ctx, w.ann.ID, filters.Draft{Title: &title, Action: &action, Context: []string{filters.Home}}); err != nil {
		t.Fatal(err)
	}
	for _, mark := range []func() (retwis.Post, error){ // ann's marks, and bob's favourite of her post
		func() (retwis.Post, error) { return f.St.Favourite(f.Ctx, w.ann.ID, w.bobPost.ID) },
		func() (retwis.Post, error) { return f.St.Bookmark(f.Ctx, w.ann.ID, w.bobPost.ID) },
		func() (retwis.Post, error) { return f.St.Pin(f.Ctx, w.ann.ID, tagged.ID) },
		func() (retwis.Post, error) { return f.St.Favourite(f.Ctx, w.bob.ID, tagged.ID) },
	} {
		if _, err := mark(); err != nil {
			t.Fatal(err)
		}
	}
	an := announcements.New(f.St)
	a, err := an.Announce(f.Ctx, "hello", time.Time{}, time.Time{})
	if err != nil || an.React(f.Ctx, w.ann.ID, a.ID, "👍") != nil || an.Dismiss(f.Ctx, w.ann.ID, a.ID) != nil {
		t.Fatal(a, err)
	}
	if _, err := scheduled.New(f.St).Schedule(f.Ctx, scheduled.Post{Author: w.ann.ID, At: time.Now().Add(time.Hour), Text: "later"}); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	return w
}

// assertGone checks that nothing refers to ann any more, key by key, that
// the others' data stands, and that a check finds nothing wrong.
func (w world) assertGone(t *testing.T, f *fixture) {
	t.Helper()
	a := itoa(w.ann.ID)
	for _, prefix := range []string{"user", "followers", "following", "posts", "archive", "user_posts", "mentions",
		"notifications", "graph", "suggestions", "celebrities_followed", "tokens", "tokens_used", "login_failures",
		"login_notice", "deleting", "favourites", "bookmarks", "pins", "filters", "scheduled", "announcements_read", "announcements_reacted"} {
		if keys := f.Keys(t, prefix+":{"+a+"}*"); len(keys) > 0 {
			t.Errorf("ann's keys remain: %v", keys)
		}
	}
	if n := f.Do(t, "HLEN", "instance:{announcements}:reactions"); n != "0" {
		t.Errorf("ann's reaction to an announcement is still counted (%s)", n)
	}
	for _, other := range []retwis.User{w.bob, w.cy, w.dee} {
		o := itoa(other.ID)
		for _, key := range []string{"followers:{" + o + "}", "following:{" + o + "}", "celebrities_followed:{" + o + "}"} {
			if slices.Contains(f.Strs(t, "ZRANGE", key, "0", "-1"), a) {
				t.Errorf("%s still holds ann", key)
			}
		}
		for _, m := range f.Strs(t, "ZRANGE", "graph:{"+o+"}", "0", "-1") {
			if strings.HasSuffix(m, ":"+a) {
				t.Errorf("graph:{%s} still relates to ann: %s", o, m)
			}
		}
		for _, m := range f.Strs(t, "ZRANGE", "notifications:{"+o+"}", "0", "-1") {
			if strings.Split(m, ":")[1] == a {
				t.Errorf("%s still has a notification from ann: %s", other.Username, m)
			}
		}
		w.assertNone(t, f, "mentions:{"+o+"}", f.Strs(t, "ZRANGE", "mentions:{"+o+"}", "0", "-1"))
		w.assertNone(t, f, "posts:{"+o+"}", f.Strs(t, "LRANGE", "posts:{"+o+"}", "0", "-1"))
	}
	w.assertNone(t, f, "the global timeline", f.Strs(t, "LRANGE", "timeline", "0", "-1"))
	if p, err := f.St.Post(f.Ctx, w.bob.ID, w.bobPost.ID); err != nil || p.Favourites != 0 {
		t.Errorf("bob's post favourited by ann: %+v, %v; want her favourite taken back", p, err)
	}
	for _, pid := range w.annPosts {
		if keys := append(f.Keys(t, schema.Counts(pid)), f.Keys(t, schema.FavouritedBy(pid))...); len(keys) > 0 {
			t.Errorf("the counts of ann's post remain: %v", keys)
		}
	}
	w.assertNone(t, f, "tag café", f.Strs(t, "ZRANGE", schema.Tag("cafe"), "0", "-1"))
	w.assertNone(t, f, "the replies of bob's post", f.Strs(t, "ZRANGE", "replies:{"+itoa(w.bobPost.ID)+"}", "0", "-1"))
	for _, key := range []string{schema.Explore, "users_by_time"} {
		if slices.Contains(f.Strs(t, "ZRANGE", key, "0", "-1"), a) || slices.Contains(f.Strs(t, "ZRANGE", key, "0", "-1"), "ann") {
			t.Errorf("%s still holds ann", key)
		}
	}
	if found, err := f.St.SearchPeople(f.Ctx, "Année", 10); err != nil || len(found) != 0 {
		t.Errorf("the people search finds %v, %v", found, err)
	}
	if n := f.completions(t, "cafe"); n != "1" {
		t.Errorf("#café is counted %s times in the completion; want 1, bob's post", n)
	}
	if th, err := f.St.Thread(f.Ctx, 0, w.bobReply.ID, 0, 10); err != nil || !th.ParentGone {
		t.Errorf("bob's reply to ann: %+v, %v; want it standing, in reply to a deleted post", th, err)
	}
	if got := storetest.Problems(f.Check(t, false)); len(got) != 0 {
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
	if _, err := f.St.Authenticate(f.Ctx, w.session); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("ann's session: %v; want it ended", err)
	}
	if _, err := f.St.AuthenticateToken(f.Ctx, w.token); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("ann's API token: %v; want it ended (401)", err)
	}
	if _, _, err := f.St.Login(f.Ctx, "ann", "password1"); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Errorf("logging in as ann: %v; want refused", err)
	}
	if _, err := f.St.Summary(f.Ctx, w.ann.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("ann's account by id: %v; want 404", err)
	}
	// Taken while a deletion in the background has yet to release it,
	// reserved once it has: either way, nobody else gets it.
	_, _, err := f.St.Register(f.Ctx, "ANN", "password2")
	if retwis.ErrorKind(err) != retwis.Conflict || !strings.Contains(err.Error(), "reserved until") && !strings.Contains(err.Error(), "taken") {
		t.Errorf("registering ann's name: %v; want it taken or reserved", err)
	}
}

// completions returns how many posts the completion counts for a folded
// tag ("" for none).
func (f *fixture) completions(t *testing.T, folded string) string {
	t.Helper()
	for _, m := range f.Strs(t, "ZRANGEBYLEX", schema.Completion(schema.CompletionOf(folded)), "["+folded+":", "["+folded+":\xff") {
		return strings.Split(m, ":")[1]
	}
	return ""
}

// TestDeleteSmallAccount deletes an account within the request: a wrong
// password writes nothing; the right one ends every way in at once and
// removes everything that refers to the account, which a check confirms;
// the name stays reserved.
func TestDeleteSmallAccount(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		w := newWorld(t, f, 3)
		before := f.Snapshot(t)
		for _, wrong := range []string{"password2", "", strings.Repeat("x", 200)} {
			storetest.WantKind(t, f.del.DeleteAccount(f.Ctx, w.ann.ID, wrong), retwis.Invalid)
		}
		f.AssertUnchanged(t, before)
		if err := f.del.DeleteAccount(f.Ctx, w.ann.ID, "password1"); err != nil {
			t.Fatal(err)
		}
		d, err := f.del.Deletion(f.Ctx, "Ann")
		if err != nil || !d.Done || time.Until(d.Reserved) < kernel.DefaultNameReserve-time.Hour {
			t.Fatalf("the deletion: %+v, %v; want done, the name reserved for 30 days", d, err)
		}
		w.assertLocked(t, f)
		f.Drain(t)
		w.assertGone(t, f)
		if _, err := f.del.Deletion(f.Ctx, "bob"); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("the deletion of bob, who is not deleted: %v", err)
		}
		// A follow that raced the deletion, written on bob's side after
		// the deletion ended his: a check finds it, a repair ends it.
		following := "following:{" + itoa(w.bob.ID) + "}"
		f.Do(t, "ZADD", following, "1", itoa(w.ann.ID))
		if got := storetest.Problems(f.Check(t, false)); !slices.Equal(got, []string{"follows: a follow of an account that is gone ×1"}) {
			t.Fatalf("a follow of ann after her deletion: found %q", got)
		}
		f.Check(t, true)
		if got := storetest.Problems(f.Check(t, false)); len(got) != 0 || f.Do(t, "ZSCORE", following, itoa(w.ann.ID)) != "" {
			t.Fatalf("after the repair: %q, the follow %q", got, f.Do(t, "ZSCORE", following, itoa(w.ann.ID)))
		}
	})
}

// TestDeleteLargeAccountInBackground deletes an account of more posts
// than a request deletes in the background, with a check repairing what
// it finds all the while: the progress is logged batch by batch, and in
// the end nothing refers to the account and the check finds nothing.
func TestDeleteLargeAccountInBackground(t *testing.T) {
	t.Parallel()
	for _, db := range databases {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			logs := &syncbuf.Buffer{}
			f := newFixtureWith(t, db.URL(t), store.Options{Log: slog.New(slog.NewTextHandler(logs, nil))}, true)
			w := newWorld(t, f, 250)
			if err := f.del.DeleteAccount(f.Ctx, w.ann.ID, "password1"); err != nil {
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
					if _, err := check.Run(f.Ctx, f.St, check.Options{Repair: true, Scope: "concurrent", Settle: 20 * time.Millisecond}); err != nil {
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
			f.Drain(t)
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
		d, err := f.del.Deletion(f.Ctx, name)
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
	t.Parallel()
	for _, stage := range []struct {
		name  string
		stage int
	}{{"hashes", deletion.StageHashes}, {"counted", deletion.StageCounted}} {
		t.Run(stage.name, func(t *testing.T) {
			t.Parallel()
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
	if err := f.del.StartDeletion(f.Ctx, w.ann.ID, "password1", 3, stage); err != nil {
		t.Fatal(err)
	}
	d, err := f.del.Deletion(f.Ctx, "ann")
	want := retwis.Deletion{Posts: 252, PostsRemoved: 200, Follows: 4, FollowsRemoved: 4, Reserved: d.Reserved}
	if err != nil || d != want {
		t.Fatalf("half-way: %+v, %v; want %+v", d, err, want)
	}
	w.assertLocked(t, f)
	rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{}), deletion.New(f.St))
	if err != nil || rep.Deletions != 1 {
		t.Fatalf("maintenance: %+v, %v; want the deletion resumed", rep, err)
	}
	if d, err := f.del.Deletion(f.Ctx, "ann"); err != nil || !d.Done {
		t.Fatalf("after maintenance: %+v, %v; want done", d, err)
	}
	if n := f.completions(t, "deleted"); n != "1" {
		t.Errorf("#deleted counted %s times; want 1, dee's post", n)
	}
	if rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{}), deletion.New(f.St)); err != nil || rep.Deletions != 0 {
		t.Errorf("maintenance again: %+v, %v; want nothing to resume", rep, err)
	}
	w.assertGone(t, f)
}

// TestNameReservedThenFree: the name of a deleted account cannot be
// registered, in any case, until its reservation ends; then it can.
func TestNameReservedThenFree(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, databases[0].URL(t), store.Options{NameReserve: 300 * time.Millisecond}, true)
	ann, _, err := f.St.Register(f.Ctx, "ann", "password1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.del.DeleteAccount(f.Ctx, ann.ID, "password1"); err != nil {
		t.Fatal(err)
	}
	d, err := f.del.Deletion(f.Ctx, "ANN")
	if err != nil || !d.Done || d.Reserved.IsZero() {
		t.Fatalf("the deletion: %+v, %v", d, err)
	}
	before := f.Snapshot(t)
	if _, _, err := f.St.Register(f.Ctx, "Ann", "password2"); retwis.ErrorKind(err) != retwis.Conflict {
		t.Fatalf("registering the reserved name: %v; want a conflict", err)
	}
	f.AssertUnchanged(t, before)
	time.Sleep(time.Until(d.Reserved)) // the reservation, on the wall clock, must end
	deadline := time.Now().Add(10 * time.Second)
	for {
		again, _, err := f.St.Register(f.Ctx, "Ann", "password2")
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
	if _, err := f.del.Deletion(f.Ctx, "ann"); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("the deletion once the name is free: %v; want none", err)
	}
}

// TestDeleteAccountTwice: a second request to delete an account being
// deleted finds it gone.
func TestDeleteAccountTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ann := f.Register(t, "ann")
	if err := f.del.DeleteAccount(f.Ctx, ann.ID, "password1"); err != nil {
		t.Fatal(err)
	}
	storetest.WantKind(t, f.del.DeleteAccount(f.Ctx, ann.ID, "password1"), retwis.NotFound)
	if n := f.Do(t, "ZCARD", "deletions"); n != "0" {
		t.Errorf("%s deletions left to resume; want none", n)
	}
}

// TestDeleteBlockingAccount: deleting an account takes it out of the
// other side of its blocks and mutes, both ways, and of the suspended
// accounts; the check then finds nothing.
func TestDeleteBlockingAccount(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		gone, bob, carol := f.Register(t, "gone"), f.Register(t, "bob"), f.Register(t, "carol")
		for _, step := range []error{
			f.St.Block(f.Ctx, gone.ID, bob.ID),
			f.St.Block(f.Ctx, carol.ID, gone.ID),
			f.St.Mute(f.Ctx, bob.ID, gone.ID),
			f.St.Suspend(f.Ctx, "cli:test", gone.ID, ""),
		} {
			if step != nil {
				t.Fatal(step)
			}
		}
		if err := f.del.DeleteAccount(f.Ctx, gone.ID, "password1"); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"blocked_by:{" + itoa(bob.ID) + "}", "blocks:{" + itoa(carol.ID) + "}"} {
			if got := f.Strs(t, "ZRANGE", key, "0", "-1"); len(got) != 0 {
				t.Errorf("%s still holds %v", key, got)
			}
		}
		if got := f.Strs(t, "SMEMBERS", "suspended"); len(got) != 0 {
			t.Errorf("the suspended accounts still hold %v", got)
		}
		if got := storetest.Problems(f.Check(t, false)); len(got) != 0 {
			t.Errorf("after the deletion, the check finds %v", got)
		}
	})
}
