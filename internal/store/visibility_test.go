package store_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// visibilityScene is alice's four posts, one of each visibility, each
// mentioning mia and tagged #topic and with a tag of its own, and the
// viewers of the matrix: alice herself; fran, who follows her; mia,
// mentioned, who does not; sam, a stranger; ben, whom alice blocked;
// mo, who follows her and muted her; and a visitor logged out.
type visibilityScene struct {
	alice, fran, mia, sam, ben, mo retwis.User
	posts                          map[retwis.Visibility]retwis.Post
}

// ownTags are the tags of each visibility's post besides #topic.
var ownTags = map[retwis.Visibility]string{retwis.Public: "pub", retwis.Unlisted: "unl", retwis.Private: "priv", retwis.Direct: "dir"}

func newVisibilityScene(t *testing.T, f *fixture) visibilityScene {
	t.Helper()
	s := visibilityScene{alice: f.Register(t, "alice"), fran: f.Register(t, "fran"), mia: f.Register(t, "mia"),
		sam: f.Register(t, "sam"), ben: f.Register(t, "ben"), mo: f.Register(t, "mo"), posts: map[retwis.Visibility]retwis.Post{}}
	for _, fw := range []retwis.User{s.fran, s.mo, s.ben} {
		must.OK(t, f.St.Follow(f.Ctx, fw.ID, s.alice.ID))
	}
	must.OK(t, f.St.Block(f.Ctx, s.alice.ID, s.ben.ID))
	must.OK(t, f.St.Mute(f.Ctx, s.mo.ID, s.alice.ID))
	for _, v := range retwis.Visibilities() {
		s.posts[v] = f.post(t, posts.Draft{Author: s.alice.ID, Text: v.String() + " @mia #topic #" + ownTags[v], Visibility: v})
		if s.posts[v].Visibility != v {
			t.Fatalf("published %v as %v", v, s.posts[v].Visibility)
		}
	}
	f.Drain(t)
	return s
}

// names returns the visibilities of the scene's posts among ps, in the
// order of retwis.Visibilities, spelled out and joined by spaces.
func (s visibilityScene) names(ps []retwis.Post) string {
	var out []string
	for _, v := range retwis.Visibilities() {
		if slices.ContainsFunc(ps, func(p retwis.Post) bool { return p.ID == s.posts[v].ID }) {
			out = append(out, v.String())
		}
	}
	return strings.Join(out, " ")
}

// seen reads every place viewer reads posts in, and returns which of
// the scene's posts each shows.
func (f *fixture) seen(t *testing.T, s visibilityScene, viewer retwis.User) map[string]string {
	t.Helper()
	page := func(p retwis.Page, err error) []retwis.Post {
		t.Helper()
		must.OK(t, err)
		return p.Posts
	}
	var one, threads []retwis.Post
	for _, v := range retwis.Visibilities() {
		if p, err := f.St.Post(f.Ctx, viewer.ID, s.posts[v].ID); err == nil {
			one = append(one, p)
		} else if retwis.ErrorKind(err) != retwis.NotFound {
			t.Fatal(err)
		}
		if th, err := f.St.Thread(f.Ctx, viewer.ID, s.posts[v].ID, 0, 10); err == nil {
			threads = append(threads, th.Post)
		}
	}
	prof, err := f.St.Profile(f.Ctx, viewer.ID, s.alice, retwis.Cursor{}, 20)
	must.OK(t, err)
	seen := map[string]string{
		"post": s.names(one), "thread": s.names(threads), "profile": s.names(prof.Page.Posts),
		"global": s.names(page(f.St.GlobalTimeline(f.Ctx, viewer.ID, retwis.Cursor{}, 20))),
		"tag":    s.names(page(f.St.TagPosts(f.Ctx, viewer.ID, "topic", retwis.Cursor{}, 20))),
	}
	var posts []retwis.Post
	for _, v := range retwis.Visibilities() {
		posts = append(posts, s.posts[v])
	}
	seen["posts"] = s.names(must.Value(f.St.Posts(f.Ctx, viewer.ID, postIDs(posts)))(t))
	if viewer.ID == 0 {
		return seen
	}
	home, _, err := f.St.HomeTimeline(f.Ctx, viewer.ID, retwis.Cursor{}, 20)
	must.OK(t, err)
	seen["home"] = s.names(home.Posts)
	seen["mentions"] = s.names(page(f.St.Mentions(f.Ctx, viewer.ID, retwis.Cursor{}, 20)))
	var direct []retwis.Post
	for _, c := range must.Value(f.St.Conversations(f.Ctx, viewer.ID, retwis.Cursor{}, 20))(t).Conversations {
		direct = append(direct, c.Last)
	}
	seen["direct"] = s.names(direct)
	var noted []retwis.Post
	for _, n := range must.Value(f.St.AllNotifications(f.Ctx, viewer.ID))(t) {
		if p, err := f.St.Post(f.Ctx, viewer.ID, n.Post); n.Post > 0 && err == nil {
			noted = append(noted, p)
		}
	}
	seen["notifications"] = s.names(noted)
	return seen
}

// TestVisibilityMatrix: each visibility × each viewer × each place the
// store reads posts in. Public posts are everywhere; unlisted ones
// everywhere but the global timeline and tag pages; private ones only
// for the author, followers and those mentioned; direct ones only for
// the author and those mentioned (their home timelines, mentions and
// Direct pages). Blocks hide everything, mutes the timelines. Nothing
// but the public post enters the trends or the completion of tags, nor
// do the others when a suspension of their author is lifted, and the
// consistency check agrees with what was written.
func TestVisibilityMatrix(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := newVisibilityScene(t, f)
		const (
			all      = "public unlisted private direct"
			followed = "public unlisted private"
			open     = "public unlisted"
		)
		outside := map[string]string{"post": open, "thread": open, "profile": open, "global": "public", "tag": "public", "posts": open}
		for _, tc := range []struct {
			name   string
			viewer retwis.User
			want   map[string]string
		}{
			{"the author", s.alice, map[string]string{"post": all, "thread": all, "profile": all, "global": "public", "tag": "public",
				"posts": all, "home": all, "direct": "direct"}},
			{"a follower", s.fran, map[string]string{"post": followed, "thread": followed, "profile": followed, "global": "public", "tag": "public",
				"posts": followed, "home": followed}},
			{"the one mentioned", s.mia, map[string]string{"post": all, "thread": all, "profile": all, "global": "public", "tag": "public",
				"posts": all, "home": "direct", "mentions": all, "direct": "direct", "notifications": all}},
			{"a stranger", s.sam, outside},
			{"a visitor logged out", retwis.User{}, outside},
			{"a user blocked", s.ben, map[string]string{}},
			{"a follower who muted", s.mo, map[string]string{"post": followed, "thread": followed, "profile": followed, "posts": followed}},
		} {
			got := f.seen(t, s, tc.viewer)
			for place, ids := range got {
				if ids != tc.want[place] {
					t.Errorf("%s, %s: %q; want %q", tc.name, place, ids, tc.want[place])
				}
			}
		}
		for _, v := range retwis.Visibilities()[1:] {
			if got := f.complete(t, ownTags[v]); len(got) > 0 {
				t.Errorf("#%s, the tag of the %s post, is completed: %v", ownTags[v], v, got)
			}
		}
		if got := f.complete(t, "pu"); !slices.Contains(got, "pub") {
			t.Errorf("completion of pu: %v; want the public post's tag", got)
		}
		if rep := f.check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check finds %v", rep.Problems)
		}
		must.OK(t, f.St.Suspend(f.Ctx, "cli:test", s.alice.ID, ""))
		must.OK(t, f.St.Unsuspend(f.Ctx, "cli:test", s.alice.ID, ""))
		for _, key := range f.Keys(t, "trends:{*}") {
			for _, tag := range f.Strs(t, "ZRANGE", key, "0", "-1") {
				if tag == "unl" || tag == "priv" || tag == "dir" {
					t.Errorf("%s holds %s, the tag of a post that is not public (its suspension retrended it)", key, tag)
				}
			}
		}
	})
}

// TestVisibilityRefused: a visibility not known is refused, naming the
// ones that are, and nothing is written; a reply to a post its author
// does not see (a private post of someone they do not follow) is
// refused as if the post did not exist.
func TestVisibilityRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := newVisibilityScene(t, f)
	_, err := retwis.ParseVisibility("secret")
	if retwis.ErrorKind(err) != retwis.Invalid || !strings.Contains(err.Error(), "public, unlisted, private") {
		t.Errorf("visibility secret: %v; want invalid, naming the visibilities", err)
	}
	before := f.Snapshot(t)
	for _, v := range []retwis.Visibility{retwis.Private, retwis.Direct} {
		_, err := f.St.Publish(f.Ctx, posts.Draft{Author: s.sam.ID, Text: "hi", InReplyTo: s.posts[v].ID})
		if retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("sam replies to the %v post: %v; want not found", v, err)
		}
	}
	f.AssertUnchanged(t, before)
	reply := f.post(t, posts.Draft{Author: s.fran.ID, Text: "me too", InReplyTo: s.posts[retwis.Private].ID, Visibility: retwis.Private})
	f.Drain(t)
	th := must.Value(f.St.Thread(f.Ctx, s.fran.ID, s.posts[retwis.Private].ID, 0, 10))(t)
	if len(th.Replies.Posts) != 1 || th.Replies.Posts[0].ID != reply.ID {
		t.Errorf("fran's private reply in the thread she sees: %+v", th.Replies)
	}
	if th := must.Value(f.St.Thread(f.Ctx, s.alice.ID, reply.ID, 0, 10))(t); len(th.Ancestors) != 1 {
		t.Errorf("alice, mentioned in fran's private reply, sees its thread: %+v", th)
	}
	if _, err := f.St.Thread(f.Ctx, s.sam.ID, reply.ID, 0, 10); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("sam reads fran's private reply: %v; want not found", err)
	}
}

// TestDirectDeleted: the check finds and repairs a Direct index that
// lost its posts; deleting a direct post takes it off the Direct indexes
// and home timelines of all it was between; the check then finds
// nothing.
func TestDirectDeleted(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "psst @bob", Visibility: retwis.Direct})
		kept := f.post(t, posts.Draft{Author: bob.ID, Text: "@alice yes", InReplyTo: p.ID, Visibility: retwis.Direct})
		f.Drain(t)
		for _, u := range []retwis.User{alice, bob} {
			if got := f.Strs(t, "ZREVRANGE", "direct:{"+itoa(u.ID)+"}", "0", "-1"); !slices.Equal(got, []string{itoa(kept.ID), itoa(p.ID)}) {
				t.Errorf("%s's direct index: %v; want both posts, newest first", u.Username, got)
			}
		}
		f.Do(t, "DEL", "direct:{"+itoa(bob.ID)+"}")
		if rep := f.check(t, true); len(rep.Problems) != 1 || rep.Problems[0].Count != 2 || rep.Problems[0].Repaired != 2 {
			t.Errorf("bob's direct index gone: the check finds %v; want both posts missing from it, repaired", rep.Problems)
		}
		if got := f.Strs(t, "ZRANGE", "direct:{"+itoa(bob.ID)+"}", "0", "-1"); len(got) != 2 {
			t.Errorf("bob's direct index once repaired: %v; want both posts", got)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
		f.Drain(t)
		for _, u := range []retwis.User{alice, bob} {
			if got := f.Strs(t, "ZRANGE", "direct:{"+itoa(u.ID)+"}", "0", "-1"); !slices.Equal(got, []string{itoa(kept.ID)}) {
				t.Errorf("%s's direct index after the deletion: %v; want bob's reply alone", u.Username, got)
			}
		}
		if rep := f.check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check finds %v", rep.Problems)
		}
	})
}

// TestVisibilityCelebrity: a celebrity's posts, which followers' home
// timelines merge when read, keep their visibility there: followers
// find the followers-only post and not the direct one, which goes (it
// is fanned out, however many followers its author has) to the home
// timeline of the one it mentions, who does not follow.
func TestVisibilityCelebrity(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{CelebrityThreshold: 1}, true)
	star, mia := f.Register(t, "star"), f.Register(t, "mia")
	fans := []retwis.User{f.Register(t, "fan1"), f.Register(t, "fan2")}
	for _, fan := range fans {
		must.OK(t, f.St.Follow(f.Ctx, fan.ID, star.ID))
	}
	private := f.post(t, posts.Draft{Author: star.ID, Text: "for fans", Visibility: retwis.Private})
	direct := f.post(t, posts.Draft{Author: star.ID, Text: "@mia just you", Visibility: retwis.Direct})
	f.Drain(t)
	if got := pageAll(t, f.Home(t, fans[0].ID, 10), nil); !slices.Equal(got, []int64{private.ID}) {
		t.Errorf("a fan's home: %v; want the followers-only post, merged, and not the direct one", got)
	}
	if got := pageAll(t, f.Home(t, mia.ID, 10), nil); !slices.Equal(got, []int64{direct.ID}) {
		t.Errorf("mia's home: %v; want the direct post, delivered", got)
	}
}
