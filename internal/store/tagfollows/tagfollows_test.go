package tagfollows_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/tagfollows"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// home returns the raw list of uid's home timeline.
func home(t *testing.T, f *storetest.Fixture, uid int64) []string {
	t.Helper()
	return f.Strs(t, "LRANGE", "posts:{"+itoa(uid)+"}", "0", "-1")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// followed reads a page of the tags uid follows.
func followed(t *testing.T, tf *tagfollows.Store, f *storetest.Fixture, uid int64, c retwis.Cursor, n int) ([]tagfollows.Followed, bool) {
	t.Helper()
	page, more, err := tf.Followed(f.Ctx, uid, c, n)
	must.OK(t, err)
	return page, more
}

// TestFollowTags follows, lists in pages, and unfollows tags: a tag is
// matched ignoring case, listed as first written, the latest followed
// first; following twice changes nothing; the cap is kept.
func TestFollowTags(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		tf := tagfollows.New(f.St)
		ann := f.Register(t, "ann")
		f.Post(t, posts.Draft{Author: ann.ID, Text: "first #GoLang"})
		f.Drain(t)
		for _, tag := range []string{"golang", "redis", "Cafe", "redis"} {
			must.Value(tf.Follow(f.Ctx, ann.ID, tag))(t)
		}
		if got := must.Value(tf.Following(f.Ctx, ann.ID, []string{"GOLANG", "café", "rust"}))(t); !slices.Equal(got, []bool{true, true, false}) {
			t.Errorf("following golang, café, rust: %v", got)
		}
		first, more := followed(t, tf, f, ann.ID, retwis.Cursor{}, 2)
		if len(first) != 2 || !more || first[0].Name != "cafe" || first[1].Name != "redis" {
			t.Fatalf("first page: %+v, more %v", first, more)
		}
		second, more := followed(t, tf, f, ann.ID, retwis.Cursor{Before: first[1].ID}, 2)
		if len(second) != 1 || more || second[0].Name != "GoLang" {
			t.Errorf("second page: %+v, more %v; want GoLang, as first written", second, more)
		}
		newer, _ := followed(t, tf, f, ann.ID, retwis.Cursor{After: second[0].ID}, 1)
		if len(newer) != 1 || newer[0].Name != "redis" {
			t.Errorf("the page just newer than GoLang: %+v", newer)
		}
		must.Value(tf.Unfollow(f.Ctx, ann.ID, "REDIS"))(t)
		if got := must.Value(tf.Following(f.Ctx, ann.ID, []string{"redis"}))(t); got[0] {
			t.Error("still following redis")
		}
		for i := range tagfollows.MaxFollowed {
			f.Do(t, "ZADD", fmt.Sprintf("tags_followed:{%d}", ann.ID), "1", fmt.Sprint("t", i))
		}
		_, err := tf.Follow(f.Ctx, ann.ID, "onemore")
		storetest.WantKind(t, err, retwis.Invalid)
		must.Value(tf.Follow(f.Ctx, ann.ID, "golang"))(t) // followed already: no more
		_, err = tf.Follow(f.Ctx, ann.ID, "not a tag")
		storetest.WantKind(t, err, retwis.NotFound)
	})
}

// TestTaggedPostsDelivered: a public post with a tag reaches the home
// timelines of the tag's followers, once for one who also follows the
// author or follows two of its tags, never for one the author blocked or
// who muted or blocked the author; posts that are not public, and an
// untagged one, do not; a celebrity's post does. An account's deletion
// takes it out of its tags' followers.
func TestTaggedPostsDelivered(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		tf := tagfollows.New(f.St)
		author := f.Register(t, "author")
		users := map[string]retwis.User{}
		for _, name := range []string{"fan", "friend", "muter", "blocked", "blocker", "other"} {
			users[name] = f.Register(t, name)
			if name != "other" {
				must.Value(tf.Follow(f.Ctx, users[name].ID, "go"))(t)
			}
		}
		must.Value(tf.Follow(f.Ctx, users["fan"].ID, "redis"))(t)
		must.Value(tf.Follow(f.Ctx, users["other"].ID, "rust"))(t)
		must.OK(t, f.St.Follow(f.Ctx, users["friend"].ID, author.ID))
		must.OK(t, f.St.Mute(f.Ctx, users["muter"].ID, author.ID))
		must.OK(t, f.St.Block(f.Ctx, author.ID, users["blocked"].ID))
		must.OK(t, f.St.Block(f.Ctx, users["blocker"].ID, author.ID))
		public := f.Post(t, posts.Draft{Author: author.ID, Text: "#Go and #redis"})
		for _, v := range []retwis.Visibility{retwis.Unlisted, retwis.Private} {
			f.Post(t, posts.Draft{Author: author.ID, Text: "quiet #go", Visibility: v})
		}
		f.Post(t, posts.Draft{Author: author.ID, Text: "no tag"})
		f.Drain(t)
		want := map[string][]string{"fan": {itoa(public.ID)}, "friend": nil, "muter": nil, "blocked": nil, "blocker": nil, "other": nil}
		for name, w := range want {
			got := home(t, f, users[name].ID)
			if name == "friend" { // the author's follower has all the author's posts but the unlisted... once each
				if n := slices.Index(got, itoa(public.ID)); n < 0 || slices.Contains(got[n+1:], got[n]) {
					t.Errorf("%s's home timeline %v: want the post once", name, got)
				}
				continue
			}
			if !slices.Equal(got, w) {
				t.Errorf("%s's home timeline: %v, want %v", name, got, w)
			}
		}
		must.OK(t, deletion.New(f.St).DeleteAccount(f.Ctx, users["fan"].ID, "password1"))
		if n := f.Do(t, "ZSCORE", "tag_followers:{go}", itoa(users["fan"].ID)); n != "" {
			t.Errorf("a deleted account still follows #go (%s)", n)
		}
		if n := f.Do(t, "EXISTS", fmt.Sprintf("tags_followed:{%d}", users["fan"].ID)); n != "0" {
			t.Error("a deleted account's tags followed are left")
		}
	})
}

// TestTaggedPostsInBatches: a post whose author has more followers than
// a batch is delivered alone, and its tag's followers, more than a
// batch too, each get it once.
func TestTaggedPostsInBatches(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, false)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		delivery.New(f.St, delivery.Options{Consumer: "small", Batch: 2, Block: 20 * time.Millisecond}).Run(ctx)
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	tf := tagfollows.New(f.St)
	author := f.Register(t, "author")
	var fans []retwis.User
	for i := range 5 {
		u := f.Register(t, fmt.Sprint("fan", i))
		fans = append(fans, u)
		must.Value(tf.Follow(f.Ctx, u.ID, "big"))(t)
		if i < 3 {
			must.OK(t, f.St.Follow(f.Ctx, u.ID, author.ID))
		}
	}
	p := f.Post(t, posts.Draft{Author: author.ID, Text: "a #big one"})
	f.Drain(t)
	for _, u := range fans {
		if got := home(t, f, u.ID); !slices.Equal(got, []string{itoa(p.ID)}) {
			t.Errorf("%s's home timeline: %v, want the post once", u.Username, got)
		}
	}
}

// TestTaggedPostAnnounced: a post that reaches a tag's follower through
// the tag is announced on the follower's user stream, as any post of
// their home timeline.
func TestTaggedPostAnnounced(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		author, fan := f.Register(t, "author"), f.Register(t, "fan")
		must.Value(tagfollows.New(f.St).Follow(f.Ctx, fan.ID, "live"))(t)
		events := make(chan posts.Event, 16)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.St.Listen(ctx, posts.UserStream(fan.ID), func(ev posts.Event) { events <- ev }) }()
		t.Cleanup(func() { cancel(); <-done })
		next := func() posts.Event {
			select {
			case ev := <-events:
				return ev
			case <-time.After(10 * time.Second):
				t.Fatal("no event came")
				return posts.Event{}
			}
		}
		if ev := next(); ev.Kind != posts.Listening {
			t.Fatalf("first event %+v", ev)
		}
		p := f.Post(t, posts.Draft{Author: author.ID, Text: "now #live"})
		if ev := next(); ev.Kind != "update" || ev.Post != p.ID {
			t.Errorf("the fan's stream: %+v; want the update of %d", ev, p.ID)
		}
	})
}
