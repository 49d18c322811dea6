package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/store"
)

// TestReportAndModerate: a user reports a post and an account; the
// moderator sees both on /admin, deletes the post, suspends the account
// (whose posts vanish and whose session ends), closes the reports, and
// finds each action in the audit log; others get 404 at /admin; refused
// forms write nothing.
func TestReportAndModerate(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	mod, reporter, troll := s.browser(), s.browser(), s.browser()
	mod.signUp("mod")
	reporter.signUp("reporter")
	troll.signUp("troll")
	troll.post("/post", url.Values{"status": {"first troll post"}})
	troll.post("/post", url.Values{"status": {"second troll post"}})
	s.drain()
	ids := regexp.MustCompile(`href="/p/(\d+)"`).FindAllStringSubmatch(s.browser().get("/u/troll").body, -1)
	if len(ids) < 2 {
		t.Fatalf("troll's posts not found on the profile")
	}
	second, first := ids[0][1], ids[1][1]

	expect(t, reporter.get("/p/"+first), http.StatusOK, "Report this post", `name="post" value="`+first+`"`)
	before := s.snapshot()
	expect(t, reporter.post("/report", url.Values{"post": {first}, "reason": {"  "}}), http.StatusBadRequest, "say what is wrong")
	expect(t, reporter.post("/report", url.Values{"user": {"reporter"}, "reason": {"me"}}), http.StatusBadRequest, "cannot report yourself")
	expect(t, reporter.post("/report", url.Values{"post": {"x1"}, "reason": {"bad"}}), http.StatusBadRequest)
	expect(t, reporter.post("/report", url.Values{"reason": {"bad"}}), http.StatusBadRequest, "which post or account")
	expect(t, reporter.post("/report", url.Values{"user": {"nobody"}, "reason": {"bad"}}), http.StatusNotFound)
	s.assertUnchanged(before)
	redirects(t, reporter.post("/report", url.Values{"post": {first}, "reason": {"insults <b>me</b>"}}), "/p/"+first+"?reported=1")
	expect(t, reporter.get("/p/"+first+"?reported=1"), http.StatusOK, "the moderators will look at your report")
	redirects(t, reporter.post("/report", url.Values{"user": {"troll"}, "reason": {"a troll"}}), "/u/troll?reported=1")

	for _, b := range []*browser{reporter, troll} {
		expect(t, b.get("/admin"), http.StatusNotFound)
		expect(t, b.post("/admin/suspend", url.Values{"user": {"troll"}}), http.StatusNotFound)
	}
	modUser, err := s.st.UserByName(t.Context(), "mod")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetModerator(t.Context(), "cli:test", modUser.ID, true); err != nil {
		t.Fatal(err)
	}
	expect(t, mod.get("/settings"), http.StatusOK, `href="/admin"`)
	page := mod.get("/admin")
	expect(t, page, http.StatusOK, "Open reports (2)", "insults &lt;b&gt;me&lt;/b&gt;", "a troll", "Suspend @troll")
	reportIDs := regexp.MustCompile(`name="id" value="([0-9-]+)"`).FindAllStringSubmatch(page.body, -1)
	if len(reportIDs) != 2 {
		t.Fatalf("report ids on the admin page: %v", reportIDs)
	}

	before = s.snapshot()
	expect(t, mod.post("/admin/suspend", url.Values{"user": {"nobody"}}), http.StatusNotFound, "no user called")
	expect(t, mod.post("/admin/delete-post", url.Values{"post": {"0"}}), http.StatusBadRequest)
	expect(t, mod.post("/admin/reports/close", url.Values{"id": {"1-1"}}), http.StatusNotFound)
	s.assertUnchanged(before)

	redirects(t, mod.post("/admin/delete-post", url.Values{"post": {first}, "reason": {"insults"}}), "/admin?done=delete-post")
	expect(t, s.browser().get("/p/"+first), http.StatusNotFound)
	redirects(t, mod.post("/admin/suspend", url.Values{"user": {"@troll"}, "reason": {"trolling"}}), "/admin?done=suspend")
	if strings.Contains(s.browser().get("/timeline").body, "second troll post") {
		t.Error("a suspended account's post is on the timeline")
	}
	expect(t, s.browser().get("/p/"+second), http.StatusNotFound)
	expect(t, s.browser().get("/u/troll"), http.StatusNotFound) // as if deleted, but to moderators
	expect(t, mod.get("/u/troll"), http.StatusOK, "This account is suspended")
	redirects(t, troll.get("/settings"), "/") // logged out
	expect(t, troll.post("/login", url.Values{"username": {"troll"}, "password": {"password1"}}), http.StatusForbidden, "suspended")
	for _, m := range reportIDs {
		redirects(t, mod.post("/admin/reports/close", url.Values{"id": {m[1]}, "reason": {"dealt with"}}), "/admin?done=close-report")
	}
	expect(t, mod.get("/admin"), http.StatusOK, "Open reports (0)", "Suspended accounts (1)",
		"@mod</td><td>suspend</td><td>@troll</td><td dir=\"auto\">trolling", "@mod</td><td>delete-post</td><td>post "+first+" by @troll</td><td dir=\"auto\">insults",
		"close-report")
	redirects(t, mod.post("/admin/unsuspend", url.Values{"user": {"troll"}}), "/admin?done=unsuspend")
	expect(t, s.browser().get("/timeline"), http.StatusOK, "second troll post")
}

// TestReportRulesOnPages: the report form reaches the store's rules: a
// post that is not, one's own post and a report beyond the limit (one
// an hour here) are refused and write nothing. The moderators' page
// shows a report of several posts, as the API files them, with a link
// to each and a button to delete each.
func TestReportRulesOnPages(t *testing.T) {
	t.Parallel()
	s := newSiteStore(t, redistestStart(t), httptest.NewServer, mux.Options{},
		store.Options{Limits: store.Limits{Reports: retwis.Rate{Count: 1, Per: time.Hour}}})
	mod, reporter, other, troll := s.browser(), s.browser(), s.browser(), s.browser()
	for b, name := range map[*browser]string{mod: "mod", reporter: "reporter", other: "other", troll: "troll"} {
		b.signUp(name)
	}
	troll.post("/post", url.Values{"status": {"first troll post"}})
	troll.post("/post", url.Values{"status": {"second troll post"}})
	s.drain()
	ids := regexp.MustCompile(`href="/p/(\d+)"`).FindAllStringSubmatch(s.browser().get("/u/troll").body, -1)
	if len(ids) < 2 {
		t.Fatalf("troll's posts not found on the profile")
	}
	second, first := ids[0][1], ids[1][1]

	before := s.snapshot()
	expect(t, reporter.post("/report", url.Values{"post": {"999"}, "reason": {"bad"}}), http.StatusNotFound)
	expect(t, troll.post("/report", url.Values{"post": {first}, "reason": {"mine"}}), http.StatusBadRequest, "cannot report yourself")
	s.assertUnchanged(before)
	redirects(t, reporter.post("/report", url.Values{"post": {first}, "reason": {"spam"}}), "/p/"+first+"?reported=1")
	before = s.snapshot()
	expect(t, reporter.post("/report", url.Values{"user": {"troll"}, "reason": {"again"}}), http.StatusTooManyRequests)
	s.assertUnchanged(before)

	by, err := s.st.UserByName(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	pids := []int64{mustAtoi(t, first), mustAtoi(t, second)}
	if _, err := s.st.Report(t.Context(), by.ID, 0, pids, "both of them"); err != nil {
		t.Fatal(err)
	}
	modUser, err := s.st.UserByName(t.Context(), "mod")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetModerator(t.Context(), "cli:test", modUser.ID, true); err != nil {
		t.Fatal(err)
	}
	expect(t, mod.get("/admin"), http.StatusOK, "Open reports (2)", "both of them", "reported 2 posts (",
		`href="/p/`+first+`">`+first+`</a>, <a href="/p/`+second+`">`+second+`</a>) by`,
		"Delete post "+first, "Delete post "+second, "reported <a href=\"/p/"+first+"\">a post</a> by", "Delete the post")
}

// mustAtoi reads a post number of a page.
func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
