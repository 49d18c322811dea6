package api_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// redirectURI is where the test's app says its codes go: nothing listens
// there; the test reads the code from the redirect.
const redirectURI = "http://app.example/callback"

// browser is a person at a browser: a cookie jar, following no
// redirects, so that the test sees where each goes.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A transport of its own: http.DefaultTransport's idle connections
	// are closed by every other test's server as it stops.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &browser{t: t, c: &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// send makes a request (a form POST if form is not nil) and returns the
// answer and its body.
func (b *browser) send(method, u string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return resp, string(page)
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// approve signs up on the HTML pages, opens the app's authorization
// page, logs in there if asked, approves, and returns the code the app
// is sent.
func (b *browser) approve(base, authURI, user string) string {
	b.t.Helper()
	resp, page := b.send(http.MethodGet, authURI, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Log in") {
		b.t.Fatalf("authorization page for a visitor: %d %s", resp.StatusCode, page)
	}
	next := hiddenInput.FindStringSubmatch(page)
	if next == nil || next[1] != "next" {
		b.t.Fatalf("the login form does not come back to the authorization page: %s", page)
	}
	b.send(http.MethodPost, base+"/register", url.Values{"username": {user}, "password": {"password-" + user}, "password2": {"password-" + user}})
	resp, _ = b.send(http.MethodPost, base+"/login", url.Values{"username": {user}, "password": {"password-" + user}, "next": {unescape(next[2])}})
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, must.Value(url.Parse(authURI))(b.t).Path+"?") {
		b.t.Fatalf("logging in from the authorization page leads to %q", loc)
	}
	resp, page = b.send(http.MethodGet, base+resp.Header.Get("Location"), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Authorize") {
		b.t.Fatalf("authorization page: %d %s", resp.StatusCode, page)
	}
	form := url.Values{"decision": {"approve"}}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(m[1], unescape(m[2]))
	}
	resp, _ = b.send(http.MethodPost, base+"/oauth/authorize", form)
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(resp.Header.Get("Location"), redirectOf(b.t, authURI)+"?") {
		b.t.Fatalf("approving: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query().Get("code")
}

// redirectOf is the redirect URI an authorization request names, or
// redirectURI.
func redirectOf(t *testing.T, authURI string) string {
	if r := must.Value(url.Parse(authURI))(t).Query().Get("redirect_uri"); r != "" {
		return r
	}
	return redirectURI
}

// unescape undoes html/template's escaping of an attribute.
func unescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}

// client registers an app with go-mastodon, has user approve it in a
// browser, and returns the app's client with the user's token.
func client(t *testing.T, s *server, user string) *mastodon.Client {
	t.Helper()
	ctx := t.Context()
	app, err := mastodon.RegisterApp(ctx, &mastodon.AppConfig{Server: s.URL, ClientName: "go-mastodon test",
		Scopes: "read write follow", RedirectURIs: redirectURI, Website: "https://github.com/mattn/go-mastodon"})
	if err != nil {
		t.Fatalf("register app: %v", err)
	}
	code := newBrowser(t).approve(s.URL, app.AuthURI, user)
	c := s.Mastodon(&mastodon.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret})
	if err := c.AuthenticateToken(ctx, code, redirectURI); err != nil {
		t.Fatalf("exchange the code: %v", err)
	}
	if err := c.AuthenticateToken(ctx, code, redirectURI); err == nil {
		t.Fatal("a code was exchanged twice")
	}
	return c
}

// TestMastodonClient drives retwis with a real Mastodon client library,
// as an app would: it registers an app, completes the OAuth flow on the
// authorization page, posts, replies, follows, reads the home timeline
// page by page, searches and reads notifications.
// TestInstanceLimits: the instance entities say the instance's limit
// on posts (--max-post-chars) and that a link counts as 23, as
// go-mastodon reads them; a post of that length is taken (a link
// counting as 23) and one longer refused, saying the limit.
func TestInstanceLimits(t *testing.T) {
	t.Parallel()
	s := newServerStore(t, redistest.Start(t).URL, api.Options{}, store.Options{MaxPostChars: 30}, nil)
	alice := client(t, s, "alice")
	inst, err := alice.GetInstance(t.Context())
	if err != nil || inst.Configuration == nil || inst.Configuration.Statuses == nil {
		t.Fatalf("instance = %+v, %v", inst, err)
	}
	if st := *inst.Configuration.Statuses; st["max_characters"] != 30.0 || st["characters_reserved_per_url"] != 23.0 {
		t.Errorf("configuration.statuses = %v; want max_characters 30, characters_reserved_per_url 23", st)
	}
	var v1 struct {
		MaxTootChars int `json:"max_toot_chars"`
	}
	if s.Call(http.MethodGet, "/api/v1/instance", "", nil).Decode(t, &v1); v1.MaxTootChars != 30 {
		t.Errorf("max_toot_chars = %d; want 30", v1.MaxTootChars)
	}
	var v2 struct {
		Configuration struct{ Statuses map[string]int }
	}
	if s.Call(http.MethodGet, "/api/v2/instance", "", nil).Decode(t, &v2); v2.Configuration.Statuses["max_characters"] != 30 {
		t.Errorf("v2 configuration.statuses = %v; want max_characters 30", v2.Configuration.Statuses)
	}
	ok := "see https://example.com/" + strings.Repeat("x", 200) + " ok"
	if _, err := alice.PostStatus(t.Context(), &mastodon.Toot{Status: ok}); err != nil {
		t.Errorf("a post of 30 characters (a link counting 23): %v", err)
	}
	if _, err := alice.PostStatus(t.Context(), &mastodon.Toot{Status: strings.Repeat("x", 31)}); err == nil ||
		!strings.Contains(err.Error(), "at most 30 characters") {
		t.Errorf("a post of 31 characters: %v; want refused saying the limit", err)
	}
}

func TestMastodonClient(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	alice, bob := client(t, s, "alice"), client(t, s, "bob")
	me, err := alice.GetAccountCurrentUser(ctx)
	if err != nil || me.Username != "alice" || me.Acct != "alice" {
		t.Fatalf("verify_credentials = %+v, %v", me, err)
	}
	bobAcct, err := alice.AccountLookup(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := alice.AccountFollow(ctx, bobAcct.ID)
	if err != nil || !rel.Following || rel.FollowedBy {
		t.Fatalf("follow = %+v, %v", rel, err)
	}
	var ids []mastodon.ID
	for _, text := range []string{"first #redis", "second", "third", "fourth", "fifth"} {
		st, err := bob.PostStatus(ctx, &mastodon.Toot{Status: text})
		if err != nil {
			t.Fatalf("post %q: %v", text, err)
		}
		ids = append(ids, st.ID)
	}
	reply, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "@bob nice", InReplyToID: ids[0]})
	if err != nil || reply.InReplyToID != string(ids[0]) || reply.InReplyToAccountID != string(bobAcct.ID) {
		t.Fatalf("reply = %+v, %v", reply, err)
	}
	s.Drain()

	// The home timeline, two at a time, by the Link header's "next".
	want := append([]mastodon.ID{reply.ID}, reversed(ids)...)
	got := pagesOfTwo(t, 10, func(pg *mastodon.Pagination) ([]*mastodon.Status, error) { return alice.GetTimelineHome(ctx, pg) })
	if !slices.Equal(got, want) {
		t.Errorf("home timeline by pages = %v; want %v", got, want)
	}

	thread, err := bob.GetStatusContext(ctx, ids[0])
	if err != nil || len(thread.Descendants) != 1 || thread.Descendants[0].ID != reply.ID {
		t.Errorf("context of the first post = %+v, %v", thread, err)
	}
	found, err := alice.Search(ctx, "bo", false)
	if err != nil || len(found.Accounts) != 1 || found.Accounts[0].Username != "bob" {
		t.Errorf("search bo = %+v, %v", found, err)
	}
	accounts, err := alice.AccountsSearch(ctx, "@BO", 5)
	if err != nil || len(accounts) != 1 || accounts[0].ID != bobAcct.ID || accounts[0].StatusesCount != 5 || accounts[0].FollowersCount != 1 {
		t.Errorf("accounts search @BO = %+v, %v", accounts, err)
	}
	found, err = alice.Search(ctx, "#red", false)
	if err != nil || len(found.Hashtags) != 1 || found.Hashtags[0].Name != "redis" {
		t.Errorf("search #red = %+v, %v", found, err)
	}
	notes, err := bob.GetNotifications(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range notes {
		kinds = append(kinds, n.Type+":"+n.Account.Username)
	}
	if !slices.Equal(kinds, []string{"mention:alice", "follow:alice"}) || notes[0].Status == nil || notes[0].Status.ID != reply.ID {
		t.Errorf("bob's notifications = %v (first's status %+v); want the reply, then the follow", kinds, notes[0].Status)
	}
	if err := bob.DeleteStatus(ctx, ids[4]); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.GetStatus(ctx, ids[4]); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a deleted status reads as %v; want 404", err)
	}
	if err := alice.DeleteStatus(ctx, ids[3]); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("deleting another's status: %v; want 404, as Mastodon answers", err)
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// pagesOfTwo reads at most max pages of two statuses through read, each
// after the last by the Link header's "next" (go-mastodon sets the
// pagination's MaxID from it), and returns their ids in order.
func pagesOfTwo(t *testing.T, max int, read func(*mastodon.Pagination) ([]*mastodon.Status, error)) []mastodon.ID {
	t.Helper()
	var got []mastodon.ID
	pg := &mastodon.Pagination{Limit: 2}
	for range max {
		page, err := read(pg)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range page {
			got = append(got, st.ID)
		}
		if pg.MaxID == "" {
			break
		}
		pg = &mastodon.Pagination{Limit: 2, MaxID: pg.MaxID}
	}
	return got
}
