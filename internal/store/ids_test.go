package store_test

import (
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestReusedIDsNeverOverwrite rolls the tutorial's id counters back, as a
// Redis failover that loses the last increments does: new accounts and
// posts then get ids already in use, and must take others instead of
// overwriting what was acknowledged.
func TestReusedIDsNeverOverwrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice := f.Register(t, "alice")
	first := must.Value(f.St.CreatePost(f.Ctx, alice.ID, "acknowledged before the failover"))(t)
	f.Do(t, "SET", "next_user_id", "0")
	f.Do(t, "SET", "next_post_id", "0")

	mallory := f.Register(t, "mallory")
	if mallory.ID == alice.ID {
		t.Fatalf("mallory got alice's id %d", alice.ID)
	}
	if _, _, err := f.St.Login(f.Ctx, "alice", "password1"); err != nil {
		t.Fatalf("alice cannot log in after the reuse: %v", err)
	}
	if u, err := f.St.UserByName(f.Ctx, "alice"); err != nil || u.ID != alice.ID {
		t.Fatalf("alice is now %v, %v", u, err)
	}
	p, err := f.St.CreatePost(f.Ctx, mallory.ID, "after the failover")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == first.ID {
		t.Fatalf("the new post got the id %d of an acknowledged one", p.ID)
	}
	got, err := f.St.Post(f.Ctx, 0, first.ID)
	if err != nil || got.AuthorID != alice.ID || got.Body != first.Body {
		t.Fatalf("alice's post is now %+v, %v", got, err)
	}
}

// TestGeneratedIDs gives the store an id generator: new accounts and
// posts get time-ordered ids far above the counters', exact as sorted-set
// scores, and old counter ids keep working next to them.
func TestGeneratedIDs(t *testing.T) {
	t.Parallel()
	url := redistest.Start(t).URL
	old := newFixtureAt(t, url)
	veteran := old.Register(t, "veteran")
	oldPost := must.Value(old.St.CreatePost(old.Ctx, veteran.ID, "from the counter days"))(t)

	gen, err := snowflake.New(3)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, url, store.Options{IDs: gen}, true)
	newbie := f.Register(t, "newbie")
	if newbie.ID < 1<<40 || snowflake.Worker(newbie.ID) != 3 {
		t.Fatalf("a generated user id %d", newbie.ID)
	}
	must.OK(t, f.St.Follow(f.Ctx, newbie.ID, veteran.ID))
	var posts []int64
	for i := range 3 {
		p, err := f.St.CreatePost(f.Ctx, newbie.ID, fmt.Sprint("generated ", i))
		if err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p.ID)
	}
	if score := f.Do(t, "ZSCORE", fmt.Sprint("user_posts:{", newbie.ID, "}"), fmt.Sprint(posts[2])); score != fmt.Sprint(posts[2]) {
		t.Fatalf("post id %d is scored %s: not exact", posts[2], score)
	}
	want := []int64{posts[2], posts[1], posts[0], oldPost.ID}
	if got := pageAll(t, f.Home(t, newbie.ID, 2), nil); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("home = %v; want %v (new ids above old ones, paging by cursor)", got, want)
	}
	page, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{Before: posts[1]}, 10)
	if err != nil || len(page.Posts) != 2 || page.Posts[0].ID != posts[0] || page.Posts[1].ID != oldPost.ID {
		t.Fatalf("global timeline before %d = %v, %v", posts[1], postIDs(page.Posts), err)
	}
}
