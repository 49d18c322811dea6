package api_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// visViewer is a viewer of the visibility matrix, and how they are tied
// to alice, the author of its posts.
type visViewer struct {
	name                                        string // "" for a visitor logged out
	token                                       string
	author, follower, mentioned, blocked, muted bool
}

// sees reports whether v may see a post of alice's of visibility vis,
// wherever it is shown (retwis.Post.SeenBy, and blocks).
func (v visViewer) sees(vis string) bool {
	switch {
	case v.blocked:
		return false
	case v.author || v.mentioned:
		return true
	case vis == "private":
		return v.follower
	}
	return vis != "direct"
}

// places returns where v must find a post of alice's of visibility vis
// (see visScene.finds).
func (v visViewer) places(vis, pid, reply string) []string {
	if !v.sees(vis) {
		return nil
	}
	places := []string{"api status", "api context", "api account statuses", "page /p/" + pid, "page /p/" + reply, "page /u/alice"}
	if vis == "public" && !v.muted {
		places = append(places, "api public", "api tag", "page /timeline", "page /tag/topic")
	}
	if v.author || v.follower && !v.muted && vis != "direct" || v.mentioned && vis == "direct" {
		places = append(places, "api home", "page /")
	}
	if v.mentioned {
		places = append(places, "api notifications", "page /mentions")
	}
	if vis == "direct" {
		places = append(places, "api conversations", "page /direct")
	}
	slices.Sort(places)
	return places
}

// visScene is a server where alice posted one post of each visibility,
// mentioning mia and tagged #topic, and replied to each with a public
// post; fran follows her, mo follows her and muted her, ben followed her
// and she blocked him, and sam is a stranger.
type visScene struct {
	srv     *server
	viewers []visViewer
	posts   map[string]*mastodon.Status // by visibility
	replies map[string]*mastodon.Status // alice's public reply to each
}

// visibilities are Mastodon's, from the widest to the narrowest.
var visibilities = []string{"public", "unlisted", "private", "direct"}

func newVisScene(t *testing.T) *visScene {
	t.Helper()
	ctx := t.Context()
	s := &visScene{srv: newServer(t), posts: map[string]*mastodon.Status{}, replies: map[string]*mastodon.Status{}}
	tokens := map[string]string{}
	ids := map[string]mastodon.ID{}
	for _, name := range []string{"alice", "fran", "mia", "sam", "ben", "mo"} {
		u, token := s.srv.User(name)
		tokens[name], ids[name] = token, mastodon.ID(id(u.ID))
	}
	app := func(name string) *mastodon.Client { return s.srv.Mastodon(&mastodon.Config{AccessToken: tokens[name]}) }
	for _, name := range []string{"fran", "mo", "ben"} {
		must.Value(app(name).AccountFollow(ctx, ids["alice"]))(t)
	}
	must.Value(app("alice").AccountBlock(ctx, ids["ben"]))(t)
	must.Value(app("mo").AccountMute(ctx, ids["alice"]))(t)
	alice := app("alice")
	for _, vis := range visibilities {
		st := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "words-" + vis + " @mia #topic", Visibility: vis}))(t)
		if st.Visibility != vis {
			t.Fatalf("posted %s, answered %s", vis, st.Visibility)
		}
		s.posts[vis] = st
		s.replies[vis] = must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "thread-" + vis, InReplyToID: st.ID}))(t)
	}
	s.srv.Drain()
	s.viewers = []visViewer{
		{name: "alice", token: tokens["alice"], author: true},
		{name: "fran", token: tokens["fran"], follower: true},
		{name: "mia", token: tokens["mia"], mentioned: true},
		{name: "sam", token: tokens["sam"]},
		{name: "ben", token: tokens["ben"], blocked: true},
		{name: "mo", token: tokens["mo"], follower: true, muted: true},
		{},
	}
	return s
}

// finds returns, sorted, where v finds alice's post of visibility vis
// among every endpoint and page that shows posts: the timelines (home,
// public, tag), alice's statuses and profile, the post's status and
// page, the context and page of alice's reply to it, notifications,
// mentions, conversations and the Direct page. A visitor logged out is
// asked only what needs no login.
func (s *visScene) finds(t *testing.T, v visViewer, vis string) []string {
	t.Helper()
	ctx := t.Context()
	post, reply := s.posts[vis], s.replies[vis]
	text := "words-" + vis
	r := &reader{t: t, base: s.srv.URL, web: newBrowser(t), app: s.srv.Mastodon(&mastodon.Config{AccessToken: v.token})}
	if v.name != "" {
		r.web.send("POST", r.base+"/login", map[string][]string{"username": {v.name}, "password": {"password-" + v.name}})
	}
	var where []string
	has := func(sts []*mastodon.Status) bool {
		return slices.ContainsFunc(sts, func(st *mastodon.Status) bool { return st.ID == post.ID })
	}
	add := func(place string, found bool, err error) {
		t.Helper()
		if err != nil && !strings.Contains(err.Error(), "404") {
			t.Fatalf("%s, %s: %v", v.name, place, err)
		}
		if found && err == nil {
			where = append(where, place)
		}
	}
	public, err := r.app.GetTimelinePublic(ctx, false, nil)
	add("api public", has(public), err)
	tagged, err := r.app.GetTimelineHashtag(ctx, "topic", false, nil)
	add("api tag", has(tagged), err)
	own, err := r.app.GetAccountStatuses(ctx, post.Account.ID, nil)
	add("api account statuses", has(own), err)
	st, err := r.app.GetStatus(ctx, post.ID)
	add("api status", st != nil && st.Visibility == vis, err)
	c, err := r.app.GetStatusContext(ctx, reply.ID)
	add("api context", c != nil && has(c.Ancestors), err)
	if v.token != "" {
		home, err := r.app.GetTimelineHome(ctx, nil)
		add("api home", has(home), err)
		notes, err := r.app.GetNotifications(ctx, nil)
		add("api notifications", slices.ContainsFunc(notes, func(n *mastodon.Notification) bool {
			return n.Status != nil && n.Status.ID == post.ID
		}), err)
		convs, err := r.app.GetConversations(ctx, nil)
		add("api conversations", slices.ContainsFunc(convs, func(c *mastodon.Conversation) bool {
			return c.LastStatus != nil && c.LastStatus.ID == post.ID
		}), err)
	}
	for _, page := range []string{"/", "/timeline", "/tag/topic", "/u/alice", "/p/" + string(post.ID), "/p/" + string(reply.ID), "/mentions", "/direct"} {
		if _, body := r.web.send("GET", r.base+page, nil); strings.Contains(body, text) {
			where = append(where, "page "+page)
		}
	}
	slices.Sort(where)
	return where
}

// TestVisibilityAPIAndPages: the matrix of visibility × viewer × every
// endpoint of the client API and every page that shows posts, through
// go-mastodon and a browser: each viewer finds each post exactly where
// its visibility lets them (see visViewer.places), no more, no less.
func TestVisibilityAPIAndPages(t *testing.T) {
	t.Parallel()
	s := newVisScene(t)
	for _, v := range s.viewers {
		for _, vis := range visibilities {
			want := v.places(vis, string(s.posts[vis].ID), string(s.replies[vis].ID))
			if got := s.finds(t, v, vis); !slices.Equal(got, want) {
				t.Errorf("%q finds the %s post in %v; want %v", v.name, vis, got, want)
			}
		}
	}
}

// TestConversations: GET /api/v1/conversations lists the direct posts a
// user wrote or is mentioned in, newest first, each with the accounts
// it is between but the reader, and nobody else's; the pages' Direct
// page likewise.
func TestConversations(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	_, carolToken := s.User("carol")
	alice := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	first := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "psst @bob and @carol", Visibility: "direct"}))(t)
	second := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "just @bob", Visibility: "direct"}))(t)
	must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "everyone @bob"}))(t)
	s.Drain()
	for who, tc := range map[string]struct {
		token string
		want  [][]string // the accounts of each conversation, newest first
	}{
		"alice": {aliceToken, [][]string{{"bob"}, {"bob", "carol"}}},
		"bob":   {bobToken, [][]string{{"alice"}, {"alice", "carol"}}},
		"carol": {carolToken, [][]string{{"alice", "bob"}}},
	} {
		convs := must.Value(s.Mastodon(&mastodon.Config{AccessToken: tc.token}).GetConversations(ctx, nil))(t)
		var got [][]string
		for _, c := range convs {
			var names []string
			for _, a := range c.Accounts {
				names = append(names, a.Username)
			}
			if c.LastStatus == nil || c.ID != c.LastStatus.ID || c.LastStatus.Visibility != "direct" {
				t.Errorf("%s's conversation %+v: want its direct post as its last status and id", who, c)
			}
			got = append(got, names)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s's conversations are between %v; want %v", who, got, tc.want)
		}
	}
	var page []struct{ ID string }
	s.Call("GET", "/api/v1/conversations?limit=1", aliceToken, nil).Decode(t, &page)
	if len(page) != 1 || page[0].ID != string(second.ID) {
		t.Errorf("alice's first page of one: %+v; want her newest, %s", page, second.ID)
	}
	s.Call("GET", "/api/v1/conversations?max_id="+string(second.ID), aliceToken, nil).Decode(t, &page)
	if len(page) != 1 || page[0].ID != string(first.ID) {
		t.Errorf("alice's page before %s: %+v; want %s", second.ID, page, first.ID)
	}
	if r := s.Call("GET", "/api/v1/conversations", "", nil); r.Status != 401 {
		t.Errorf("conversations without a token: %d; want 401", r.Status)
	}
}

// TestConversationThreads: through go-mastodon, a thread of three direct
// posts between alice and bob is one conversation for both, its id the
// first post's, its last status the newest; unread for bob until he
// marks it read, and for alice once bob replies; deleted from alice's
// list alone until a new post brings it back; an unknown one is 404.
func TestConversationThreads(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	alice, bob := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}), s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	say := func(app *mastodon.Client, text string, to mastodon.ID) *mastodon.Status {
		t.Helper()
		st := must.Value(app.PostStatus(ctx, &mastodon.Toot{Status: text, InReplyToID: to, Visibility: "direct"}))(t)
		s.Drain()
		return st
	}
	want := func(app *mastodon.Client, who string, last mastodon.ID, unread bool) {
		t.Helper()
		convs := must.Value(app.GetConversations(ctx, nil))(t)
		if len(convs) != 1 || convs[0].LastStatus == nil || convs[0].LastStatus.ID != last || convs[0].Unread != unread {
			t.Fatalf("%s's conversations: %+v; want one, its last status %s, unread %v", who, convs, last, unread)
		}
	}
	first := say(alice, "@bob psst", "")
	want(bob, "bob", first.ID, true)
	want(alice, "alice", first.ID, false)
	must.OK(t, bob.MarkConversationAsRead(ctx, first.ID))
	want(bob, "bob", first.ID, false)
	second := say(bob, "yes?", first.ID)
	want(alice, "alice", second.ID, true)
	third := say(alice, "tonight", second.ID)
	want(alice, "alice", third.ID, false)
	want(bob, "bob", third.ID, true)
	convs := must.Value(bob.GetConversations(ctx, nil))(t)
	if convs[0].ID != first.ID || len(convs[0].Accounts) != 1 || convs[0].Accounts[0].Username != "alice" {
		t.Errorf("bob's conversation %s with %+v; want %s, with alice", convs[0].ID, convs[0].Accounts, first.ID)
	}
	must.OK(t, alice.DeleteConversation(ctx, first.ID))
	if got := must.Value(alice.GetConversations(ctx, nil))(t); len(got) != 0 {
		t.Errorf("alice's conversations once she deleted it: %+v; want none", got)
	}
	want(bob, "bob", third.ID, true)
	fourth := say(bob, "@alice gone?", third.ID)
	want(alice, "alice", fourth.ID, true)
	for _, r := range []servertest.Reply{s.Call("POST", "/api/v1/conversations/999/read", aliceToken, nil),
		s.Call("DELETE", "/api/v1/conversations/999", aliceToken, nil), s.Call("DELETE", "/api/v1/conversations/x", aliceToken, nil)} {
		if r.Status != 404 {
			t.Errorf("an unknown conversation: %d; want 404", r.Status)
		}
	}
	if r := s.Call("POST", "/api/v1/conversations/"+string(first.ID)+"/read", "", nil); r.Status != 401 {
		t.Errorf("read without a token: %d; want 401", r.Status)
	}
}

// TestVisibilityStreams: the public, tag and user streams, over
// Server-Sent Events and a WebSocket, carry each of alice's posts to
// exactly those who would find it on the matching timeline: a public
// post on the public and tag streams (not to whom it is blocked or
// muted), and on the user streams of those whose home timeline gets it
// or who are notified of it.
func TestVisibilityStreams(t *testing.T) {
	t.Parallel()
	s := newVisScene(t)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	zed, zedToken := s.srv.User("zed") // whose post ends every stream, all following him
	type stream struct {
		who, what string
		events    chan mastodon.Event
	}
	var streams []stream
	open := func(v visViewer, what string) {
		t.Helper()
		app := s.srv.Mastodon(&mastodon.Config{AccessToken: v.token})
		ws := app.NewWSClient()
		for transport, events := range map[string]func() (chan mastodon.Event, error){
			"sse": func() (chan mastodon.Event, error) {
				switch what {
				case "user":
					return app.StreamingUser(ctx)
				case "public":
					return app.StreamingPublic(ctx, false)
				}
				return app.StreamingHashtag(ctx, "topic", false)
			},
			"ws": func() (chan mastodon.Event, error) {
				switch what {
				case "user":
					return ws.StreamingWSUser(ctx)
				case "public":
					return ws.StreamingWSPublic(ctx, false)
				}
				return ws.StreamingWSHashtag(ctx, "topic", false)
			},
		} {
			streams = append(streams, stream{v.name, what + " over " + transport, must.Value(events())(t)})
		}
	}
	subscribed := 0
	for _, v := range s.viewers {
		what := []string{"public", "hashtag"}
		if v.token != "" {
			what = append(what, "user")
			must.Value(s.srv.Mastodon(&mastodon.Config{AccessToken: v.token}).AccountFollow(ctx, mastodon.ID(id(zed.ID))))(t)
			subscribed++ // the user's stream
		}
		for _, w := range what {
			open(v, w)
		}
	}
	s.srv.WaitSubscribed(subscribed + 3) // and the public and tag streams, and the revocations of access
	// The clients connect on their own: zed's first post, which every
	// stream carries, says each is listening.
	s.srv.Post(zedToken, "live-start #topic")
	s.srv.Drain()
	for _, st := range streams {
		for !strings.Contains(statusOf(servertest.NextEvent(t, st.events)), "live-start") {
		}
	}
	alice := s.srv.Mastodon(&mastodon.Config{AccessToken: s.viewers[0].token})
	for _, vis := range visibilities {
		must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "live-" + vis + " @mia #topic", Visibility: vis}))(t)
	}
	s.srv.Drain() // so that zed's post comes after them on every stream
	s.srv.Post(zedToken, "live-end #topic")
	s.srv.Drain()
	for _, st := range streams {
		v := s.viewers[slices.IndexFunc(s.viewers, func(v visViewer) bool { return v.name == st.who })]
		var got, want []string
		for _, vis := range visibilities {
			if v.sees(vis) && (st.what[:4] == "user" && (v.author || v.mentioned || v.follower && !v.muted && vis != "direct") ||
				st.what[:4] != "user" && vis == "public" && !v.muted) {
				want = append(want, vis)
			}
		}
		for done := false; !done; {
			content := statusOf(servertest.NextEvent(t, st.events))
			switch text := ""; {
			case content == "":
			case strings.Contains(content, "live-end"):
				done = true
			default:
				text = content[strings.Index(content, "live-")+5:]
				vis := text[:strings.IndexAny(text, " <")]
				if !slices.Contains(got, vis) {
					got = append(got, vis)
				}
			}
		}
		slices.SortFunc(got, func(a, b string) int { return slices.Index(visibilities, a) - slices.Index(visibilities, b) })
		if !slices.Equal(got, want) {
			t.Errorf("%q's %s stream carried alice's %v posts; want %v", st.who, st.what, got, want)
		}
	}
}

// statusOf returns the content of the status an event carries ("" for
// none).
func statusOf(ev mastodon.Event) string {
	switch ev := ev.(type) {
	case *mastodon.UpdateEvent:
		return ev.Status.Content
	case *mastodon.NotificationEvent:
		if ev.Notification.Status != nil {
			return ev.Notification.Status.Content
		}
	}
	return ""
}
