package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestSearch finds people by a prefix of their username or of a word of
// their display name, ignoring case and accents, the most followed
// first, and tags in use; @ and # narrow the search; /complete/people
// answers JSON; bad queries are refused.
func TestSearch(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("maria")
	redirects(t, b.post("/settings", url.Values{"name": {"María José"}}), "/u/maria")
	fan := s.browser()
	fan.signUp("marco")
	redirects(t, fan.post("/u/maria/follow", nil), "/u/maria")
	b.post("/post", url.Values{"status": {"#Marathon training"}})
	s.drain()

	page := b.get("/search?q=MAR")
	expect(t, page, 200, `<bdi class="name">María José</bdi> <span class="username">@maria</span>`, "1 follower", "@marco", `href="/tag/Marathon"`)
	if strings.Index(page.body, "@maria") > strings.Index(page.body, "@marco") {
		t.Fatal("the more followed user is not listed first")
	}
	expect(t, b.get("/search?q=jose"), 200, "@maria")
	expect(t, b.get("/search?q=maria+jo"), 200, "@maria")
	if body := b.get("/search?q=%40mar").body; strings.Contains(body, "<h2>Tags</h2>") || !strings.Contains(body, "@marco") {
		t.Fatal("an @ search shows tags, or no people")
	}
	if body := b.get("/search?q=%23mar").body; strings.Contains(body, "<h2>People</h2>") || !strings.Contains(body, "#Marathon") {
		t.Fatal("a # search shows people, or no tags")
	}
	expect(t, b.get("/search?q=zz"), 200, "Nobody is found by “<bdi>zz</bdi>”.")
	expect(t, b.get("/search"), 200, "Type a name")
	expect(t, b.get("/search?q="+strings.Repeat("x", 101)), 400, "at most 100 characters")
	expect(t, b.get("/timeline"), 200, `action="/search"`, `data-complete="/complete/people"`)

	r := b.get("/complete/people?q=ma")
	var people []map[string]any
	if err := json.Unmarshal([]byte(r.body), &people); err != nil || r.status != 200 || len(people) != 2 {
		t.Fatalf("complete people: %d %s, %v", r.status, r.body, err)
	}
	if people[0]["username"] != "maria" || people[0]["display_name"] != "María José" || people[0]["followers"] != 1.0 {
		t.Fatalf("complete people first = %v", people[0])
	}
	for _, c := range []struct {
		q    string
		code int
		body string
	}{{"", 200, "[]"}, {"nobody", 200, "[]"}, {"%FF", 400, `{"error":"Search for at most 100 characters of text."}`}} {
		if r := b.get("/complete/people?q=" + c.q); r.status != c.code || strings.TrimSpace(r.body) != c.body {
			t.Fatalf("complete people %q = %d %s; want %d %s", c.q, r.status, r.body, c.code, c.body)
		}
	}
}

// TestSomePeople: the welcome page suggests people who were active
// lately, with their display names, and nobody when no one was.
func TestSomePeople(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	expect(t, s.browser().get("/"), 200, "Create an account")
	if strings.Contains(s.browser().get("/").body, "Some people") {
		t.Fatal("an empty site suggests people")
	}
	b := s.browser()
	b.signUp("ines")
	redirects(t, b.post("/settings", url.Values{"name": {"Inès"}}), "/u/ines")
	expect(t, s.browser().get("/"), 200, "<h2>Some people</h2>", `<bdi class="name">Inès</bdi> <span class="username">@ines</span>`)
}
