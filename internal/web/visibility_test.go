package web_test

import (
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
