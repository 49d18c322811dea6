package api_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
)

// appRedirect is the redirect URI of a mobile app: a custom scheme.
const appRedirect = "com.example.app://callback"

// megalodonReport is what testdata/npm/megalodon.mjs reports it read.
type megalodonReport struct {
	SNS   string // what the library's detector made of NodeInfo
	OAuth struct{ App, Scope, TokenType, Redirect string }
	Me    struct{ Username, Acct string }
	// Following: the answer to dave's follow of alice.
	Following bool
	// Stream: what dave's user stream carried of alice's post Mention.
	Stream struct {
		Mention      string
		Update       struct{ ID, Author string }
		Notification struct{ ID, Author, Type string }
	}
	Own           string   // dave's post
	Home          []string // his home timeline
	Notifications []note
	Markers       struct{ Home, Notifications string }
}

// TestMegalodon drives retwis with megalodon, the library of the
// Whalebird and Fedistar apps, from npm, as an app uses it
// (testdata/npm/megalodon.mjs): the server detected as Mastodon through
// NodeInfo; an app registered with a custom-scheme redirect URI,
// approved on the authorization page and its code exchanged for a
// token; verify_credentials of the account and of the app; a follow;
// the user stream over a WebSocket carrying a post mentioning the user
// and its notification; a post, the home timeline, the notifications,
// and the markers saved and read back.
func TestMegalodon(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t)
	s := newServer(t)
	alice := client(t, s, "alice")
	var got megalodonReport
	runClientScript(t, dir, "megalodon.mjs", syncs{
		"subscribed": state(func() { s.WaitSubscribed(2) }), // dave's user stream, and the revocations of his access
		"drained":    state(s.Drain),
		"approve": func(data json.RawMessage) any { // as dave, at a browser
			var app struct{ URL, User string }
			must.OK(t, json.Unmarshal(data, &app))
			return newBrowser(t).approve(s.URL, app.URL, app.User)
		},
	}, &got, "RETWIS_URL="+s.URL, "RETWIS_REDIRECT="+appRedirect, "RETWIS_TOKEN="+alice.Config.AccessToken)

	if got.SNS != "mastodon" {
		t.Errorf("megalodon detected %q; want mastodon", got.SNS)
	}
	if want := (struct{ App, Scope, TokenType, Redirect string }{"megalodon test", "read write follow", "Bearer", appRedirect}); got.OAuth != want {
		t.Errorf("the app's token = %+v; want %+v", got.OAuth, want)
	}
	if got.Me.Username != "dave" || got.Me.Acct != "dave" || !got.Following {
		t.Errorf("verify_credentials %+v, following alice %v; want dave, following", got.Me, got.Following)
	}
	st := got.Stream
	if st.Mention == "" || st.Update.ID != st.Mention || st.Update.Author != "alice" ||
		st.Notification.ID != st.Mention || st.Notification.Author != "alice" || st.Notification.Type != "mention" {
		t.Errorf("dave's user stream carried %+v; want the update and the mention of alice's post", st)
	}
	if !slices.Equal(got.Home, []string{got.Own, st.Mention}) {
		t.Errorf("dave's home timeline %v; want his post %s and alice's %s", got.Home, got.Own, st.Mention)
	}
	if len(got.Notifications) != 1 || got.Notifications[0] != (note{"mention", "alice", st.Mention}) {
		t.Errorf("dave's notifications %+v; want alice's mention %s", got.Notifications, st.Mention)
	}
	if got.Markers.Home != got.Own || got.Markers.Notifications == "" {
		t.Errorf("markers read back %+v; want home at %s and the notifications at the mention's", got.Markers, got.Own)
	}
}
