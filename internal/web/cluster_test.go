package web_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestClusterEndToEnd runs the whole web flow against a local 3-master
// Redis Cluster: any command, script or transaction touching keys in two
// slots would fail here with CROSSSLOT.
func TestClusterEndToEnd(t *testing.T) {
	t.Parallel()
	s := newSiteAt(t, redistest.Cluster(t), httptest.NewServer)
	alice, bob, carol := s.browser(), s.browser(), s.browser()
	alice.signUp("Alice")
	bob.signUp("bob")
	carol.signUp("carol")
	expect(t, s.browser().post("/register", url.Values{"username": {"ALICE"}, "password": {"password1"}, "password2": {"password1"}}), 409, "already taken")

	redirects(t, bob.post("/u/alice/follow", nil), "/u/Alice")
	redirects(t, carol.post("/u/Alice/follow", nil), "/u/Alice")
	for i := range 15 {
		redirects(t, alice.post("/post", url.Values{"status": {"cluster post " + strings.Repeat("!", i)}}), "/")
	}
	s.drain()
	for _, b := range []*browser{alice, bob, carol} {
		first := b.get("/")
		expect(t, first, 200, "cluster post !!!!!!!!!!!!!!")
		expect(t, b.get(linkOf(first.body, "Older »")), 200, "cluster post !!!!", "cluster post</p>")
	}
	expect(t, bob.get("/u/alice"), 200, "2</strong> followers", `action="/u/Alice/unfollow"`)
	expect(t, s.browser().get("/timeline"), 200, "cluster post", `href="/u/carol"`)

	redirects(t, carol.post("/u/Alice/unfollow", nil), "/u/Alice")
	redirects(t, alice.post("/settings", url.Values{"name": {"Alice A."}}), "/u/Alice")
	alice.post("/post", url.Values{"status": {"only for bob"}})
	alice.post("/post", url.Values{"status": {"hello @carol"}})
	s.drain()
	expect(t, bob.get("/"), 200, "only for bob", `<bdi class="name">Alice A.</bdi> <span class="username">@Alice</span>`)
	expect(t, carol.get("/notifications"), 200, `<bdi class="name">Alice A.</bdi>`, "hello <a")
	if strings.Contains(carol.get("/").body, "only for bob") {
		t.Fatal("carol still receives alice's posts after unfollowing")
	}

	old := bob.cookie()
	redirects(t, bob.post("/logout", nil), "/")
	if _, err := s.do("HGET", "auths", old).ToString(); err == nil {
		t.Fatal("the old secret is still in auths after logout")
	}
	redirects(t, bob.post("/login", url.Values{"username": {"bob"}, "password": {"password1"}}), "/")
	expect(t, bob.get("/"), 200, "Hi, bob", "only for bob")
	expect(t, bob.get("/healthz"), 200, "ok")
}
