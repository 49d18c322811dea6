package lists_test

import (
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// cluster is the 3-master cluster that this package's tests take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// people is alice, who follows bob and carol, and dan, whom she does
// not follow; and alice's list "friends".
type people struct {
	alice, bob, carol, dan retwis.User
	list                   lists.List
}

// meet registers people and makes alice's list.
func meet(t *testing.T, f *storetest.Fixture, ls *lists.Store) people {
	t.Helper()
	p := people{alice: f.Register(t, "alice"), bob: f.Register(t, "bob"), carol: f.Register(t, "carol"), dan: f.Register(t, "dan")}
	for _, u := range []retwis.User{p.bob, p.carol} {
		must.OK(t, f.St.Follow(f.Ctx, p.alice.ID, u.ID))
	}
	p.list = must.Value(ls.Create(f.Ctx, p.alice.ID, " friends ", ""))(t)
	if p.list.Title != "friends" || p.list.RepliesPolicy != lists.RepliesList {
		t.Fatalf("created %+v", p.list)
	}
	return p
}

// ids returns the ids of page's posts.
func ids(page retwis.Page) []int64 {
	out := make([]int64, len(page.Posts))
	for i, p := range page.Posts {
		out[i] = p.ID
	}
	return out
}

// TestListTimeline: a list's timeline holds its members' posts, those
// written before they were added and those delivered after, newest
// first and paged, and no one else's; members must be followed, once.
func TestListTimeline(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ls := lists.New(f.St)
		p := meet(t, f, ls)
		before := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "before"})
		storetest.WantKind(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.dan.ID}), retwis.NotFound)
		must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}))
		storetest.WantKind(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}), retwis.Invalid)
		storetest.WantKind(t, ls.Add(f.Ctx, p.bob.ID, p.list.ID, []int64{p.alice.ID}), retwis.NotFound) // not bob's
		after := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "after"})
		f.Post(t, posts.Draft{Author: p.carol.ID, Text: "not listed"})
		direct := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "@alice psst", Visibility: retwis.Direct})
		f.Drain(t)
		page := must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 1))(t)
		if got := ids(page); !slices.Equal(got, []int64{after.ID}) || !page.Older {
			t.Fatalf("first page %v (older %v); want [%d] (direct %d left out)", got, page.Older, after.ID, direct.ID)
		}
		page = must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{Before: after.ID}, 5))(t)
		if got := ids(page); !slices.Equal(got, []int64{before.ID}) {
			t.Fatalf("second page %v; want [%d]", got, before.ID)
		}
		held := must.Value(ls.ListsOf(f.Ctx, p.alice.ID, p.bob.ID))(t)
		if len(held) != 1 || held[0].ID != p.list.ID || len(must.Value(ls.ListsOf(f.Ctx, p.alice.ID, p.carol.ID))(t)) != 0 {
			t.Errorf("lists of bob %+v", held)
		}
		_, err := ls.Timeline(f.Ctx, p.bob.ID, p.list.ID, retwis.Cursor{}, 5)
		storetest.WantKind(t, err, retwis.NotFound)
	})
}

// TestRepliesPolicy: a list shows a member's replies to themselves
// always, to other members (and the owner) under "list", to anyone
// the owner follows under "followed", and no other under "none".
func TestRepliesPolicy(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ls := lists.New(f.St)
		p := meet(t, f, ls)
		must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}))
		root := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "root"})
		self := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "@bob more", InReplyTo: root.ID})
		toCarol := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "@carol hi", InReplyTo: f.Post(t, posts.Draft{Author: p.carol.ID, Text: "c"}).ID})
		toDan := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "@dan hi", InReplyTo: f.Post(t, posts.Draft{Author: p.dan.ID, Text: "d"}).ID})
		f.Drain(t)
		for policy, want := range map[string][]int64{
			lists.RepliesList:     {self.ID, root.ID},
			lists.RepliesFollowed: {toCarol.ID, self.ID, root.ID},
			lists.RepliesNone:     {self.ID, root.ID},
		} {
			must.Value(ls.Update(f.Ctx, p.alice.ID, p.list.ID, "", policy))(t)
			page := must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 10))(t)
			if got := ids(page); !slices.Equal(got, want) {
				t.Errorf("%s: %v; want %v (to dan %d)", policy, got, want, toDan.ID)
			}
		}
		_, err := ls.Update(f.Ctx, p.alice.ID, p.list.ID, "", "some")
		storetest.WantKind(t, err, retwis.Invalid)
	})
}

// TestMembersLeave: an unfollow and a block take an account out of the
// follower's lists, posts and reverse index; a list's deletion removes
// its keys; an account's deletion removes its lists and its places in
// others'.
func TestMembersLeave(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ls := lists.New(f.St)
		p := meet(t, f, ls)
		must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID, p.carol.ID}))
		f.Post(t, posts.Draft{Author: p.bob.ID, Text: "bob's"})
		f.Drain(t)
		must.OK(t, f.St.Unfollow(f.Ctx, p.alice.ID, p.bob.ID))
		must.OK(t, f.St.Block(f.Ctx, p.carol.ID, p.alice.ID)) // ends alice's follow of carol
		if m := must.Value(ls.Members(f.Ctx, p.alice.ID, p.list.ID))(t); len(m) != 0 {
			t.Errorf("members after the unfollow and the block: %v", m)
		}
		if page := must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 10))(t); len(page.Posts) != 0 {
			t.Errorf("posts of those who left: %v", ids(page))
		}
		for _, u := range []retwis.User{p.bob, p.carol} {
			if n := f.Do(t, "SCARD", schema.Listed(u.ID)); n != "0" {
				t.Errorf("%s is still listed: %s", u.Username, n)
			}
		}
		must.OK(t, ls.Delete(f.Ctx, p.alice.ID, p.list.ID))
		if keys := f.Keys(t, "list*{"+strconv.FormatInt(p.alice.ID, 10)+"}*"); len(keys) != 0 {
			t.Errorf("keys of a deleted list: %v", keys)
		}
		storetest.WantKind(t, ls.Delete(f.Ctx, p.alice.ID, p.list.ID), retwis.NotFound)

		mine := must.Value(ls.Create(f.Ctx, p.alice.ID, "mine", lists.RepliesNone))(t)
		must.OK(t, f.St.Follow(f.Ctx, p.bob.ID, p.alice.ID))
		bobs := must.Value(ls.Create(f.Ctx, p.bob.ID, "bob's", ""))(t)
		must.OK(t, ls.Add(f.Ctx, p.bob.ID, bobs.ID, []int64{p.alice.ID}))
		must.OK(t, deletion.New(f.St).DeleteAccount(f.Ctx, p.alice.ID, "password1"))
		f.Drain(t)
		if keys := f.Keys(t, "list*{"+strconv.FormatInt(p.alice.ID, 10)+"}*"); len(keys) != 0 {
			t.Errorf("keys of a deleted account's lists (%d): %v", mine.ID, keys)
		}
		if m := must.Value(ls.Members(f.Ctx, p.bob.ID, bobs.ID))(t); len(m) != 0 {
			t.Errorf("a deleted account is still in a list: %v", m)
		}
	})
}

// TestBounds: titles must be one line and not empty, an account has at
// most MaxLists lists, and a list at most MaxMembers members.
func TestBounds(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ls := lists.New(f.St)
		p := meet(t, f, ls)
		for _, title := range []string{"", "  ", "two\nlines"} {
			_, err := ls.Create(f.Ctx, p.alice.ID, title, "")
			storetest.WantKind(t, err, retwis.Invalid)
		}
		for range lists.MaxLists - 1 {
			must.Value(ls.Create(f.Ctx, p.alice.ID, "more", ""))(t)
		}
		_, err := ls.Create(f.Ctx, p.alice.ID, "one too many", "")
		storetest.WantKind(t, err, retwis.Invalid)
		args := []string{"SADD", schema.ListMembers(p.alice.ID, p.list.ID)}
		for i := range lists.MaxMembers {
			args = append(args, strconv.Itoa(1_000_000+i))
		}
		f.Do(t, args...)
		storetest.WantKind(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}), retwis.Invalid)
	})
}

// TestTimelineRoundTrips: a warm first page of a list's timeline costs
// no round trip, as a home timeline's: the list, its members, the range
// of its timeline, the posts and what the reader does not see come from
// the client-side cache.
func TestTimelineRoundTrips(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)
	ls := lists.New(f.St)
	p := meet(t, f, ls)
	must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}))
	for range 3 {
		f.Post(t, posts.Draft{Author: p.bob.ID, Text: "a post"})
	}
	f.Drain(t)
	other, rc := storetest.OpenCounting(t, f.URL, store.Options{}) // another server: none of the writes are its own, read past the cache
	reader := lists.New(other)
	must.Value(reader.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 20))(t) // warms the cache
	before := rc.Calls.Load()
	page := must.Value(reader.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 20))(t)
	if n := rc.Calls.Load() - before; n != 0 || len(page.Posts) != 3 {
		t.Errorf("a warm page of %d posts: %d round trips; want 0", len(page.Posts), n)
	}
}

// TestCheckListed: the check finds an entry of the reverse index whose
// list does not hold the user, a post gone on a list's timeline, a
// member the owner does not follow, members missing from the reverse
// index, and repairs them; the others stay.
func TestCheckListed(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)
	ls := lists.New(f.St)
	p := meet(t, f, ls)
	must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID}))
	f.Do(t, "SADD", schema.Listed(p.bob.ID), schema.ListedMember(p.alice.ID, p.list.ID+1))
	f.Do(t, "ZADD", schema.ListPosts(p.alice.ID, p.list.ID), "42", "42") // no post 42
	f.Do(t, "SADD", schema.ListMembers(p.alice.ID, p.list.ID), strconv.FormatInt(p.dan.ID, 10))
	f.Do(t, "SADD", schema.ListMembers(p.alice.ID, p.list.ID), strconv.FormatInt(p.carol.ID, 10))
	got := storetest.Problems(f.Check(t, true))
	slices.Sort(got)
	if !slices.Equal(got, []string{
		"lists: a list in the reverse index that does not hold its member ×1",
		"lists: a list member its owner does not follow ×1",
		"lists: a list member without the list in its reverse index ×1",
		"post-indexes: an index entry of a post that is gone ×1",
	}) {
		t.Errorf("check found %v", got)
	}
	if held := f.Strs(t, "SMEMBERS", schema.Listed(p.bob.ID)); !slices.Equal(held, []string{schema.ListedMember(p.alice.ID, p.list.ID)}) {
		t.Errorf("bob's lists after the repair: %v", held)
	}
	if m := must.Value(ls.Members(f.Ctx, p.alice.ID, p.list.ID))(t); !slices.Equal(m, []int64{p.carol.ID, p.bob.ID}) {
		t.Errorf("members after the repair: %v; want carol (followed, indexed again) and bob", m)
	}
	if got := storetest.Problems(f.Check(t, false)); len(got) != 0 {
		t.Errorf("a second check found %v", got)
	}
}

// TestListHides: a list's timeline shows what its owner sees as on home:
// a member's followers-only post, not the posts of a member muted or
// suspended.
func TestListHides(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ls := lists.New(f.St)
		p := meet(t, f, ls)
		must.OK(t, ls.Add(f.Ctx, p.alice.ID, p.list.ID, []int64{p.bob.ID, p.carol.ID}))
		private := f.Post(t, posts.Draft{Author: p.bob.ID, Text: "followers only", Visibility: retwis.Private})
		f.Post(t, posts.Draft{Author: p.carol.ID, Text: "carol's"})
		f.Drain(t)
		must.OK(t, f.St.Mute(f.Ctx, p.alice.ID, p.carol.ID))
		if got := ids(must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 10))(t)); !slices.Equal(got, []int64{private.ID}) {
			t.Errorf("with carol muted: %v; want bob's followers-only post %d", got, private.ID)
		}
		must.OK(t, f.St.Suspend(f.Ctx, retwis.OperatorActor("test"), p.bob.ID, "spam"))
		if got := ids(must.Value(ls.Timeline(f.Ctx, p.alice.ID, p.list.ID, retwis.Cursor{}, 10))(t)); len(got) != 0 {
			t.Errorf("with bob suspended: %v", got)
		}
	})
}
