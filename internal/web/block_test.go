package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBlockAndMute: the profile's buttons block, unblock, mute and
// unmute, each back to the profile (or to the settings list it was
// undone from); the settings page lists both; a block hides each one's
// posts from the other on every page and ends follows; refused
// requests write nothing.
func TestBlockAndMute(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, bob.post("/u/alice/follow", nil), "/u/alice")
	bob.post("/post", url.Values{"status": {"bob says hi to @alice #blocktest"}})
	alice.post("/post", url.Values{"status": {"alice writes #blocktest"}})
	s.drain()
	expect(t, alice.get("/u/bob"), http.StatusOK, `action="/u/bob/mute"`, `action="/u/bob/block"`)

	redirects(t, alice.post("/u/bob/mute", nil), "/u/bob")
	expect(t, alice.get("/u/bob"), http.StatusOK, `action="/u/bob/unmute"`, "bob says hi")
	if body := alice.get("/timeline").body; strings.Contains(body, "bob says hi") || !strings.Contains(body, "alice writes") {
		t.Error("the global timeline of alice, who muted bob, shows his post or misses hers")
	}
	redirects(t, alice.post("/u/bob/block", nil), "/u/bob")
	expect(t, alice.get("/u/bob"), http.StatusOK, "You blocked @bob", `action="/u/bob/unblock"`)
	expect(t, alice.get("/settings/blocks"), http.StatusOK, "Blocked (1)", "Muted (1)", `action="/u/bob/unblock"`, `action="/u/bob/unmute"`)
	for who, b := range map[string]*browser{"alice": alice, "bob": bob} {
		other := map[string]string{"alice": "bob says hi", "bob": "alice writes"}[who]
		for _, page := range []string{"/timeline", "/tag/blocktest", "/u/alice", "/u/bob", "/", "/mentions", "/notifications"} {
			if strings.Contains(b.get(page).body, other) {
				t.Errorf("%s sees %q on %s", who, other, page)
			}
		}
	}
	if body := s.browser().get("/timeline").body; !strings.Contains(body, "bob says hi") || !strings.Contains(body, "alice writes") {
		t.Error("a visitor logged out misses a post of the two")
	}
	expect(t, bob.get("/u/bob"), http.StatusOK, "<strong>0</strong> following") // bob's follow of alice ended
	expect(t, bob.post("/u/alice/follow", nil), http.StatusForbidden)

	before := s.snapshot()
	expect(t, alice.post("/u/alice/block", nil), http.StatusBadRequest, "cannot block yourself")
	expect(t, alice.post("/u/nobody/block", nil), http.StatusNotFound)
	redirects(t, s.browser().post("/u/bob/block", nil), "/") // logged out
	s.assertUnchanged(before)

	redirects(t, alice.post("/u/bob/unblock", url.Values{"next": {"/settings/blocks"}}), "/settings/blocks")
	redirects(t, alice.post("/u/bob/unmute", url.Values{"next": {"https://evil.example/"}}), "/u/bob")
	expect(t, alice.get("/settings/blocks"), http.StatusOK, "Blocked (0)", "Muted (0)")
	expect(t, alice.get("/timeline"), http.StatusOK, "bob says hi")
}
