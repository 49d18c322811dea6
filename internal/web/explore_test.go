package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestExplore lists accounts by follower count and posts this week,
// most followed first, keeps the form's values, and refuses malformed
// ranges and dates with a 400 that says why.
func TestExplore(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	star := s.browser()
	star.signUp("star")
	star.post("/post", url.Values{"status": {"one"}})
	star.post("/post", url.Values{"status": {"two"}})
	quiet := s.browser()
	quiet.signUp("quiet")
	redirects(t, quiet.post("/u/star/follow", nil), "/u/star")
	s.drain()

	page := quiet.get("/explore?followers=1-10&posts=2-")
	expect(t, page, 200, "1 account, the most followed first", "@star", "1 follower · 2 posts this week", `value="1-10"`, `value="2-"`)
	if strings.Contains(page.body, "@quiet") {
		t.Fatal("an account outside the ranges is listed")
	}
	all := quiet.get("/explore?followers=0-")
	expect(t, all, 200, "2 accounts", "@star", "@quiet")
	if strings.Index(all.body, "@star") > strings.Index(all.body, "@quiet</span>") {
		t.Fatal("the more followed account is not listed first")
	}
	today := time.Now().UTC().Format(time.DateOnly)
	expect(t, quiet.get("/explore?joined_from="+today+"&posts=0"), 200, "@quiet", "0 posts this week")
	expect(t, quiet.get("/explore?joined_to=2001-01-01"), 200, "0 accounts", "No account matches.")
	expect(t, quiet.get("/explore"), 200, "rising accounts")

	for _, c := range []struct{ query, want string }{
		{"followers=ten", "Followers: “ten” is not a range"},
		{"posts=50-5", "Posts this week: In “50-5” the first number is larger"},
		{"joined_from=yesterday", "Joined from: “yesterday” is not a date"},
		{"joined_from=2026-02-01&joined_to=2026-01-01", "The sign-up dates are the wrong way round."},
		{"followers=" + strings.Repeat("9", 50), "is not a range"},
	} {
		r := quiet.get("/explore?" + strings.ReplaceAll(c.query, "“", ""))
		expect(t, r, 400, strings.NewReplacer("“", "&#34;", "”", "&#34;").Replace(c.want))
	}
}
