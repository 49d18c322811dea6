package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
)

// blockScene is three users, alice, bob and carol, where alice and bob
// follow each other and carol follows both, bob has posted a post that
// mentions alice with a tag, and alice a post with the same tag.
type blockScene struct {
	alice, bob, carol    retwis.User
	bobsPost, alicesPost retwis.Post
}

func newBlockScene(t *testing.T, f *fixture) blockScene {
	t.Helper()
	s := blockScene{alice: f.Register(t, "alice"), bob: f.Register(t, "bob"), carol: f.Register(t, "carol")}
	for _, p := range [][2]retwis.User{{s.alice, s.bob}, {s.bob, s.alice}, {s.carol, s.alice}, {s.carol, s.bob}} {
		if err := f.St.Follow(f.Ctx, p[0].ID, p[1].ID); err != nil {
			t.Fatal(err)
		}
	}
	s.bobsPost = f.post(t, posts.Draft{Author: s.bob.ID, Text: "hello @alice #news"})
	s.alicesPost = f.post(t, posts.Draft{Author: s.alice.ID, Text: "my #news"})
	f.Drain(t)
	return s
}

// sees lists, for viewer, which of the posts of s appear in each place.
func (f *fixture) sees(t *testing.T, viewer retwis.User, s blockScene) map[string][]int64 {
	t.Helper()
	home, _, err := f.St.HomeTimeline(f.Ctx, viewer.ID, retwis.Cursor{}, 50)
	if err != nil {
		t.Fatal(err)
	}
	global, err := f.St.GlobalTimeline(f.Ctx, viewer.ID, retwis.Cursor{}, 50)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := f.St.TagPosts(f.Ctx, viewer.ID, "news", retwis.Cursor{}, 50)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int64{"home": postIDs(home.Posts), "global": postIDs(global.Posts), "tag": postIDs(tag.Posts)}
	for _, author := range []retwis.User{s.alice, s.bob} {
		prof, err := f.St.Profile(f.Ctx, viewer.ID, author, retwis.Cursor{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		out["profile of "+author.Username] = postIDs(prof.Page.Posts)
	}
	for _, p := range []retwis.Post{s.bobsPost, s.alicesPost} {
		if _, err := f.St.Thread(f.Ctx, viewer.ID, p.ID, 0, 10); err == nil {
			out["threads"] = append(out["threads"], p.ID)
		} else if retwis.ErrorKind(err) != retwis.NotFound {
			t.Fatal(err)
		}
		if _, err := f.St.Post(f.Ctx, viewer.ID, p.ID); err == nil {
			out["posts"] = append(out["posts"], p.ID)
		}
	}
	return out
}

// TestBlock: a block ends follows both ways and keeps them from coming
// back; the blocked user's posts, mentions and notifications leave every
// place the blocker reads, the blocker's posts every place the blocked
// user reads, and a third user sees everything; unblocking shows them
// again.
func TestBlock(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := newBlockScene(t, f)
		if n, err := f.St.UnreadNotifications(f.Ctx, s.alice.ID); err != nil || n != 3 { // the follows of bob and carol, bob's mention
			t.Fatalf("alice's unread notifications before: %d, %v", n, err)
		}
		if err := f.St.Block(f.Ctx, s.alice.ID, s.bob.ID); err != nil {
			t.Fatal(err)
		}
		ties, err := f.St.Relations(f.Ctx, s.alice.ID, []int64{s.bob.ID, s.carol.ID})
		if err != nil || ties[0] != (retwis.Ties{Blocking: true}) || ties[1] != (retwis.Ties{FollowedBy: true}) {
			t.Fatalf("alice's ties to bob and carol: %+v, %v", ties, err)
		}
		if ties, err := f.St.Relations(f.Ctx, s.bob.ID, []int64{s.alice.ID}); err != nil || ties[0] != (retwis.Ties{BlockedBy: true}) {
			t.Fatalf("bob's ties to alice: %+v, %v", ties, err)
		}
		if err := f.St.Follow(f.Ctx, s.bob.ID, s.alice.ID); retwis.ErrorKind(err) != retwis.Forbidden {
			t.Errorf("bob follows alice, who blocked him: %v; want forbidden", err)
		}
		if err := f.St.Follow(f.Ctx, s.alice.ID, s.bob.ID); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("alice follows bob, whom she blocked: %v; want invalid", err)
		}
		later := f.post(t, posts.Draft{Author: s.bob.ID, Text: "again @alice #news"})
		f.Drain(t)
		bobs, alices := []int64{later.ID, s.bobsPost.ID}, []int64{s.alicesPost.ID}
		for who, want := range map[string]map[string][]int64{
			"alice": {"home": alices, "global": alices, "tag": alices, "profile of alice": alices, "threads": alices, "posts": alices},
			"bob":   {"home": bobs, "global": bobs, "tag": bobs, "profile of bob": bobs, "threads": {s.bobsPost.ID}, "posts": {s.bobsPost.ID}},
		} {
			viewer := map[string]retwis.User{"alice": s.alice, "bob": s.bob}[who]
			got := f.sees(t, viewer, s)
			for place, ids := range want {
				if !slices.Equal(got[place], ids) {
					t.Errorf("%s's %s: %v; want %v", who, place, got[place], ids)
				}
			}
			for place, ids := range got {
				if _, ok := want[place]; !ok && len(ids) > 0 {
					t.Errorf("%s's %s: %v; want nothing", who, place, ids)
				}
			}
		}
		carol := f.sees(t, s.carol, s)
		if len(carol["global"]) != 3 || len(carol["tag"]) != 3 || len(carol["home"]) != 3 {
			t.Errorf("carol, who blocked nobody, sees %v", carol)
		}
		if got := f.mentions(t, s.alice.ID); len(got) != 0 {
			t.Errorf("alice's mentions: %v; want none of bob's", got)
		}
		if n, err := f.St.UnreadNotifications(f.Ctx, s.alice.ID); err != nil || n != 1 {
			t.Errorf("alice's unread notifications: %d, %v; want carol's follow alone", n, err)
		}
		if got := f.notes(t, s.alice.ID); !slices.Equal(got, []string{fmt.Sprint(retwis.NotificationFollow, " carol 0")}) {
			t.Errorf("alice's notifications: %v; want carol's follow alone", got)
		}
		if list, err := f.St.Blocks(f.Ctx, s.alice.ID); err != nil || len(list) != 1 || list[0].User != s.bob || list[0].Since.IsZero() {
			t.Errorf("alice's blocks: %+v, %v", list, err)
		}
		if err := f.St.Unblock(f.Ctx, s.alice.ID, s.bob.ID); err != nil {
			t.Fatal(err)
		}
		if got := f.sees(t, s.alice, s); len(got["global"]) != 3 || len(got["profile of bob"]) != 2 || len(got["home"]) != 1 {
			t.Errorf("alice after unblocking: %v; want bob's posts everywhere but her home (she no longer follows him)", got)
		}
		if err := f.St.Follow(f.Ctx, s.bob.ID, s.alice.ID); err != nil {
			t.Errorf("bob follows alice after the unblock: %v", err)
		}
	})
}

// TestMute: a mute takes the muted user's posts off the muter's
// timelines and changes nothing else: follows, profiles, threads,
// mentions and notifications stay.
func TestMute(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := newBlockScene(t, f)
		if err := f.St.Mute(f.Ctx, s.alice.ID, s.bob.ID); err != nil {
			t.Fatal(err)
		}
		got := f.sees(t, s.alice, s)
		alices := []int64{s.alicesPost.ID}
		for _, place := range []string{"home", "global", "tag"} {
			if !slices.Equal(got[place], alices) {
				t.Errorf("alice's %s: %v; want her post alone", place, got[place])
			}
		}
		if len(got["profile of bob"]) != 1 || len(got["threads"]) != 2 || len(got["posts"]) != 2 {
			t.Errorf("alice outside timelines: %v; want bob's post there", got)
		}
		if len(f.mentions(t, s.alice.ID)) != 1 {
			t.Error("a mute took a mention away")
		}
		if ties, err := f.St.Relations(f.Ctx, s.alice.ID, []int64{s.bob.ID}); err != nil || ties[0] != (retwis.Ties{Following: true, FollowedBy: true, Muting: true}) {
			t.Errorf("alice's ties to bob: %+v, %v", ties, err)
		}
		if got := f.sees(t, s.bob, s); len(got["global"]) != 2 {
			t.Errorf("bob, muted, sees %v; want everything", got)
		}
		prof, err := f.St.Profile(f.Ctx, s.alice.ID, s.bob, retwis.Cursor{}, 10)
		if err != nil || !prof.Muted || prof.Blocked || !prof.Followed {
			t.Errorf("bob's profile for alice: muted %v blocked %v followed %v, %v", prof.Muted, prof.Blocked, prof.Followed, err)
		}
		if err := f.St.Unmute(f.Ctx, s.alice.ID, s.bob.ID); err != nil {
			t.Fatal(err)
		}
		if got := f.sees(t, s.alice, s); len(got["global"]) != 2 || len(got["home"]) != 2 {
			t.Errorf("alice after unmuting: %v", got)
		}
	})
}

// TestBlockRefused: blocking or muting oneself or nobody is refused and
// writes nothing.
func TestBlockRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice := f.Register(t, "alice")
	before := f.Snapshot(t)
	for name, err := range map[string]error{
		"block self":   f.St.Block(f.Ctx, alice.ID, alice.ID),
		"mute self":    f.St.Mute(f.Ctx, alice.ID, alice.ID),
		"block nobody": f.St.Block(f.Ctx, alice.ID, 999),
		"mute nobody":  f.St.Mute(f.Ctx, alice.ID, 999),
	} {
		if k := retwis.ErrorKind(err); k != retwis.Invalid && k != retwis.NotFound {
			t.Errorf("%s: %v; want invalid or not found", name, err)
		}
	}
	f.AssertUnchanged(t, before)
}

// TestHiddenNotSuggested: who to follow leaves out the accounts the
// viewer blocked or muted, those that blocked the viewer, and suspended
// ones, even when the suggestions were computed before.
func TestHiddenNotSuggested(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	viewer, friend := f.Register(t, "viewer"), f.Register(t, "friend")
	var others []retwis.User
	for _, name := range []string{"blocked", "muted", "blocker", "suspended", "fine"} {
		u := f.Register(t, name)
		others = append(others, u)
		if err := f.St.Follow(f.Ctx, friend.ID, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.St.Follow(f.Ctx, viewer.ID, friend.ID); err != nil {
		t.Fatal(err)
	}
	suggested := func() []string {
		t.Helper()
		got, err := f.St.WhoToFollow(f.Ctx, viewer.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range got {
			names = append(names, s.User.Username)
		}
		slices.Sort(names)
		return names
	}
	if got := suggested(); len(got) != 5 {
		t.Fatalf("before: %v", got)
	}
	for _, step := range []error{
		f.St.Block(f.Ctx, viewer.ID, others[0].ID),
		f.St.Mute(f.Ctx, viewer.ID, others[1].ID),
		f.St.Block(f.Ctx, others[2].ID, viewer.ID),
		f.St.Suspend(f.Ctx, "cli:test", others[3].ID, ""),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	if got := suggested(); !slices.Equal(got, []string{"fine"}) {
		t.Errorf("after: %v; want fine alone", got)
	}
}
