package web_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFollowAndPost is the tutorial's story: bob follows alice, alice
// posts, bob sees it at home; bob unfollows and sees nothing new.
func TestFollowAndPost(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")

	expect(t, bob.get("/u/alice"), 200, `action="/u/alice/follow"`, "0</strong> followers")
	redirects(t, bob.post("/u/alice/follow", nil), "/u/alice")
	expect(t, bob.get("/u/alice"), 200, `action="/u/alice/unfollow"`, "1</strong> follower</a> ·")
	expect(t, bob.get("/"), 200, "1</strong> following")
	expect(t, alice.get("/"), 200, "1</strong> follower</a> ·")
	if own := alice.get("/u/alice").body; strings.Contains(own, `/follow"`) || strings.Contains(own, `/unfollow"`) {
		t.Fatal("a user is offered to follow themselves")
	}

	redirects(t, alice.post("/post", url.Values{"status": {"Hello from alice"}}), "/")
	s.drain()
	expect(t, bob.get("/"), 200, "Hello from alice", `href="/u/alice"`, "posted just now")
	expect(t, alice.get("/"), 200, "Hello from alice")
	expect(t, s.browser().get("/u/alice"), 200, "Hello from alice")
	expect(t, s.browser().get("/timeline"), 200, "Hello from alice", `href="/u/bob"`)

	// The profile shows the author's own posts only, not their home feed.
	redirects(t, bob.post("/post", url.Values{"status": {"bob's own words"}}), "/")
	if p := bob.get("/u/bob").body; strings.Contains(p, "Hello from alice") || !strings.Contains(p, "bob&#39;s own words") {
		t.Fatalf("bob's profile must show exactly his own posts:\n%s", p)
	}

	redirects(t, bob.post("/u/ALICE/unfollow", nil), "/u/alice")
	alice.post("/post", url.Values{"status": {"after the unfollow"}})
	s.drain()
	if strings.Contains(bob.get("/").body, "after the unfollow") {
		t.Fatal("bob still receives alice's posts after unfollowing")
	}
}

func TestFollowErrors(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("me")
	before := s.snapshot()
	expect(t, b.post("/u/me/follow", nil), 400, "cannot follow yourself")
	expect(t, b.post("/u/nobody/follow", nil), 404, "no user called")
	expect(t, b.post("/u/nobody/unfollow", nil), 404)
	s.assertUnchanged(before)
}

func TestPostErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("writer")
	before := s.snapshot()
	for _, tc := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"empty", "status=", 400, "write something"},
		{"blank", "status=+%0D%0A+", 400, "write something"},
		{"missing", "", 400, "write something"},
		{"too long", "status=" + strings.Repeat("%C3%A9", 501), 400, "at most 500 characters long, a link counting as 23 (this one has 501)"},
		{"invalid utf-8", "status=caf%E9", 400, "not valid UTF-8"},
		{"control", "status=a%00b", 400, "control characters"},
		{"oversized", "status=" + strings.Repeat("x", 17000), 413, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, b.postRaw("/post", tc.body, nil), tc.status, tc.msg, `action="/post"`)
			s.assertUnchanged(before)
		})
	}
	// A refused post keeps its text in the form.
	expect(t, b.postRaw("/post", "status="+strings.Repeat("z", 501), nil), 400, strings.Repeat("z", 501)+"</textarea>")
}

// TestLineBreaks: a post keeps its line breaks, shown as <br> within a
// paragraph and blank lines as paragraphs, its text escaped line by
// line; a post of 500 characters (a link counting as 23) is taken; and
// the compose boxes, home and reply, say the limit to the counter.
func TestLineBreaks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("poet")
	b.post("/post", url.Values{"status": {"Roses <red>\r\nviolets & blue\r\n\r\n\r\nnew #verse"}})
	want := `<div class="body" dir="auto"><p>Roses &lt;red&gt;<br>violets &amp; blue</p><p>new <a class="tag" href="/tag/verse"><bdi>#verse</bdi></a></p></div>`
	home := b.get("/")
	box := `rows="3" data-max-chars="500" data-url-chars="23">` // neither maxlength, which refuses posts the server takes, nor required: pictures may say it all
	expect(t, home, 200, want, box, `<script src="/static/counter.js" defer></script>`)
	long := strings.Repeat("é", 476) + " https://example.com/" + strings.Repeat("p", 500)
	expect(t, b.post("/post", url.Values{"status": {long}}), 303)
	s.drain()
	expect(t, b.get("/timeline"), 200, want)
	id := s.exec("LINDEX", "timeline", "1")
	expect(t, b.get("/p/"+id), 200, want, box)
	expect(t, b.get("/static/counter.js"), 200, "data-max-chars")
}

func TestEscaping(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("html")
	b.post("/post", url.Values{"status": {`<script>alert("x")</script> & <b>bold</b>`}})
	// A username the original Retwis would have accepted.
	s.exec("HSET", "user:99", "username", "<script>evil</script>", "auth", "x")
	s.exec("HSET", "users", "<script>evil</script>", "99")
	s.exec("HSET", "post:500", "user_id", "99", "time", "1401267618", "body", "legacy <i>post</i>")
	s.exec("LPUSH", "timeline", "500")
	s.exec("ZADD", "users_by_time", "1", "<script>evil</script>")
	s.remigrate()
	for _, path := range []string{"/", "/u/html", "/timeline"} {
		body := b.get(path).body
		if strings.Contains(body, "<script>") || strings.Contains(body, "<b>bold") || strings.Contains(body, "<i>post") {
			t.Fatalf("%s renders markup from user data unescaped:\n%s", path, body)
		}
	}
	// Its profile link is escaped as a path and leads to it.
	expect(t, b.get("/timeline"), 200, `href="/u/%3Cscript%3Eevil%3C%2Fscript%3E"`)
	expect(t, b.get("/u/%3Cscript%3Eevil%3C%2Fscript%3E"), 200, "<h1>&lt;script&gt;evil&lt;/script&gt;</h1>")
	expect(t, b.get("/timeline"), 200, "&lt;script&gt;evil&lt;/script&gt;", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;")
}

// TestPagination walks the home timeline and a profile by their Older
// links to the end and back by their Newer links: every post once, in
// order.
func TestPagination(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("pager")
	for i := 1; i <= 25; i++ {
		redirects(t, b.post("/post", url.Values{"status": {fmt.Sprintf("post number %d.", i)}}), "/")
	}
	for _, base := range []string{"/", "/u/pager"} {
		t.Run(base, func(t *testing.T) {
			var seen []int
			path := base
			for pages := 0; path != ""; pages++ {
				r := b.get(path)
				expect(t, r, 200)
				seen = append(seen, postNumbers(r.body)...)
				path = linkOf(r.body, "Older »")
				if pages > 5 {
					t.Fatal("too many pages")
				}
			}
			if want := countdown(25, 1); !slices.Equal(seen, want) {
				t.Fatalf("walking Older links saw %v; want %v", seen, want)
			}
			last := b.get(base + "?before=6")
			if !slices.Equal(postNumbers(last.body), countdown(5, 1)) || linkOf(last.body, "Older »") != "" {
				t.Fatalf("the last page is wrong:\n%s", last.body)
			}
			newer := b.get(linkOf(last.body, "« Newer"))
			if !slices.Equal(postNumbers(newer.body), countdown(15, 6)) {
				t.Fatalf("the Newer link from the last page shows %v", postNumbers(newer.body))
			}
		})
	}
	for _, bad := range []string{"?start=abc", "?start=1001", "?before=0", "?before=x", "?after=-3", "?before=5&after=3", "?start=5&before=3"} {
		expect(t, b.get("/"+bad), 400)
		expect(t, b.get("/u/pager"+bad), 400)
		expect(t, b.get("/timeline"+bad), 400)
	}
}

// TestOldStartLinks follows the ?start=N links of the original Retwis:
// each moves for good to the cursor page that holds the same posts as
// walking the Older links, on every paged timeline.
func TestOldStartLinks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("pager")
	for i := 1; i <= 25; i++ {
		redirects(t, b.post("/post", url.Values{"status": {fmt.Sprintf("post number %d.", i)}}), "/")
	}
	for _, base := range []string{"/", "/u/pager", "/timeline"} {
		t.Run(base, func(t *testing.T) {
			size := 10
			if base == "/timeline" {
				size = 50
			}
			var pages [][]int // the pages walked by Older links
			for path := base; path != ""; {
				r := b.get(path)
				pages = append(pages, postNumbers(r.body))
				path = linkOf(r.body, "Older »")
			}
			for _, start := range []int{7, 10, 20} {
				got := postNumbers(b.get(movedTo(t, b.get(fmt.Sprintf("%s?start=%d", base, start)))).body)
				if want := countdown(25-start, max(1, 25-start-size+1)); !slices.Equal(got, want) {
					t.Fatalf("?start=%d shows %v; want %v", start, got, want)
				}
				if start%size == 0 && !slices.Equal(got, pages[start/size]) {
					t.Fatalf("?start=%d shows %v; the Older links show %v", start, got, pages[start/size])
				}
			}
			for _, first := range []string{"0", "-4", "26", "200"} {
				if to := movedTo(t, b.get(base+"?start="+first)); to != base {
					t.Fatalf("?start=%s moved to %q; want the first page", first, to)
				}
			}
			if to := movedTo(t, b.get(base+"?start=25")); len(postNumbers(b.get(to).body)) != 0 {
				t.Fatalf("?start=25 (all the posts) moved to %q, which shows posts", to)
			}
		})
	}
}

// TestDeepStartRefused checks that too deep an old link is refused before
// any timeline is read.
func TestDeepStartRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("pager")
	b.post("/post", url.Values{"status": {"one post"}})
	s.drain()
	s.exec("CONFIG", "RESETSTAT")
	for _, path := range []string{"/", "/u/pager", "/timeline"} {
		expect(t, b.get(path+"?start=1000"), 400, "at most 200 posts deep", "Older links")
		expect(t, b.get(path+"?start=99999999999999999999999"), 400, "Older links")
	}
	stats, err := s.do("INFO", "commandstats").ToString()
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"lrange", "zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore", "evalsha", "fcall"} {
		if strings.Contains(stats, "cmdstat_"+cmd+":") {
			t.Fatalf("a refused ?start read a timeline (%s):\n%s", cmd, stats)
		}
	}
}

// movedTo checks for a 301 that browsers must not keep and returns where
// it leads.
func movedTo(t testing.TB, r response) string {
	t.Helper()
	if r.status != http.StatusMovedPermanently || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("got %d (Cache-Control %q), want an uncached 301; body:\n%s", r.status, r.header.Get("Cache-Control"), r.body)
	}
	return r.location
}

// postNumbers returns the N of every "post number N." on a page, in order.
func postNumbers(body string) []int {
	var out []int
	for _, m := range regexp.MustCompile(`post number (\d+)\.`).FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// countdown returns from, from-1, …, to.
func countdown(from, to int) []int {
	var out []int
	for i := from; i >= to; i-- {
		out = append(out, i)
	}
	return out
}

// linkOf returns the href of the pager link labelled label, or "".
func linkOf(body, label string) string {
	i := strings.Index(body, label)
	if i < 0 {
		return ""
	}
	a := body[strings.LastIndex(body[:i], "<a "):i]
	href := a[strings.Index(a, `href="`)+6:]
	return html.UnescapeString(href[:strings.Index(href, `"`)])
}

func TestTimelinePage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	for i := range 12 {
		b.signUp(fmt.Sprint("user", i))
		s.do("ZADD", "users_by_time", fmt.Sprint(1000+i), fmt.Sprint("user", i)) // distinct times
	}
	for i := range 55 {
		b.post("/post", url.Values{"status": {fmt.Sprintf("global %d.", i)}})
	}
	body := s.browser().get("/timeline").body
	if older := linkOf(body, "Older »"); older == "" || strings.Count(s.browser().get(older).body, `<article class="post" `) != 5 {
		t.Fatalf("the second page of the global timeline does not hold the last 5 posts")
	}
	if n := strings.Count(body, `<article class="post" `); n != 50 {
		t.Fatalf("%d posts on the global timeline; want 50", n)
	}
	if !strings.Contains(body, "global 54.") || strings.Contains(body, "global 4.") {
		t.Fatal("the global timeline does not show the newest 50 posts")
	}
	if !strings.Contains(body, `href="/u/user11"`) || strings.Contains(body, `href="/u/user1"`) {
		t.Fatalf("latest users are not the 10 newest:\n%s", body)
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	expect(t, b.get("/u/nobody"), 404, "no user called")
	expect(t, b.get("/no/such/page"), 404, "nothing here")
	expect(t, b.get("/static/nope.css"), 404)
	expect(t, b.get("/static/style.css"), 200, "--accent")
	for _, path := range []string{"/register", "/login", "/logout", "/post"} {
		redirects(t, b.get(path), "/")
	}
}

func TestPermalinkAndDelete(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	author, other := s.browser(), s.browser()
	author.signUp("author")
	other.signUp("other")
	redirects(t, author.post("/post", url.Values{"status": {"to be deleted"}}), "/")
	expect(t, author.get("/"), 200, `href="/p/1"`)
	expect(t, author.get("/p/1"), 200, "to be deleted", `action="/p/1/delete"`)
	if strings.Contains(other.get("/p/1").body, "/delete") {
		t.Fatal("somebody else is offered to delete the post")
	}
	expect(t, s.browser().get("/p/1"), 200, "to be deleted")
	expect(t, other.post("/p/1/delete", nil), 403, "only delete your own posts")
	redirects(t, s.browser().post("/p/1/delete", nil), "/")
	redirects(t, author.post("/p/1/delete", nil), "/u/author")
	for _, path := range []string{"/p/1", "/p/0", "/p/abc", "/p/99999999999999999999"} {
		expect(t, author.get(path), 404)
	}
	for _, path := range []string{"/", "/u/author", "/timeline"} {
		if strings.Contains(author.get(path).body, "to be deleted") {
			t.Fatalf("%s still shows the deleted post", path)
		}
	}
	expect(t, author.post("/p/1/delete", nil), 404)
}

// TestResentPostFormPublishesOnce sends the compose form twice with its
// idempotency key, as a browser does when its user resends a form whose
// answer was lost: one post appears. A fresh form publishes again.
func TestResentPostFormPublishesOnce(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice := s.browser()
	alice.signUp("alice")
	key := regexp.MustCompile(`name="idempotency_key" value="([A-Z0-9]+)"`).FindStringSubmatch(alice.get("/").body)
	if key == nil {
		t.Fatal("the compose form has no idempotency key")
	}
	form := url.Values{"status": {"said once"}, "idempotency_key": {key[1]}}
	redirects(t, alice.post("/post", form), "/")
	redirects(t, alice.post("/post", form), "/")
	if n := strings.Count(alice.get("/u/alice").body, "said once"); n != 1 {
		t.Fatalf("the resent form published %d posts; want 1", n)
	}
	next := regexp.MustCompile(`name="idempotency_key" value="([A-Z0-9]+)"`).FindStringSubmatch(alice.get("/").body)
	if next == nil || next[1] == key[1] {
		t.Fatal("a new form must carry a new key")
	}
}
