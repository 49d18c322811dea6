package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestDirectConversations: a thread of direct posts is one conversation
// on the Direct page of each it is between, with its newest post, whom it
// is with by display name, and an unread badge for whoever did not write
// that post, gone once the page was shown; a conversation of a new
// direct post is listed above it.
func TestDirectConversations(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, bob.post("/settings", url.Values{"name": {"Bob Builder"}, "bio": {""}}), "/u/bob")
	redirects(t, alice.post("/post", url.Values{"status": {"first-words @bob"}, "visibility": {"direct"}}), "/")
	s.drain()
	redirects(t, bob.post("/post", url.Values{"status": {"second-words"}, "in_reply_to": {"1"}, "visibility": {"direct"}}), "/p/2")
	s.drain()
	page := alice.get("/direct")
	expect(t, page, 200, `<p>With <img class="avatar" src="/avatars/`,
		`loading="lazy"><a href="/u/bob"><bdi class="name">Bob Builder</bdi> <span class="username">@bob</span></a> <span class="badge">unread</span></p>`,
		`<a class="author" href="/u/bob"><bdi class="name">Bob Builder</bdi>`, "second-words", `action="/direct/1/remove"`)
	if strings.Contains(page.body, "first-words") || strings.Count(page.body, `class="note`) != 1 {
		t.Errorf("alice's Direct page: want one conversation, its newest post alone:\n%s", page.body)
	}
	if page := alice.get("/direct"); strings.Contains(page.body, `<span class="badge">unread</span>`) {
		t.Error("alice's Direct page shown a second time still says unread")
	}
	if page := bob.get("/direct"); strings.Contains(page.body, `<span class="badge">unread</span>`) {
		t.Error("bob's Direct page says unread; the newest post is his own")
	}
	redirects(t, alice.post("/post", url.Values{"status": {"other-words @bob"}, "visibility": {"direct"}}), "/")
	s.drain()
	page = bob.get("/direct")
	if i, j := strings.Index(page.body, "other-words"), strings.Index(page.body, "second-words"); i < 0 || j < 0 || i > j {
		t.Errorf("bob's Direct page: want the new conversation above the thread:\n%s", page.body)
	}
	// Removing the thread takes it off bob's list only.
	redirects(t, bob.post("/direct/1/remove", nil), "/direct")
	if page := bob.get("/direct"); strings.Contains(page.body, "second-words") || !strings.Contains(page.body, "other-words") {
		t.Errorf("bob's Direct page after removing the thread: want the other conversation alone:\n%s", page.body)
	}
	expect(t, alice.get("/direct"), 200, "second-words")
	expect(t, bob.post("/direct/999999/remove", nil), 404)
}
