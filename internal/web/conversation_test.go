package web_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store/posts"
)

// TestPostEntities posts a body with every kind of entity and markup:
// the mention of a user links to them (of nobody it stays text), the tag
// to its page, the address to itself marked as the author's and shown
// shortened, and nothing of the body reaches the page unescaped.
func TestPostEntities(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("Alice")
	bob.signUp("bob")
	body := `Hi @alice, @nobody! <script>alert("x")</script> #Café https://example.com/a/very/long/path?q=1&r="2" #<b>`
	redirects(t, bob.post("/post", url.Values{"status": {body}}), "/")
	page := bob.get("/u/bob")
	expect(t, page, 200,
		`<a class="mention" href="/u/Alice"><bdi>@alice</bdi></a>, @nobody!`,
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`<a class="tag" href="/tag/Caf%C3%A9"><bdi>#Café</bdi></a>`,
		`<a href="https://example.com/a/very/long/path?q=1&amp;r=" rel="nofollow noopener ugc"><bdi>example.com/a/very/long/path?q=…</bdi></a>&#34;2&#34; #&lt;b&gt;`)
	if strings.Contains(page.body, "<script>") || strings.Contains(page.body, "<b>") {
		t.Fatalf("markup from a post reached the page:\n%s", page.body)
	}
}

// TestTagPage lists a tag's posts under any spelling, with its activity
// chart linking to its days; a day shows that day's posts; a tag nobody
// used, a malformed one and a malformed day are refused.
func TestTagPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("tagger")
	b.post("/post", url.Values{"status": {"first #Café"}})
	b.post("/post", url.Values{"status": {"second #cafe"}})
	b.post("/post", url.Values{"status": {"other #tea"}})
	s.drain()
	today := time.Now().UTC().Format("20060102")
	for _, path := range []string{"/tag/cafe", "/tag/CAF%C3%89", "/tag/caf%C3%A9"} {
		page := s.browser().get(path)
		expect(t, page, 200, "<title>#Café · Retwis</title>", "first <a", "second <a", `<svg class="activity"`,
			`href="/tag/Caf%C3%A9?day=`+today+`"`, "2 posts</title>")
		if strings.Contains(page.body, "other <a") {
			t.Fatalf("%s lists a post without the tag", path)
		}
	}
	expect(t, b.get("/tag/cafe?day="+today), 200, "first <a", "second <a", "all days")
	if page := b.get("/tag/cafe?day=20200101"); strings.Contains(page.body, "first <a") || page.status != 200 {
		t.Fatalf("a day without posts: %d\n%s", page.status, page.body)
	}
	expect(t, b.get("/tag/cafe?day=2020-01-01"), 400, "YYYYMMDD")
	expect(t, b.get("/tag/unused"), 404, "Nobody has used #unused yet")
	for _, bad := range []string{"/tag/a:b", "/tag/%7Bx%7D", "/tag/" + strings.Repeat("x", 600), "/tag/two%20words"} {
		expect(t, b.get(bad), 404, "no such tag")
	}
}

// TestTagPagePaging pages a tag by its Older links to the beginning.
func TestTagPagePaging(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("many")
	for i := range 45 {
		b.post("/post", url.Values{"status": {fmt.Sprintf("#paged post number %d.", i)}})
	}
	s.drain()
	var seen []int
	path := "/tag/paged"
	for path != "" {
		page := b.get(path)
		expect(t, page, 200)
		seen = append(seen, postNumbers(page.body)...)
		path = linkOf(page.body, "Older »")
	}
	if want := countdown(44, 0); !slices.Equal(seen, want) {
		t.Fatalf("paging #paged saw %v;\nwant %v", seen, want)
	}
}

// TestMentionsAndNotifications: a mention and a follow show as unread
// notifications in the navigation of every page; the Mentions page lists
// the post; reading the notifications clears the count, and Clear all
// removes them. Logged out, both pages send home.
func TestMentionsAndNotifications(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	expect(t, alice.get("/notifications"), 200, "Nothing yet")
	bob.post("/u/alice/follow", nil)
	bob.post("/post", url.Values{"status": {"hello @ALICE"}})
	s.drain()
	expect(t, alice.get("/"), 200, `Notifications <span class="unread-count">2</span>`)
	expect(t, alice.get("/mentions"), 200, `hello <a class="mention" href="/u/alice"><bdi>@ALICE</bdi></a>`)
	expect(t, bob.get("/mentions"), 200, "No posts yet")
	expect(t, alice.get("/notifications"), 200, `<article class="note unread">`, "mentioned you", "followed you")
	if page := alice.get("/"); strings.Contains(page.body, "unread-count") {
		t.Fatalf("the unread count stays after reading the notifications:\n%s", page.body)
	}
	if page := alice.get("/notifications"); strings.Contains(page.body, "unread") || !strings.Contains(page.body, "Clear all") {
		t.Fatalf("notifications read twice are still unread, or cannot be cleared:\n%s", page.body)
	}
	redirects(t, alice.post("/notifications/clear", nil), "/notifications")
	expect(t, alice.get("/notifications"), 200, "Nothing yet")
	for _, path := range []string{"/mentions", "/notifications"} {
		redirects(t, s.browser().get(path), "/")
	}
}

// TestReplyFlow replies through the permalink page's form: the reply
// starts with the author's @name, shows what it answers, and is listed
// under it; its author is notified. A reply to a deleted post is
// refused and writes nothing; the replies it had stay, in reply to a
// deleted post.
func TestReplyFlow(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	alice.post("/post", url.Values{"status": {"what do you think?"}})
	form := bob.get("/p/1")
	expect(t, form, 200, `id="reply"`, `name="in_reply_to" value="1"`, "Reply to alice")
	key := regexp.MustCompile(`name="idempotency_key" value="([A-Z0-9]+)"`).FindStringSubmatch(form.body)
	redirects(t, bob.post("/post", url.Values{"status": {"I agree"}, "in_reply_to": {"1"}, "idempotency_key": {key[1]}}), "/p/2")
	expect(t, bob.get("/p/2"), 200, `<div class="ancestors"><article class="post" id="p1">`,
		`in reply to <a href="/p/1">@alice</a>`, `<a class="mention" href="/u/alice"><bdi>@alice</bdi></a> I agree`)
	s.drain()
	_, replies, _ := strings.Cut(bob.get("/p/1").body, `<section class="replies">`)
	if !strings.Contains(replies, `id="p2"`) {
		t.Fatalf("the thread of post 1 does not list its reply:\n%s", replies)
	}
	expect(t, alice.get("/notifications"), 200, `<a href="/p/2">replied to you</a>`)
	expect(t, bob.get("/p/1?after=2"), 200, "No later replies.")
	expect(t, bob.get("/p/1?after=x"), 400, "?after must be a post number")

	redirects(t, alice.post("/p/1/delete", nil), "/u/alice")
	s.drain() // the deletion's job, so that the worker changes nothing below
	before := s.snapshot()
	expect(t, bob.post("/post", url.Values{"status": {"too late"}, "in_reply_to": {"1"}}), 400, "has been deleted", "too late</textarea>")
	expect(t, bob.post("/post", url.Values{"status": {"huh"}, "in_reply_to": {"abc"}}), 400, "in_reply_to must be a post number")
	s.assertUnchanged(before)
	expect(t, bob.get("/p/2"), 200, "In reply to a deleted post", "I agree")
}

// TestTrendingAndTagSearch shows the trending tags on the timeline page,
// with the tag search box: a tag in use goes to its page, a prefix lists
// the tags that begin with it, and the completion endpoint answers JSON.
func TestTrendingAndTagSearch(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("trender")
	for _, body := range []string{"#Redis one", "#redis two", "#rust", "#Café"} {
		b.post("/post", url.Values{"status": {body}})
	}
	s.drain()
	expect(t, b.get("/timeline"), 200, `<h2>Trending</h2>`, `<a class="tag" href="/tag/Redis">#Redis</a>`,
		`action="/tags"`, `data-complete="/complete/tags"`)
	redirects(t, b.get("/tags?q=%23REDIS"), "/tag/Redis")
	redirects(t, b.get("/tags?q=cafe"), "/tag/Caf%C3%A9")
	expect(t, b.get("/tags?q=r"), 200, `href="/tag/Redis"`, `href="/tag/rust"`)
	expect(t, b.get("/tags?q=zz"), 200, "No tag in use begins with “<bdi>zz</bdi>”")
	expect(t, b.get("/tags"), 200, `href="/tag/Redis"`)
	expect(t, b.get("/tags?q="+strings.Repeat("x", 101)), 400, "at most 100 characters")

	for _, c := range []struct {
		q      string
		status int
		want   string
	}{
		{"r", 200, `["Redis","rust"]`},
		{"%23CA", 200, `["Café"]`},
		{"", 200, `[]`},
		{"nothing", 200, `[]`},
		{strings.Repeat("x", 101), 400, `{"error":"Search for at most 100 characters of text."}`},
		{"%FF", 400, `{"error":"Search for at most 100 characters of text."}`},
	} {
		r := b.get("/complete/tags?q=" + c.q)
		if r.status != c.status || strings.TrimSpace(r.body) != c.want || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("complete %q: %d %s %q; want %d %s", c.q, r.status, r.header.Get("Content-Type"), r.body, c.status, c.want)
		}
		var v any
		if err := json.Unmarshal([]byte(r.body), &v); err != nil {
			t.Fatalf("complete %q answered invalid JSON: %v", c.q, err)
		}
	}
}

// TestThreadPaging walks the replies of a post by their "Later replies"
// links: every reply once, oldest first.
func TestThreadPaging(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("op")
	b.post("/post", url.Values{"status": {"the start"}})
	u, err := s.st.UserByName(t.Context(), "op")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 45 {
		p, err := s.st.Publish(t.Context(), posts.Draft{Author: u.ID, Text: fmt.Sprint("more ", i), InReplyTo: 1})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, strconv.FormatInt(p.Post.ID, 10))
	}
	s.drain()
	var seen []string
	for path, pages := "/p/1", 0; path != ""; pages++ {
		page := b.get(path)
		expect(t, page, 200, "the start")
		_, replies, _ := strings.Cut(page.body, `<section class="replies">`)
		for _, m := range regexp.MustCompile(`<article class="post" id="p(\d+)"`).FindAllStringSubmatch(replies, -1) {
			seen = append(seen, m[1])
		}
		if path = linkOf(page.body, "Later replies »"); pages > 3 {
			t.Fatal("too many pages")
		}
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("walking the replies saw %v;\nwant %v", seen, want)
	}
}
