package api_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/testkit/must"
)

// mastoReport is what testdata/npm/masto.mjs reports it read.
type mastoReport struct {
	Instance struct {
		URI, StreamingAPI, Domain, Streaming string
		MaxCharacters                        int
	}
	// OAuth: the token of the app the script registered, which carol
	// approved: its app, scope and type, and its user.
	OAuth struct{ App, Scope, TokenType, Acct string }
	Me    struct{ ID, Username, Acct string }
	// Follow and Following: alice follows bob, as the answer and the
	// relationships say; Unfollow and FollowingAfter, once she stops.
	Follow, Following, Unfollow, FollowingAfter bool
	// Stream: what alice's user stream carried of bob's post Mention.
	Stream struct {
		Mention              string
		Update, Notification streamed
	}
	// Reply is alice's reply to bob's post (InReplyTo), Descendants and
	// Ancestors the threads of the two, BobNotifications bob's mentions.
	Reply, InReplyTo       string
	Descendants, Ancestors []string
	BobNotifications       []note
	Plain                  []string // alice's posts before the one with a warning
	Posted, Read           struct {
		ID, Content, SpoilerText, Author string
		Sensitive                        bool
	}
	// The lists, by ids page by page: timelines, a tag's, alice's
	// statuses, and without her replies; Newer: the home timeline after
	// her first plain post.
	Home, Public, Tag, Statuses, NoReplies [][]string
	Newer                                  []string
	Bob                                    struct {
		Acct                string
		Followers, Statuses int
	}
	Followers     []string // bob's, while alice follows him
	Notifications []note
	Search        struct{ Accounts, Hashtags []string }
	Explore       struct {
		Tags                   []string
		Statuses, Links, Rules int
	}
	Profile      struct{ DisplayName, ReadDisplayName, Note, Visibility string }
	AfterDelete  int // the status reading a deleted post answers
	Interactions mastoInteractions
}

// mastoInteractions is what masto.mjs reports of bob's favourite, boost
// and bookmark of alice's post, her edit of it, her followers-only and
// direct posts, and the lists and notifications of them.
type mastoInteractions struct {
	Favourited, Bookmarked, BoostReblogged, Edited bool
	BoostOf, EditedContent, Direct                 string
	History                                        int
	Seen                                           struct {
		Favourites, Reblogs                       int
		Favourited, Reblogged, Bookmarked, Edited bool
	}
	Visibilities, Favourites, Bookmarks, Conversations, FavouritedBy, RebloggedBy, AlicesNotes []string
	Unfavourited, Unreblogged                                                                  bool
}

// streamed is an event of a stream about a post, as a script reports
// it: the stream's name, the post, its author, the notification's type.
type streamed struct {
	Stream           []string
	ID, Author, Type string
}

// note is a notification as a script reports it.
type note struct{ Type, Account, Status string }

// TestMastoJS drives retwis with masto.js, the library of the Elk and
// Phanpy apps, from npm, as an app uses it (testdata/npm/masto.mjs):
// the instance (v1 and v2), an app registered and approved on the
// authorization page, its code exchanged for a token with PKCE,
// verify_credentials, follow and unfollow
// with the relationships, alice's user stream over a WebSocket carrying
// bob's post mentioning her and its notification, her reply and its thread, bob's notifications
// filtered by type, a post of several lines behind a content warning
// read back, the home, public and tag timelines and her statuses page
// by page through the Link header (and the newer posts by min_id), an
// account and its followers, notifications, search, what an explore
// page reads (the trends, the rules), a change of her name and bio, the
// deletion of the post, then the interactions: a favourite, a boost and
// a bookmark with their lists and notifications, an edit and its
// history, followers-only and direct posts and the conversations. Each
// value the library read is checked against what the server holds.
func TestMastoJS(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t)
	s := newServer(t)
	alice, bob := client(t, s, "alice"), client(t, s, "bob")
	me := must.Value(alice.GetAccountCurrentUser(t.Context()))(t)
	const text, spoiler = "Dear reader,\nline two & more\n\nnew paragraph", "about the reader"
	var got mastoReport
	runClientScript(t, dir, "masto.mjs", syncs{
		"subscribed": state(func() { s.WaitSubscribed(2) }), // alice's user stream, and the revocations of her access
		"drained":    state(s.Drain),
		"approve": func(data json.RawMessage) any { // as carol, at a browser
			var app struct{ URL, User string }
			must.OK(t, json.Unmarshal(data, &app))
			return newBrowser(t).approve(s.URL, app.URL, app.User)
		},
	}, &got, "RETWIS_URL="+s.URL, "RETWIS_REDIRECT="+redirectURI, "RETWIS_TOKEN="+alice.Config.AccessToken,
		"RETWIS_OTHER_TOKEN="+bob.Config.AccessToken, "RETWIS_TEXT="+text, "RETWIS_SPOILER="+spoiler)

	checkMastoInstance(t, s, got)
	if want := (struct{ App, Scope, TokenType, Acct string }{"masto.js test", "read write follow", "Bearer", "carol"}); got.OAuth != want {
		t.Errorf("the app's token = %+v; want %+v", got.OAuth, want)
	}
	if got.Me.ID != string(me.ID) || got.Me.Username != "alice" || got.Me.Acct != "alice" {
		t.Errorf("verify_credentials = %+v; want alice, %s", got.Me, me.ID)
	}
	if !got.Follow || !got.Following || got.Unfollow || got.FollowingAfter {
		t.Errorf("follow %v, following %v, unfollow %v, following after %v; want true, true, false, false",
			got.Follow, got.Following, got.Unfollow, got.FollowingAfter)
	}
	mention := checkMastoStream(t, bob, got)
	checkMastoThread(t, got, mention)
	checkMastoPost(t, got, spoiler)
	checkMastoLists(t, alice, got, mention)
	checkMastoAccounts(t, got)
	if got.AfterDelete != 404 {
		t.Errorf("the deleted post reads as %d; want 404", got.AfterDelete)
	}
	checkMastoInteractions(t, got)
}

// checkMastoInteractions: bob's favourite, boost and bookmark of alice's
// second plain post, as the library's answers, the post read again and
// the lists say; her edit and its history; the visibility of her
// followers-only and direct posts, the direct one among bob's
// conversations; her notifications of the favourite and the boost; and
// both taken back.
func checkMastoInteractions(t *testing.T, got mastoReport) {
	t.Helper()
	in, pid := got.Interactions, got.Plain[1]
	if !in.Favourited || !in.Bookmarked || !in.BoostReblogged || in.BoostOf != pid {
		t.Errorf("favourite, bookmark, boost answered %+v; want each marked, the boost of %s", in, pid)
	}
	if !in.Edited || in.EditedContent != "<p>alice two, edited</p>" || in.History != 2 {
		t.Errorf("the edit answered edited %v, %q, with %d versions; want the new text and 2 versions", in.Edited, in.EditedContent, in.History)
	}
	if sn := in.Seen; sn.Favourites != 1 || sn.Reblogs != 1 || !sn.Favourited || !sn.Reblogged || !sn.Bookmarked || !sn.Edited {
		t.Errorf("the post as bob reads it: %+v; want 1 favourite, 1 boost, marked by him, edited", sn)
	}
	if !slices.Equal(in.Visibilities, []string{"private", "direct"}) || !slices.Equal(in.Conversations, []string{in.Direct}) {
		t.Errorf("visibilities %v, bob's conversations %v; want private and direct, the direct post %s", in.Visibilities, in.Conversations, in.Direct)
	}
	one := []string{pid}
	if !slices.Equal(in.Favourites, one) || !slices.Equal(in.Bookmarks, one) || !slices.Equal(in.FavouritedBy, []string{"bob"}) ||
		!slices.Equal(in.RebloggedBy, []string{"bob"}) {
		t.Errorf("favourites %v, bookmarks %v, favourited by %v, reblogged by %v; want %s, %[5]s, bob, bob", in.Favourites, in.Bookmarks,
			in.FavouritedBy, in.RebloggedBy, pid)
	}
	if !slices.Equal(in.AlicesNotes, []string{"favourite:bob", "reblog:bob"}) {
		t.Errorf("alice's notifications of types favourite and reblog: %v", in.AlicesNotes)
	}
	if !in.Unfavourited || !in.Unreblogged {
		t.Errorf("unfavourite and unreblog answered favourited %v, reblogged %v; want neither", !in.Unfavourited, !in.Unreblogged)
	}
}

// checkMastoInstance: the instance entities name this server and its
// streaming API, as the library read them.
func checkMastoInstance(t *testing.T, s *server, got mastoReport) {
	t.Helper()
	host := must.Value(url.Parse(s.URL))(t).Host
	in := got.Instance
	if in.URI != host || in.Domain != host || in.Streaming != "ws://"+host || in.StreamingAPI != "ws://"+host ||
		in.MaxCharacters != s.Store.Opts.MaxPostChars {
		t.Errorf("instance = %+v; want %s, ws://%[2]s and %d characters", in, host, s.Store.Opts.MaxPostChars)
	}
}

// checkMastoStream: the user stream carried the update of bob's post,
// which bob's statuses hold, and the notification of its mention of
// alice; it returns the post's id.
func checkMastoStream(t *testing.T, bob *mastodon.Client, got mastoReport) string {
	t.Helper()
	bobs := must.Value(bob.GetAccountStatuses(t.Context(), must.Value(bob.GetAccountCurrentUser(t.Context()))(t).ID, nil))(t)
	id := got.Stream.Mention
	if len(bobs) != 1 || string(bobs[0].ID) != id {
		t.Fatalf("bob's statuses %v; want the one the script posted, %s", bobs, id)
	}
	user := []string{"user"}
	if up := got.Stream.Update; up.ID != id || up.Author != "bob" || !slices.Equal(up.Stream, user) {
		t.Errorf("streamed update %+v; want bob's post %s on [user]", up, id)
	}
	if n := got.Stream.Notification; n.ID != id || n.Author != "bob" || n.Type != "mention" || !slices.Equal(n.Stream, user) {
		t.Errorf("streamed notification %+v; want the mention in bob's post %s on [user]", n, id)
	}
	return id
}

// checkMastoThread: alice's reply to bob's post is in its thread, and
// in bob's notifications (his follow notification filtered out).
func checkMastoThread(t *testing.T, got mastoReport, mention string) {
	t.Helper()
	if got.InReplyTo != mention || !slices.Equal(got.Descendants, []string{got.Reply}) || !slices.Equal(got.Ancestors, []string{mention}) {
		t.Errorf("reply %s to %s: descendants %v, ancestors %v; want each in the other's thread", got.Reply, got.InReplyTo, got.Descendants, got.Ancestors)
	}
	if n := got.BobNotifications; len(n) != 1 || n[0] != (note{"mention", "alice", got.Reply}) {
		t.Errorf("bob's mentions = %+v; want alice's reply %s", n, got.Reply)
	}
}

// checkMastoPost: the post with a warning reads back as it was
// answered, its lines and paragraphs kept, its text escaped.
func checkMastoPost(t *testing.T, got mastoReport, spoiler string) {
	t.Helper()
	const content = "<p>Dear reader,<br>line two &amp; more</p><p>new paragraph</p>"
	if p := got.Posted; p.ID == "" || p.Content != content || p.SpoilerText != spoiler || !p.Sensitive || p.Author != "alice" {
		t.Errorf("posted %+v; want content %q behind %q, sensitive", p, content, spoiler)
	}
	if got.Read != got.Posted {
		t.Errorf("read back %+v; want %+v", got.Read, got.Posted)
	}
}

// checkMastoLists: the timelines, alice's statuses, her notifications
// and search, as the library paged through them; alice's statuses hold
// what the script posted but the post it deleted.
func checkMastoLists(t *testing.T, alice *mastodon.Client, got mastoReport, mention string) {
	t.Helper()
	if len(got.Plain) != 2 {
		t.Fatalf("plain posts %v; want 2", got.Plain)
	}
	mine := []string{got.Posted.ID, got.Plain[1], got.Plain[0], got.Reply}
	for _, l := range []struct {
		name  string
		pages [][]string
		want  []string
		size  int // of a page
	}{
		{"home", got.Home, append(slices.Clone(mine), mention), 2},
		{"public", got.Public, append(slices.Clone(mine), mention), 2},
		{"alice's statuses", got.Statuses, mine, 2},
		{"alice's statuses without replies", got.NoReplies, mine[:3], 20},
		{"#clients", got.Tag, []string{got.Plain[0]}, 20},
	} {
		ids := slices.Concat(l.pages...)
		if !slices.Equal(ids, l.want) || len(l.pages) < (len(l.want)+l.size-1)/l.size ||
			slices.ContainsFunc(l.pages, func(p []string) bool { return len(p) > l.size }) {
			t.Errorf("%s by pages of %d = %v; want %v", l.name, l.size, l.pages, l.want)
		}
	}
	if want := mine[:2]; !slices.Equal(got.Newer, want) {
		t.Errorf("home after %s = %v; want %v", got.Plain[0], got.Newer, want)
	}
	left := must.Value(alice.GetAccountStatuses(t.Context(), mastodon.ID(got.Me.ID), nil))(t)
	if len(left) != 5 || string(left[0].ID) != got.Interactions.Direct || string(left[2].ID) != got.Plain[1] || string(left[3].ID) != got.Plain[0] {
		t.Errorf("alice's statuses after the script: %v; want her direct and followers-only posts, %v and the reply", left, got.Plain)
	}
	if n := got.Notifications; len(n) != 1 || n[0] != (note{"mention", "bob", mention}) {
		t.Errorf("notifications = %+v; want bob's mention %s", n, mention)
	}
	if !slices.Equal(got.Search.Accounts, []string{"bob"}) || !slices.Equal(got.Search.Hashtags, []string{"clients"}) {
		t.Errorf("search = %+v; want bob and #clients", got.Search)
	}
	if e := got.Explore; !slices.Equal(e.Tags, []string{"clients"}) || e.Statuses != 1 || e.Links != 0 || e.Rules != 0 {
		t.Errorf("explore = %+v; want #clients trending, the post answered in the thread, no links or rules", e)
	}
}

// checkMastoAccounts: bob's account and followers while alice follows
// him, and alice's profile as she changed it.
func checkMastoAccounts(t *testing.T, got mastoReport) {
	t.Helper()
	if got.Bob.Acct != "bob" || got.Bob.Followers != 1 || got.Bob.Statuses != 1 || !slices.Equal(got.Followers, []string{"alice"}) {
		t.Errorf("bob = %+v, followed by %v; want 1 follower, alice, and 1 post", got.Bob, got.Followers)
	}
	if p := got.Profile; p.DisplayName != "Alice A." || p.ReadDisplayName != p.DisplayName || p.Note != "Reads a lot" || p.Visibility != "public" {
		t.Errorf("profile = %+v; want the name and bio set, public posts", p)
	}
}

// mastoMedia is what masto_media.mjs reports of a MediaAttachment.
type mastoMedia struct {
	ID, Type, URL, PreviewURL, Description, Blurhash string
	Meta                                             struct {
		Original struct{ Width, Height int }
		Focus    struct{ X, Y float64 }
	}
}

// TestMastoJSMedia: masto.js, the library of Elk and Phanpy, uploads a
// picture with its alt text and focus (v2, polled until processed, as
// the library does), posts it with no text, sensitive, reads it back and
// changes its alt text by an edit; a file that is no picture is refused
// with 422 and the reason, which the library shows.
func TestMastoJSMedia(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t)
	s := newServer(t)
	_, token := s.User("alice")
	file := filepath.Join(t.TempDir(), "photo.jpg")
	must.OK(t, os.WriteFile(file, photo(t, 800, 600), 0o600))
	var got struct {
		Uploaded, Ready mastoMedia
		Posted          struct {
			ID, Content string
			Sensitive   bool
			Media       []mastoMedia
		}
		Read struct {
			Sensitive bool
			Media     []mastoMedia
		}
		Edited struct {
			Content string
			Media   []mastoMedia
		}
		Refused int
		Message string
	}
	runClientScript(t, dir, "masto_media.mjs", syncs{}, &got, "RETWIS_URL="+s.URL, "RETWIS_TOKEN="+token, "RETWIS_PHOTO="+file)
	r := got.Ready
	if got.Uploaded.ID == "" || r.ID != got.Uploaded.ID || r.Type != "image" || !strings.HasPrefix(r.URL, s.URL+"/media/") ||
		r.PreviewURL == "" || r.Description != "a gradient" || r.Blurhash == "" || r.Meta.Original.Width != 800 || r.Meta.Focus.X != 0.25 {
		t.Errorf("uploaded %+v, then read %+v", got.Uploaded, r)
	}
	if p := got.Posted; p.Content != "" || !p.Sensitive || len(p.Media) != 1 || p.Media[0] != r {
		t.Errorf("posted %+v; want no content, sensitive, the picture %+v", p, r)
	}
	if rd := got.Read; !rd.Sensitive || len(rd.Media) != 1 || rd.Media[0] != r {
		t.Errorf("read back %+v", rd)
	}
	if e := got.Edited; e.Content != "<p>now with words</p>" || len(e.Media) != 1 || e.Media[0].Description != "a gradient, edited" || e.Media[0].URL != r.URL {
		t.Errorf("edited %+v", e)
	}
	if got.Refused != 422 || !strings.Contains(got.Message, "SVG") && !strings.Contains(strings.ToLower(got.Message), "picture") {
		t.Errorf("an SVG: %d %q; want 422 with the reason", got.Refused, got.Message)
	}
	checkServed(t, s, r.URL)
}
