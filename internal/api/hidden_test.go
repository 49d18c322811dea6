package api_test

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// reader is a person reading a server through every page and API
// endpoint that shows posts: a Mastodon client with their token and a
// browser logged in with their password.
type reader struct {
	t    *testing.T
	base string
	app  *mastodon.Client
	web  *browser
}

// readerOn logs name (signed up with password "password-<name>") in on
// srv, with token for the API.
func readerOn(t *testing.T, srv *server, name, token string) *reader {
	t.Helper()
	r := &reader{t: t, base: srv.URL, web: newBrowser(t),
		app: srv.Mastodon(&mastodon.Config{AccessToken: token})}
	if resp, _ := r.web.send("POST", r.base+"/login", url.Values{"username": {name}, "password": {"password-" + name}}); resp.StatusCode != 303 {
		t.Fatalf("%s logs in on %s: %d", name, r.base, resp.StatusCode)
	}
	return r
}

// finds returns where the reader finds text, or the post of id pid by
// author, among every page and endpoint that shows posts: timelines
// (home, public, tag), the author's profile and statuses, the post's
// page, status and context, mentions and notifications, search.
func (r *reader) finds(text string, pid int64, author retwis.User, tag string) []string {
	r.t.Helper()
	ctx := r.t.Context()
	var where []string
	sid := mastodon.ID(id(pid))
	has := func(sts []*mastodon.Status) bool {
		return slices.ContainsFunc(sts, func(st *mastodon.Status) bool { return st.ID == sid || strings.Contains(st.Content, text) })
	}
	add := func(place string, found bool, err error) {
		if err != nil && !strings.Contains(err.Error(), "404") {
			r.t.Fatalf("%s: %v", place, err)
		}
		if found && err == nil {
			where = append(where, place)
		}
	}
	home, err := r.app.GetTimelineHome(ctx, nil)
	add("api home", has(home), err)
	public, err := r.app.GetTimelinePublic(ctx, false, nil)
	add("api public", has(public), err)
	tagged, err := r.app.GetTimelineHashtag(ctx, tag, false, nil)
	add("api tag", has(tagged), err)
	own, err := r.app.GetAccountStatuses(ctx, mastodon.ID(id(author.ID)), nil)
	add("api account statuses", has(own), err)
	st, err := r.app.GetStatus(ctx, sid)
	add("api status", st != nil, err)
	notes, err := r.app.GetNotifications(ctx, nil)
	add("api notifications", slices.ContainsFunc(notes, func(n *mastodon.Notification) bool {
		return n.Account.Username == author.Username
	}), err)
	for _, page := range []string{"/", "/timeline", "/tag/" + tag, "/u/" + author.Username, "/p/" + id(pid), "/mentions", "/notifications"} {
		_, body := r.web.send("GET", r.base+page, nil)
		if strings.Contains(body, text) {
			where = append(where, "page "+page)
		}
	}
	return where
}

// parseID reads a status id.
func parseID(t *testing.T, sid mastodon.ID) int64 {
	t.Helper()
	n, err := strconv.ParseInt(string(sid), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBlockedAppearsNowhere: once alice blocks bob on one server, a
// second server that had her pages in its cache shows her nothing of
// bob's on any page or API endpoint that shows posts, and bob nothing
// of hers; carol still sees both; unblocking shows them again.
func TestBlockedAppearsNowhere(t *testing.T) {
	t.Parallel()
	one := newServer(t)
	two := newServerAt(t, one.RedisURL)
	alice, aliceToken := one.User("alice")
	bob, bobToken := one.User("bob")
	_, carolToken := one.User("carol")
	ctx := t.Context()
	aliceApp := one.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	bobApp := one.Mastodon(&mastodon.Config{AccessToken: bobToken})
	if _, err := aliceApp.AccountFollow(ctx, mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	bobs, err := bobApp.PostStatus(ctx, &mastodon.Toot{Status: "bob-words for @alice #both"})
	if err != nil {
		t.Fatal(err)
	}
	alices, err := aliceApp.PostStatus(ctx, &mastodon.Toot{Status: "alice-words #both"})
	if err != nil {
		t.Fatal(err)
	}
	one.Drain()
	bobsID, alicesID := parseID(t, bobs.ID), parseID(t, alices.ID)
	aliceThere, bobThere := readerOn(t, two, "alice", aliceToken), readerOn(t, two, "bob", bobToken)
	if got := aliceThere.finds("bob-words", bobsID, bob, "both"); len(got) < 8 { // the caches of server two are warm now
		t.Fatalf("before the block, alice finds bob's post only in %v", got)
	}

	rel, err := aliceApp.AccountBlock(ctx, mastodon.ID(id(bob.ID)))
	if err != nil || !rel.Blocking || rel.Following {
		t.Fatalf("block = %+v, %v", rel, err)
	}
	// Server two's caches learn of the block from Redis's invalidation,
	// within milliseconds: once one read shows it, every read must.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := aliceThere.app.GetStatus(ctx, bobs.ID); err != nil || time.Now().After(deadline) {
			break
		}
	}
	if got := aliceThere.finds("bob-words", bobsID, bob, "both"); len(got) > 0 {
		t.Errorf("alice, who blocked bob, finds his post on server two in %v", got)
	}
	if got := bobThere.finds("alice-words", alicesID, alice, "both"); len(got) > 0 {
		t.Errorf("bob, blocked by alice, finds her post on server two in %v", got)
	}
	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	events, err := aliceThere.app.StreamingPublic(streamCtx, false)
	if err != nil {
		t.Fatal(err)
	}
	two.WaitSubscribed(2) // the public stream and the revocations of alice's access
	one.Post(bobToken, "bob-words again")
	one.Post(carolToken, "carol-words")
	if ev, ok := servertest.NextEvent(t, events).(*mastodon.UpdateEvent); !ok || !strings.Contains(ev.Status.Content, "carol-words") {
		t.Errorf("alice's public stream sent %#v first; want carol's post, not bob's", ev)
	}
	stop()
	one.Drain()
	carol := readerOn(t, two, "carol", carolToken)
	if got := carol.finds("bob-words", bobsID, bob, "both"); !slices.Contains(got, "api public") || !slices.Contains(got, "page /p/"+id(bobsID)) {
		t.Errorf("carol finds bob's post only in %v", got)
	}
	if _, err := bobThere.app.AccountFollow(ctx, mastodon.ID(id(alice.ID))); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("bob follows alice, who blocked him: %v; want 403", err)
	}
	blocks, err := aliceThere.app.GetBlocks(ctx, nil)
	if err != nil || len(blocks) != 1 || blocks[0].Username != "bob" {
		t.Errorf("alice's blocks: %v, %v", blocks, err)
	}
	var rels []struct {
		BlockedBy bool `json:"blocked_by"`
	}
	two.Call("GET", "/api/v1/accounts/relationships?id[]="+id(alice.ID), bobToken, nil).Decode(t, &rels)
	if len(rels) != 1 || !rels[0].BlockedBy { // go-mastodon has no blocked_by
		t.Errorf("bob's relationship to alice: %+v", rels)
	}

	if _, err := aliceApp.AccountUnblock(ctx, mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	if got := aliceThere.finds("bob-words", bobsID, bob, "both"); !slices.Contains(got, "api public") || !slices.Contains(got, "page /p/"+id(bobsID)) {
		t.Errorf("after the unblock, alice finds bob's post only in %v", got)
	}
}

// TestMuteAPI: a mute through the API takes the account's posts off the
// timelines and nothing else, and is listed.
func TestMuteAPI(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	ctx := t.Context()
	aliceApp := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	bobApp := s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	st, err := bobApp.PostStatus(ctx, &mastodon.Toot{Status: "muted words #m"})
	if err != nil {
		t.Fatal(err)
	}
	s.Drain()
	rel, err := aliceApp.AccountMute(ctx, mastodon.ID(id(bob.ID)))
	if err != nil || !rel.Muting || rel.Blocking {
		t.Fatalf("mute = %+v, %v", rel, err)
	}
	public, err := aliceApp.GetTimelinePublic(ctx, false, nil)
	if err != nil || len(public) != 0 {
		t.Errorf("alice's public timeline: %d statuses, %v; want none", len(public), err)
	}
	if got, err := aliceApp.GetStatus(ctx, st.ID); err != nil || got.ID != st.ID {
		t.Errorf("a muted account's status: %v, %v; want it", got, err)
	}
	mutes, err := aliceApp.GetMutes(ctx, nil)
	if err != nil || len(mutes) != 1 || mutes[0].Username != "bob" {
		t.Errorf("alice's mutes: %v, %v", mutes, err)
	}
	if _, err := aliceApp.AccountMute(ctx, mastodon.ID("999")); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("muting nobody: %v; want 404", err)
	}
	if _, err := aliceApp.AccountUnmute(ctx, mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	if public, err := aliceApp.GetTimelinePublic(ctx, false, nil); err != nil || len(public) != 1 {
		t.Errorf("after the unmute: %d statuses, %v", len(public), err)
	}
}

// TestSuspendedAppearsNowhere: once a moderator suspends an account on
// one server, a second server that had its post in its caches shows it
// on no page and no API endpoint, and the account's token stops there;
// lifting the suspension shows the post again.
func TestSuspendedAppearsNowhere(t *testing.T) {
	t.Parallel()
	one := newServer(t)
	two := newServerAt(t, one.RedisURL)
	spammer, spamToken := one.User("spammer")
	_, carolToken := one.User("carol")
	ctx := t.Context()
	carolApp := one.Mastodon(&mastodon.Config{AccessToken: carolToken})
	if _, err := carolApp.AccountFollow(ctx, mastodon.ID(id(spammer.ID))); err != nil {
		t.Fatal(err)
	}
	spam := one.Post(spamToken, "spam-words for @carol #deals")
	one.Drain()
	spamID := parseID(t, mastodon.ID(spam))
	carol := readerOn(t, two, "carol", carolToken)
	if got := carol.finds("spam-words", spamID, spammer, "deals"); len(got) < 8 {
		t.Fatalf("before the suspension, carol finds the post only in %v", got)
	}
	if err := one.Store.Suspend(ctx, "cli:test", spammer.ID, "spam"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := carol.app.GetStatus(ctx, mastodon.ID(spam)); err != nil || time.Now().After(deadline) {
			break
		}
	}
	if got := carol.finds("spam-words", spamID, spammer, "deals"); len(got) > 0 {
		t.Errorf("a suspended account's post shows on server two in %v", got)
	}
	if r := two.Call("GET", "/api/v1/timelines/public", "", nil); r.Status != 200 || strings.Contains(string(r.Body), "spam-words") {
		t.Errorf("logged out, the public timeline: %d, %s", r.Status, r.Body)
	}
	if r := two.Call("POST", "/api/v1/statuses", spamToken, url.Values{"status": {"more"}}); r.Status != 401 {
		t.Errorf("the suspended account's token posts: %d %s", r.Status, r.Body)
	}
	if err := one.Store.Unsuspend(ctx, "cli:test", spammer.ID, ""); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := carol.app.GetStatus(ctx, mastodon.ID(spam)); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if got := carol.finds("spam-words", spamID, spammer, "deals"); !slices.Contains(got, "api public") {
		t.Errorf("after the suspension is lifted, carol finds the post only in %v", got)
	}
}

// TestReplyToBlockerRefused: bob, whom alice blocked, cannot reply to
// her post by its id, through the API (in_reply_to_id) or the pages
// (in_reply_to), nor alice to his: 404, as Mastodon answers, and nothing
// is posted; carol can, and so can bob once alice unblocks him.
func TestReplyToBlockerRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	_, carolToken := s.User("carol")
	ctx := t.Context()
	aliceApp := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	hers := s.Post(aliceToken, "alice's post")
	his := s.Post(bobToken, "bob's post")
	if _, err := aliceApp.AccountBlock(ctx, mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	bobWeb := readerOn(t, s, "bob", bobToken).web
	for _, tc := range []struct {
		who, token, to string
		web            *browser
	}{{"bob", bobToken, hers, bobWeb}, {"alice", aliceToken, his, readerOn(t, s, "alice", aliceToken).web}} {
		r := s.Call("POST", "/api/v1/statuses", tc.token, url.Values{"status": {"a reply"}, "in_reply_to_id": {tc.to}})
		if r.Status != 404 {
			t.Errorf("%s replies through the API across a block: %d %s; want 404", tc.who, r.Status, r.Body)
		}
		resp, body := tc.web.send("POST", s.URL+"/post", url.Values{"status": {"a reply"}, "in_reply_to": {tc.to}})
		if resp.StatusCode != 404 || !strings.Contains(body, "does not exist") {
			t.Errorf("%s replies on the pages across a block: %d; want 404 with the reason", tc.who, resp.StatusCode)
		}
	}
	for _, u := range []retwis.User{alice, bob} {
		if sum, err := s.Store.Summary(ctx, u.ID); err != nil || sum.Posts != 1 {
			t.Errorf("%s has %d posts (%v); want the refused replies not posted", u.Username, sum.Posts, err)
		}
	}
	if r := s.Call("POST", "/api/v1/statuses", carolToken, url.Values{"status": {"carol's reply"}, "in_reply_to_id": {hers}}); r.Status != 200 {
		t.Errorf("carol's reply: %d %s", r.Status, r.Body)
	}
	if _, err := aliceApp.AccountUnblock(ctx, mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	if resp, _ := bobWeb.send("POST", s.URL+"/post", url.Values{"status": {"a reply"}, "in_reply_to": {hers}}); resp.StatusCode != 303 {
		t.Errorf("bob's reply once unblocked: %d; want 303", resp.StatusCode)
	}
}
