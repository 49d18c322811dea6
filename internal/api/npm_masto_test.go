package api_test

import (
	"net/url"
	"slices"
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
	Me struct{ ID, Username, Acct string }
	// Follow and Following: alice follows bob, as the answer and the
	// relationships say; Unfollow and FollowingAfter, once she stops.
	Follow, Following, Unfollow, FollowingAfter bool
	Stream                                      struct {
		Mention, Event, ID, Author string
		Stream                     []string
	}
	Plain        []string // alice's posts before the one with a warning
	Posted, Read struct {
		ID, Content, SpoilerText, Author string
		Sensitive                        bool
	}
	Home, Public, Statuses [][]string // ids, page by page
	Notifications          []struct{ Type, Account, Status string }
	Search                 struct{ Accounts, Hashtags []string }
	AfterDelete            int // the status reading a deleted post answers
}

// TestMastoJS drives retwis with masto.js, the library of the Elk and
// Phanpy apps, from npm, as an app uses it (testdata/npm/masto.mjs):
// the instance (v1 and v2), verify_credentials, follow and unfollow
// with the relationships, alice's user stream over a WebSocket carrying
// bob's mention of her, a post of several lines behind a content
// warning read back, the home and public timelines and her statuses
// page by page through the Link header, notifications, search, and the
// deletion of the post. Each value the library read is checked against
// what the server holds.
func TestMastoJS(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t)
	s := newServer(t)
	alice, bob := client(t, s, "alice"), client(t, s, "bob")
	me := must.Value(alice.GetAccountCurrentUser(t.Context()))(t)
	const text, spoiler = "Dear reader,\nline two & more\n\nnew paragraph", "about the reader"
	var got mastoReport
	runClientScript(t, dir, "masto.mjs", syncs{
		"subscribed": func() { s.WaitSubscribed(2) }, // alice's user stream, and the revocations of her access
		"drained":    s.Drain,
	}, &got, "RETWIS_URL="+s.URL, "RETWIS_TOKEN="+alice.Config.AccessToken,
		"RETWIS_OTHER_TOKEN="+bob.Config.AccessToken, "RETWIS_TEXT="+text, "RETWIS_SPOILER="+spoiler)

	checkMastoInstance(t, s, got)
	if got.Me.ID != string(me.ID) || got.Me.Username != "alice" || got.Me.Acct != "alice" {
		t.Errorf("verify_credentials = %+v; want alice, %s", got.Me, me.ID)
	}
	if !got.Follow || !got.Following || got.Unfollow || got.FollowingAfter {
		t.Errorf("follow %v, following %v, unfollow %v, following after %v; want true, true, false, false",
			got.Follow, got.Following, got.Unfollow, got.FollowingAfter)
	}
	mention := checkMastoStream(t, bob, got)
	checkMastoPost(t, got, spoiler)
	checkMastoLists(t, alice, got, mention)
	if got.AfterDelete != 404 {
		t.Errorf("the deleted post reads as %d; want 404", got.AfterDelete)
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
// which bob's statuses hold; it returns the post's id.
func checkMastoStream(t *testing.T, bob *mastodon.Client, got mastoReport) string {
	t.Helper()
	bobs := must.Value(bob.GetAccountStatuses(t.Context(), must.Value(bob.GetAccountCurrentUser(t.Context()))(t).ID, nil))(t)
	st := got.Stream
	if len(bobs) != 1 || string(bobs[0].ID) != st.Mention {
		t.Fatalf("bob's statuses %v; want the one the script posted, %s", bobs, st.Mention)
	}
	if st.Event != "update" || st.ID != st.Mention || st.Author != "bob" || !slices.Equal(st.Stream, []string{"user"}) {
		t.Errorf("streamed %+v; want the update of bob's post %s on [user]", st, st.Mention)
	}
	return st.Mention
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
	mine := []string{got.Posted.ID, got.Plain[1], got.Plain[0]}
	all := append(slices.Clone(mine), mention)
	for _, l := range []struct {
		name  string
		pages [][]string
		want  []string
	}{{"home", got.Home, all}, {"public", got.Public, all}, {"alice's statuses", got.Statuses, mine}} {
		if ids := slices.Concat(l.pages...); !slices.Equal(ids, l.want) || len(l.pages) < 2 || slices.ContainsFunc(l.pages, func(p []string) bool { return len(p) > 2 }) {
			t.Errorf("%s by pages of 2 = %v; want %v", l.name, l.pages, l.want)
		}
	}
	left := must.Value(alice.GetAccountStatuses(t.Context(), mastodon.ID(got.Me.ID), nil))(t)
	if len(left) != 2 || string(left[0].ID) != got.Plain[1] || string(left[1].ID) != got.Plain[0] {
		t.Errorf("alice's statuses after the script: %v; want %v", left, got.Plain)
	}
	if n := got.Notifications; len(n) != 1 || n[0].Type != "mention" || n[0].Account != "bob" || n[0].Status != mention {
		t.Errorf("notifications = %+v; want bob's mention %s", n, mention)
	}
	if !slices.Equal(got.Search.Accounts, []string{"bob"}) || !slices.Equal(got.Search.Hashtags, []string{"clients"}) {
		t.Errorf("search = %+v; want bob and #clients", got.Search)
	}
}
