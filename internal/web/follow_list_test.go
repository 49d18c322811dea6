package web_test

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
)

// TestFollowLists walks the followers of a user by the Older links and
// back by the Newer ones, logged out: every follower once, the most
// recent first, with the date they followed; the following list, the
// links from the profile's counts, and bad cursors refused.
func TestFollowLists(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	star, _, err := s.st.Register(t.Context(), "star", "password1")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 35 {
		fan, _, err := s.st.Register(t.Context(), fmt.Sprint("fan", i), "password1")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.st.Follow(t.Context(), fan.ID, star.ID); err != nil {
			t.Fatal(err)
		}
		want = append(want, fan.Username)
	}
	b := s.browser()
	expect(t, b.get("/u/star"), 200, `<a href="/u/star/followers"><strong>35</strong> followers</a>`, `<a href="/u/star/following"><strong>0</strong> following</a>`)

	var seen []string
	var pages []string
	for path := "/u/star/followers"; path != ""; path = linkOf(b.get(path).body, "Older »") {
		r := b.get(path)
		expect(t, r, 200, "Followers of", "since <time datetime=")
		seen = append(seen, listed(r.body)...)
		pages = append(pages, path)
		if len(pages) > 3 {
			t.Fatal("too many pages")
		}
	}
	slices.Sort(seen)
	slices.Sort(want)
	if !slices.Equal(seen, want) || len(pages) != 2 {
		t.Fatalf("walking %d pages saw %q; want %q on 2", len(pages), seen, want)
	}
	last := b.get(pages[1])
	if first := b.get(linkOf(last.body, "« Newer")); !slices.Equal(listed(first.body), listed(b.get(pages[0]).body)) {
		t.Fatalf("the Newer link of the last page shows %q", listed(first.body))
	}

	expect(t, b.get("/u/fan3/following"), 200, "Followed by", `href="/u/star"`)
	expect(t, b.get("/u/fan3/followers"), 200, "Nobody follows fan3 yet.")
	expect(t, b.get("/u/nobody/followers"), 404)
	for _, bad := range []string{"?before=x", "?after=0", "?before=3&after=4"} {
		expect(t, b.get("/u/star/followers"+bad), 400)
	}
	expect(t, b.get("/u/star/following?before=x"), 400, "?before must be a user number.")
}

// listed returns the usernames a follow list page lists.
func listed(page string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`<li><img class="avatar" [^>]+><a class="username" href="/u/[^"]+">([^<]+)</a>`).FindAllStringSubmatch(page, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestRemoveFollower: the owner of a followers list sees a Remove
// button by each follower, and no one else does; removing one makes it
// stop following the owner.
func TestRemoveFollower(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	star, fan := s.browser(), s.browser()
	star.signUp("star")
	fan.signUp("fan")
	expect(t, fan.post("/u/star/follow", nil), 303)
	expect(t, star.get("/u/star/followers"), 200, `action="/u/fan/remove-follower"`)
	if r := fan.get("/u/star/followers"); regexp.MustCompile(`remove-follower`).MatchString(r.body) {
		t.Fatalf("a follower sees the Remove buttons of another's list:\n%s", r.body)
	}
	r := star.post("/u/fan/remove-follower", nil)
	if r.status != 303 || r.location != "/u/star/followers" {
		t.Fatalf("remove: %d %q; want back to the followers", r.status, r.location)
	}
	expect(t, star.get("/u/star/followers"), 200, "Nobody follows star yet.")
	expect(t, fan.get("/u/fan/following"), 200, "fan follows nobody yet.")
}
