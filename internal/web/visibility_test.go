package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestVisibilityForms: the compose form offers the four visibilities,
// public selected; a post takes the one chosen and shows its label
// (none for public); a visibility not known is refused with 400 saying
// which are, the form keeping the text, and nothing is written; the
// reply form of a followers-only post starts at followers only; a
// direct post is on the Direct page of its author and of those it
// mentions, and nobody else's.
func TestVisibilityForms(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob, carol := s.browser(), s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	carol.signUp("carol")
	expect(t, alice.get("/"), 200, `<select id="visibility" name="visibility"><option value="public" selected>public</option>`+
		`<option value="unlisted">unlisted</option><option value="private">followers only</option><option value="direct">direct</option></select>`)
	before := s.snapshot()
	expect(t, alice.post("/post", url.Values{"status": {"kept text"}, "visibility": {"secret"}}), 400,
		"The visibility must be public, unlisted, private (followers only) or direct", "kept text</textarea>")
	s.assertUnchanged(before)
	redirects(t, carol.post("/u/alice/follow", nil), "/u/alice")
	for _, vis := range []string{"public", "unlisted", "private", "direct"} {
		redirects(t, alice.post("/post", url.Values{"status": {"words-" + vis + " @bob"}, "visibility": {vis}}), "/")
	}
	s.drain()
	private := s.exec("LINDEX", "posts:{1}", "1")
	profile := alice.get("/u/alice")
	expect(t, profile, 200, `<span class="visibility">unlisted</span>`, `<span class="visibility">followers only</span>`, `<span class="visibility">direct</span>`)
	if n := strings.Count(profile.body, `class="visibility"`); n != 3 {
		t.Errorf("alice's profile has %d visibility labels; want 3 (none on the public post)", n)
	}
	expect(t, carol.get("/p/"+private), 200, `<option value="private" selected>followers only</option>`)
	for who, b := range map[string]*browser{"alice": alice, "bob": bob} {
		page := b.get("/direct")
		expect(t, page, 200, "words-direct")
		if strings.Contains(page.body, "words-private") {
			t.Errorf("%s's Direct page shows a post that is not direct", who)
		}
	}
	if page := carol.get("/direct"); strings.Contains(page.body, "words-direct") {
		t.Error("carol, not mentioned, finds the direct post on her Direct page")
	}
	if page := carol.get("/"); !strings.Contains(page.body, "words-private") || strings.Contains(page.body, "words-direct") {
		t.Errorf("carol's home, a follower's: want the followers-only post and not the direct one:\n%s", page.body)
	}
}

// TestVisibilityRoundTrips: pages of followers-only posts cost no more
// round trips warm than others (none), and cold at most one more, for
// the home page only: whether the reader follows their authors, read
// for all of them at once (then, as on every home page read cold, the
// authors' display names); a profile knows it from the page's own reads.
// Each page is read by a server of its own, so that cold means cold.
func TestVisibilityRoundTrips(t *testing.T) {
	w := newSite(t)
	reader := w.browser()
	reader.signUp("reader")
	for i := range 6 {
		author := w.browser()
		author.signUp(fmt.Sprint("author", i))
		for range 4 { // the reader's home holds more than a page
			author.post("/post", url.Values{"status": {fmt.Sprint("secret ", i)}, "visibility": {"private"}})
		}
		if i < 3 {
			redirects(t, reader.post(fmt.Sprintf("/u/author%d/follow", i), nil), fmt.Sprintf("/u/author%d", i))
		}
	}
	w.drain()
	expect(t, reader.get("/"), http.StatusOK, "secret 1") // marks the reader seen, keeps who to follow
	for _, c := range []struct {
		path       string
		cold       int64
		shows, not string
	}{{"/", 4, "secret 1", "secret 4"}, {"/u/author1", 3, "secret 1", "secret 4"}, {"/u/author4", 3, "author4", "secret 4"}} {
		s := newSiteAt(t, w.redis.URL, httptest.NewServer)
		b := s.browser()
		b.setCookie(reader.cookie())
		expect(t, b.get("/u/nobody"), http.StatusNotFound)
		for round, want := range []int64{c.cold, 0} {
			before := s.calls.Calls.Load()
			page := b.get(c.path)
			expect(t, page, http.StatusOK, c.shows)
			if strings.Contains(page.body, c.not) {
				t.Errorf("%s shows %q, a followers-only post of someone the reader does not follow", c.path, c.not)
			}
			got := s.calls.Calls.Load() - before
			t.Logf("%s, read %d: %d round trips", c.path, round+1, got)
			if got > want {
				t.Errorf("%s, read %d: %d round trips; want at most %d", c.path, round+1, got, want)
			}
		}
	}
}

// BenchmarkVisibilityPages measures the home page and a profile of
// followers-only posts against the same pages of public posts, in the
// same run (the static file is the baseline): the follow check of
// private posts rides in the client-side cache, warm.
//
//	go test ./internal/web -run '^$' -bench VisibilityPages -benchtime 1s -count 9
func BenchmarkVisibilityPages(b *testing.B) {
	s := newSite(b)
	cookies := map[string]*http.Cookie{}
	for _, vis := range []string{"public", "private"} {
		reader := s.browser()
		reader.signUp(vis + "reader")
		for a := range 5 {
			author := s.browser()
			author.signUp(fmt.Sprintf("%s%d", vis, a))
			redirects(b, reader.post(fmt.Sprintf("/u/%s%d/follow", vis, a), nil), fmt.Sprintf("/u/%s%d", vis, a))
			for i := range 10 {
				author.post("/post", url.Values{"status": {fmt.Sprintf("post %d by author %d, of a realistic length for a status update", i, a)},
					"visibility": {vis}})
			}
		}
		cookies[vis] = authCookie(reader.cookie())
	}
	s.drain()
	for _, c := range [][2]string{{"public", "/static/style.css"}, {"public", "/"}, {"private", "/"}, {"public", "/u/public1"}, {"private", "/u/private1"}} {
		b.Run(c[0]+"/"+strings.ReplaceAll(c[1], "/", "_"), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("GET", s.srv.URL+c[1], nil)
					req.AddCookie(cookies[c[0]])
					res, err := s.srv.Client().Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Fatalf("%s: %v %v", c[1], res, err)
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			})
		})
	}
}
