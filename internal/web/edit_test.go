package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestEditPages: the author's post page links to its edit form, which
// is prefilled and counts characters; the edit goes back to the post,
// and every page shows the new text (the fragment rendered anew) with
// "edited … ago" linking to its versions, newest first, which anyone
// may read; the tag pages follow the new text, and the user it still
// mentions is told of the edit; an edit too long is
// refused with the text kept; another user's form and edit are
// refused with 403.
func TestEditPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, alice.post("/post", url.Values{"status": {"first take #before @bob"}}), "/")
	s.drain()
	id := s.exec("LINDEX", "timeline", "0")
	expect(t, alice.get("/p/"+id), 200, `href="/p/`+id+`/edit"`)
	expect(t, alice.get("/"), 200, "first take") // its fragment kept
	expect(t, alice.get("/p/"+id+"/edit"), 200, `data-max-chars="500"`, ">first take #before @bob</textarea>", `action="/p/`+id+`/edit"`)
	redirects(t, alice.post("/p/"+id+"/edit", url.Values{"status": {"second take #after @bob"}, "spoiler": {"a warning"}}), "/p/"+id)
	s.drain()
	for _, path := range []string{"/", "/u/alice", "/timeline", "/p/" + id, "/tag/after"} {
		page := alice.get(path)
		expect(t, page, 200, "second take", "a warning", `<a class="edited" href="/p/`+id+`/history">`, "edited just now")
		if strings.Contains(page.body, "first take") {
			t.Errorf("%s shows the text before the edit:\n%s", path, page.body)
		}
	}
	if page := alice.get("/tag/before"); strings.Contains(page.body, "take") {
		t.Errorf("#before still lists the edited post:\n%s", page.body)
	}
	hist := s.browser().get("/p/" + id + "/history")
	expect(t, hist, 200, "The current version", "An earlier version")
	if i, j := strings.Index(hist.body, "second take"), strings.Index(hist.body, "first take"); i < 0 || j < i {
		t.Errorf("history: want the new text, then the old:\n%s", hist.body)
	}
	expect(t, alice.post("/p/"+id+"/edit", url.Values{"status": {strings.Repeat("x", 501)}}), 400,
		"at most 500 characters", strings.Repeat("x", 501)+"</textarea>")
	expect(t, bob.get("/notifications"), 200, "edited a post you interacted with", "mentioned you")
	expect(t, bob.get("/p/"+id+"/edit"), 403, "You can only edit your own posts.")
	expect(t, bob.post("/p/"+id+"/edit", url.Values{"status": {"bob's now"}}), 403, "You can only edit your own posts.")
	expect(t, alice.get("/p/"+id), 200, "second take")
}
