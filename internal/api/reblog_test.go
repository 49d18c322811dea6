package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestReblog drives boosts with go-mastodon: a boost answers a status
// whose reblog is the post, boosting twice gives the same boost, the
// booster's follower finds it in their home timeline, the post counts it
// and lists its booster, its author is notified, and unreblogging
// answers the post and takes the boost off the follower's timeline.
func TestReblog(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	alice, bob, carol := client(t, s, "alice"), client(t, s, "bob"), client(t, s, "carol")
	bobAcct, err := carol.AccountLookup(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := carol.AccountFollow(ctx, bobAcct.ID); err != nil {
		t.Fatal(err)
	}
	post, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "boost me"})
	if err != nil {
		t.Fatal(err)
	}
	boost, err := bob.Reblog(ctx, post.ID)
	if err != nil || boost.Reblog == nil || boost.Reblog.ID != post.ID || boost.ID == post.ID || boost.Account.Username != "bob" ||
		boost.Reblogged != true || boost.Reblog.Content == "" {
		t.Fatalf("reblog = %+v, %v; want bob's boost of %s", boost, err, post.ID)
	}
	again, err := bob.Reblog(ctx, post.ID)
	if err != nil || again.ID != boost.ID {
		t.Errorf("reblogging again = %+v, %v; want the same boost %s", again, err, boost.ID)
	}
	mine, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "for followers", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Reblog(ctx, mine.ID); err == nil || !strings.Contains(err.Error(), "422") || !strings.Contains(err.Error(), "only public and unlisted posts can be boosted") {
		t.Errorf("reblogging a followers-only post: %v; want 422 saying why", err)
	}
	var keyed struct{ ID string }
	r := s.Call("POST", "/api/v1/statuses/"+string(post.ID)+"/reblog", bob.Config.AccessToken, nil, "Idempotency-Key", "k1")
	if r.Decode(t, &keyed); r.Status != 200 || keyed.ID != string(boost.ID) {
		t.Errorf("reblogging again with an Idempotency-Key: %d %s; want the same boost", r.Status, r.Body)
	}
	s.Drain()
	home, err := carol.GetTimelineHome(ctx, nil)
	if err != nil || len(home) != 1 || home[0].ID != boost.ID || home[0].Reblog == nil || home[0].Reblog.ID != post.ID ||
		home[0].Reblog.Account.Username != "alice" || home[0].Reblog.ReblogsCount != 1 {
		t.Fatalf("carol's home = %+v, %v; want bob's boost of alice's post, counted", home, err)
	}
	read, err := bob.GetStatus(ctx, post.ID)
	if err != nil || read.ReblogsCount != 1 || read.Reblogged != true {
		t.Errorf("the post as bob reads it = %+v, %v; want reblogs_count 1, reblogged", read, err)
	}
	by, err := alice.GetRebloggedBy(ctx, post.ID, nil)
	if err != nil || len(by) != 1 || by[0].Username != "bob" {
		t.Errorf("reblogged_by = %+v, %v; want bob", by, err)
	}
	notes, err := alice.GetNotifications(ctx, nil)
	if err != nil || len(notes) != 1 || notes[0].Type != "reblog" || notes[0].Account.Username != "bob" ||
		notes[0].Status == nil || notes[0].Status.ID != post.ID {
		t.Errorf("alice's notifications = %+v, %v; want bob's reblog of her post", notes, err)
	}
	undone, err := bob.Unreblog(ctx, post.ID)
	if err != nil || undone.ID != post.ID || undone.Reblogged != false {
		t.Fatalf("unreblog = %+v, %v; want the post, not reblogged", undone, err)
	}
	s.Drain()
	if home, err := carol.GetTimelineHome(ctx, nil); err != nil || len(home) != 0 {
		t.Errorf("carol's home after the unreblog = %v, %v; want empty", ids(home), err)
	}
	if read, err := bob.GetStatus(ctx, post.ID); err != nil || read.ReblogsCount != 0 || read.Reblogged != false {
		t.Errorf("the post after the unreblog = %+v, %v; want reblogs_count 0", read, err)
	}
}

// ids returns the ids of statuses.
func ids(sts []*mastodon.Status) []mastodon.ID {
	out := make([]mastodon.ID, len(sts))
	for i, st := range sts {
		out[i] = st.ID
	}
	return slices.Clip(out)
}
