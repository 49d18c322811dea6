package web_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFollowAndPost is the tutorial's story: bob follows alice, alice
// posts, bob sees it at home; bob unfollows and sees nothing new.
func TestFollowAndPost(t *testing.T) {
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")

	expect(t, bob.get("/u/alice"), 200, `action="/u/alice/follow"`, "0</strong> followers")
	redirects(t, bob.post("/u/alice/follow", nil), "/u/alice")
	expect(t, bob.get("/u/alice"), 200, `action="/u/alice/unfollow"`, "1</strong> follower ·")
	expect(t, bob.get("/"), 200, "1</strong> following")
	expect(t, alice.get("/"), 200, "1</strong> follower ·")
	if strings.Contains(alice.get("/u/alice").body, "/follow") {
		t.Fatal("a user is offered to follow themselves")
	}

	redirects(t, alice.post("/post", url.Values{"status": {"Hello from alice"}}), "/")
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
	if strings.Contains(bob.get("/").body, "after the unfollow") {
		t.Fatal("bob still receives alice's posts after unfollowing")
	}
}

func TestFollowErrors(t *testing.T) {
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
		{"too long", "status=" + strings.Repeat("%C3%A9", 281), 400, "at most 280"},
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
	expect(t, b.postRaw("/post", "status="+strings.Repeat("z", 281), nil), 400, strings.Repeat("z", 281)+"</textarea>")
}

func TestEscaping(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	b.signUp("html")
	b.post("/post", url.Values{"status": {`<script>alert("x")</script> & <b>bold</b>`}})
	// A username the original Retwis would have accepted.
	s.do("HSET", "user:99", "username", "<script>evil</script>", "auth", "x")
	s.do("HSET", "users", "<script>evil</script>", "99")
	s.do("HSET", "post:500", "user_id", "99", "time", "1401267618", "body", "legacy <i>post</i>")
	s.do("LPUSH", "timeline", "500")
	s.do("ZADD", "users_by_time", "1", "<script>evil</script>")
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

func TestPagination(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	b.signUp("pager")
	for i := 1; i <= 25; i++ {
		redirects(t, b.post("/post", url.Values{"status": {fmt.Sprintf("post number %d.", i)}}), "/")
	}
	for _, base := range []string{"/", "/u/pager"} {
		for _, tc := range []struct {
			start        string
			first, last  int
			newer, older string
		}{
			{"", 25, 16, "", "?start=10"},
			{"?start=10", 15, 6, base + `"`, "?start=20"},
			{"?start=20", 5, 1, "?start=10", ""},
			{"?start=5", 20, 11, base + `"`, "?start=15"},
			{"?start=25", 0, 0, "?start=15", ""},
		} {
			t.Run(base+tc.start, func(t *testing.T) {
				body := b.get(base + tc.start).body
				n := strings.Count(body, `<article class="post">`)
				if want := tc.first - tc.last + 1; tc.first > 0 && n != want || tc.first == 0 && n != 0 {
					t.Fatalf("%d posts on the page", n)
				}
				if tc.first > 0 && (!strings.Contains(body, fmt.Sprintf("post number %d.", tc.first)) ||
					!strings.Contains(body, fmt.Sprintf("post number %d.", tc.last))) {
					t.Fatalf("page does not run from post %d to %d:\n%s", tc.first, tc.last, body)
				}
				checkLink(t, body, "Newer", tc.newer)
				checkLink(t, body, "Older", tc.older)
			})
		}
	}
	for _, bad := range []string{"-1", "abc", "1e3", "100001"} {
		expect(t, b.get("/?start="+bad), 400, "page offset")
		expect(t, b.get("/u/pager?start="+bad), 400, "page offset")
	}
}

// checkLink checks that the pager link named label exists and its href
// contains want, or that it is absent when want is empty.
func checkLink(t *testing.T, body, label, want string) {
	t.Helper()
	i := strings.Index(body, label+" »")
	if i < 0 {
		i = strings.Index(body, "« "+label)
	}
	if want == "" {
		if i >= 0 {
			t.Fatalf("unexpected %s link", label)
		}
		return
	}
	if i < 0 {
		t.Fatalf("no %s link", label)
	}
	a := body[strings.LastIndex(body[:i], "<a "):i]
	if !strings.Contains(a, want) {
		t.Fatalf("%s link %q does not contain %q", label, a, want)
	}
}

func TestTimelinePage(t *testing.T) {
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
	if n := strings.Count(body, `<article class="post">`); n != 50 {
		t.Fatalf("%d posts on the global timeline; want 50", n)
	}
	if !strings.Contains(body, "global 54.") || strings.Contains(body, "global 4.") {
		t.Fatal("the global timeline does not show the newest 50 posts")
	}
	if !strings.Contains(body, `href="/u/user11"`) || strings.Contains(body, `href="/u/user1"`) {
		t.Fatalf("latest users are not the 10 newest:\n%s", body)
	}
}

// TestRequestLog checks the one log line per request.
func TestRequestLog(t *testing.T) {
	s := newSite(t)
	s.browser().get("/u/nobody?start=3")
	want := regexp.MustCompile(`level=INFO msg=request method=GET path=/u/nobody status=404 duration=[0-9.]+[µm]?s`)
	deadline := time.Now().Add(5 * time.Second)
	for !want.MatchString(s.logs.String()) { // logged just after the response
		if time.Now().After(deadline) {
			t.Fatalf("no request line matching %s in the log:\n%s", want, s.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNotFound(t *testing.T) {
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
