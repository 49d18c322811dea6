package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestGraphPanels: a profile tells a logged-in visitor whether the user
// follows them, who of those they follow follow the user, how many
// users they both follow and whether the user mentioned them; the home
// page suggests friends of friends, with a Follow and a Dismiss button;
// one dismissed is not suggested again.
func TestGraphPanels(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := map[string]*browser{}
	for _, name := range []string{"alice", "bob", "carol", "dave", "erin"} {
		b[name] = s.browser()
		b[name].signUp(name)
	}
	follow := func(who, whom string) { redirects(t, b[who].post("/u/"+whom+"/follow", nil), "/u/"+whom) }
	follow("alice", "bob")
	follow("alice", "carol")
	follow("alice", "erin")
	follow("bob", "dave")
	follow("carol", "dave")
	follow("dave", "alice")
	follow("dave", "erin")
	b["dave"].post("/post", url.Values{"status": {"hi @alice"}})
	s.drain()

	expect(t, b["alice"].get("/u/dave"), 200, `<span class="badge">Follows you</span>`,
		`Followed by <a href="/u/bob">@bob</a>, <a href="/u/carol">@carol</a> you follow`, "You both follow 1", "Mentioned you")
	page := b["alice"].get("/u/bob").body
	if strings.Contains(page, `class="relationship"`) {
		t.Fatalf("bob and alice share nothing, but the profile says:\n%s", page)
	}
	if own := b["alice"].get("/u/alice").body; strings.Contains(own, `class="relationship"`) {
		t.Fatal("a user's own profile shows a relationship")
	}
	if anon := s.browser().get("/u/dave").body; strings.Contains(anon, `class="relationship"`) {
		t.Fatal("a visitor who is not logged in sees a relationship")
	}

	home := b["alice"].get("/")
	expect(t, home, 200, "<h2>Who to follow</h2>", `<a class="username" href="/u/dave">@dave</a> <span class="since">followed by 2 you follow</span>`,
		`action="/u/dave/follow"`, `action="/u/dave/dismiss"`)
	follow("alice", "dave")
	if strings.Contains(b["alice"].get("/").body, `href="/u/dave">@dave</a> <span class="since">followed by`) {
		t.Fatal("a user already followed is still suggested")
	}
	expect(t, b["bob"].get("/"), 200, `action="/u/erin/dismiss"`) // bob follows dave, who follows erin
	redirects(t, b["bob"].post("/u/erin/dismiss", nil), "/")
	if strings.Contains(b["bob"].get("/").body, `href="/u/erin">@erin</a>`) {
		t.Fatal("a dismissed suggestion is still suggested")
	}
}
