package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// surfaces are the places of the pages and the API that list or show
// accounts, and the trends: for each, whether the one under test shows.
type surfaces struct {
	t       *testing.T
	s       *server
	who     retwis.User // the account looked for
	display string      // a word of its display name alone (the searches look for it)
	of      retwis.User // an account the one looked for follows, and is followed by
	tag     string      // a tag only it used
	token   string      // the API token of the reader
	web     *browser    // the reader's browser, logged in
	visitor *browser    // a browser logged out
}

// showing returns the surfaces that show the account (its username, or
// its display name, which holds it too) or its tag.
func (v surfaces) showing() []string {
	v.t.Helper()
	name, uid, of := strings.ToLower(v.who.Username), id(v.who.ID), id(v.of.ID)
	var where []string
	has := func(place string, status int, body string) {
		if status == http.StatusOK && (strings.Contains(strings.ToLower(body), name) || strings.Contains(body, v.tag)) {
			where = append(where, place)
		}
	}
	for _, page := range []string{"/timeline", "/tags", "/search?q=" + v.display, "/complete/people?q=" + name[:4], "/explore?followers=0-",
		"/u/" + v.of.Username + "/followers", "/u/" + v.of.Username + "/following", "/u/" + name} {
		resp, body := v.web.send("GET", v.s.URL+page, nil)
		has("page "+page, resp.StatusCode, body)
	}
	resp, body := v.visitor.send("GET", v.s.URL+"/", nil)
	has("welcome page", resp.StatusCode, body)
	for _, path := range []string{"/api/v1/accounts/" + uid, "/api/v1/accounts/lookup?acct=" + name, "/api/v2/search?q=" + v.display,
		"/api/v1/accounts/search?q=" + v.display, "/api/v1/accounts/" + of + "/followers", "/api/v1/accounts/" + of + "/following",
		"/api/v1/trends/tags"} {
		r := v.s.Call("GET", path, v.token, nil)
		has("api "+path, r.Status, string(r.Body))
	}
	return where
}

// eventually returns the surfaces showing the account once want says
// they are as they should be, or after a few seconds (the trends a
// server read are kept a second).
func (v surfaces) eventually(want func([]string) bool) []string {
	v.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := v.showing()
		if want(got) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSuspendedListedNowhere: a suspended account (its name, its display
// name, its tags in the trends) shows on no page or API endpoint that
// lists or shows accounts, for everybody but moderators, who still find
// its profile; lifting the suspension brings it all back.
func TestSuspendedListedNowhere(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	mallory, malloryToken := s.User("mallory")
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	mod, modToken := s.User("moderator")
	must.OK(t, s.Store.SetModerator(ctx, retwis.OperatorActor("test"), mod.ID, true))
	must.OK(t, s.Store.SetAbout(ctx, mallory.ID, "Mallory Quux", ""))
	for _, pair := range [][2]string{{malloryToken, id(alice.ID)}, {aliceToken, id(mallory.ID)}} {
		if r := s.Call("POST", "/api/v1/accounts/"+pair[1]+"/follow", pair[0], nil); r.Status != http.StatusOK {
			t.Fatalf("follow: %d %s", r.Status, r.Body)
		}
	}
	s.Post(malloryToken, "buy now #mallorydeals")
	s.Drain()
	must.OK(t, s.Store.RefreshDirectory(ctx, mallory.ID, alice.ID))
	v := surfaces{t: t, s: s, who: mallory, display: "quux", of: alice, tag: "mallorydeals", token: bobToken,
		web: readerOn(t, s, "bob", bobToken).web, visitor: newBrowser(t)}
	all := v.showing()
	if len(all) < 16 {
		t.Fatalf("before the suspension, the account shows only on %v", all)
	}

	must.OK(t, s.Store.Suspend(ctx, retwis.OperatorActor("test"), mallory.ID, "spam"))
	if got := v.eventually(func(got []string) bool { return len(got) == 0 }); len(got) > 0 {
		t.Errorf("the suspended account shows on %v", got)
	}
	modView := v
	modView.token, modView.web = modToken, readerOn(t, s, "moderator", modToken).web
	if got := modView.showing(); !slices.Contains(got, "page /u/mallory") || !slices.Contains(got, "api /api/v1/accounts/"+id(mallory.ID)) {
		t.Errorf("a moderator finds the suspended account only on %v; want its profile and API account", got)
	}

	must.OK(t, s.Store.Unsuspend(ctx, retwis.OperatorActor("test"), mallory.ID, ""))
	if got := v.eventually(func(got []string) bool { return len(got) == len(all) }); !slices.Equal(got, all) {
		t.Errorf("once the suspension is lifted, the account shows on %v; want %v", got, all)
	}
}
