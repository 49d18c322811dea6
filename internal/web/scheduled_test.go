package web_test

import (
	"image/color"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestSchedulePost: the compose form's "Schedule for" schedules a post
// (in UTC without the script's offset, in the browser's zone with it),
// listed on /scheduled, where Cancel cancels it; too soon is refused
// with the draft kept, and a time past posts at once.
func TestSchedulePost(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("alice")
	at := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Minute)
	r := b.post("/post", url.Values{"status": {"later, in UTC"}, "schedule_at": {at.Format("2006-01-02T15:04")}})
	if r.status != http.StatusSeeOther || r.location != "/scheduled" {
		t.Fatalf("scheduling: %d %q %s", r.status, r.location, r.body)
	}
	// A browser two hours ahead of UTC (getTimezoneOffset -120) means the same time.
	b.post("/post", url.Values{"status": {"later, two hours ahead"}, "schedule_at": {at.Add(2 * time.Hour).Format("2006-01-02T15:04")}, "tz_offset": {"-120"}})
	page := b.get("/scheduled")
	expect(t, page, http.StatusOK, "later, in UTC", "later, two hours ahead", at.Format("2 Jan 2006, 15:04 UTC"))
	if n := strings.Count(page.body, at.Format("2 Jan 2006, 15:04 UTC")); n != 2 {
		t.Errorf("%d posts at %v, want both", n, at)
	}
	soon := b.post("/post", url.Values{"status": {"too soon"}, "schedule_at": {time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04")}})
	expect(t, soon, http.StatusBadRequest, "must be in the future", "too soon")
	if r = b.post("/post", url.Values{"status": {"at once"}, "schedule_at": {"2001-01-01T00:00"}}); r.location != "/" {
		t.Errorf("a time past: %d %q", r.status, r.location)
	}
	list := must.Value(scheduled.New(s.st).List(t.Context(), must.Value(s.st.UserByName(t.Context(), "alice"))(t).ID))(t)
	if len(list) != 2 {
		t.Fatalf("scheduled: %+v", list)
	}
	if r = b.post("/scheduled/"+strconv.FormatInt(list[0].ID, 10)+"/cancel", nil); r.location != "/scheduled" {
		t.Errorf("cancel: %d %q", r.status, r.location)
	}
	if page = b.get("/scheduled"); strings.Contains(page.body, list[0].Text) || !strings.Contains(page.body, list[1].Text) {
		t.Errorf("after cancelling %q:\n%s", list[0].Text, page.body)
	}
}

// TestSchedulePictures: the compose form schedules a post with a
// picture, which /scheduled counts, and which the post has once
// published.
func TestSchedulePictures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("painter")
	at := time.Now().UTC().Add(time.Hour).Truncate(time.Minute)
	jpg := photo(t, 40, 40, color.RGBA{0, 0, 200, 255})
	redirects(t, b.postParts("/post", value("status", "a blue square, later"), value("schedule_at", at.Format("2006-01-02T15:04")),
		file("media", "a.jpg", jpg), value("alt", "blue")), "/scheduled")
	expect(t, b.get("/scheduled"), http.StatusOK, "a blue square, later", "pictures: 1")
	if n := must.Value(scheduled.New(s.st).PublishDue(t.Context(), at.Add(time.Minute)))(t); n != 1 {
		t.Fatalf("published %d, want 1", n)
	}
	if got := picturesOf(b.get("/u/painter").body); len(got) != 1 || got[0][2] != "blue" {
		t.Errorf("the published post shows the pictures %q", got)
	}
}

// TestHomeAnnouncements: the home page shows the active announcements
// not dismissed, escaped and linked, above the compose box, each with a
// Dismiss button, which hides it from that user only; warm, a page with
// one costs no round trip more than before it was announced.
func TestHomeAnnouncements(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	fresh := newSiteAt(t, s.redis.URL, httptest.NewServer) // a server that wrote nothing lately
	b := fresh.browser()
	b.setCookie(bob.cookie())
	warm := func(want ...string) int64 {
		expect(t, b.get("/"), http.StatusOK, want...)
		before := fresh.calls.Calls.Load()
		expect(t, b.get("/"), http.StatusOK, want...)
		return fresh.calls.Calls.Load() - before
	}
	without := warm()
	a := must.Value(announcements.New(s.st).Announce(t.Context(), "<Maintenance> tonight, see https://example.com/ops", time.Time{}, time.Time{}))(t)
	if with := warm("&lt;Maintenance&gt; tonight"); with > without {
		t.Errorf("a warm home page: %d round trips with an announcement, %d without", with, without)
	}
	home := alice.get("/")
	expect(t, home, http.StatusOK, "&lt;Maintenance&gt; tonight", `href="https://example.com/ops"`, `action="/announcements/`+strconv.FormatInt(a.ID, 10)+`/dismiss"`)
	if r := alice.post("/announcements/"+strconv.FormatInt(a.ID, 10)+"/dismiss", nil); r.location != "/" {
		t.Errorf("dismiss: %d %q %s", r.status, r.location, r.body)
	}
	if home = alice.get("/"); strings.Contains(home.body, "Maintenance") {
		t.Errorf("dismissed, still shown:\n%s", home.body)
	}
	expect(t, bob.get("/"), http.StatusOK, "&lt;Maintenance&gt; tonight")
	if r := alice.post("/announcements/999/dismiss", nil); r.status != http.StatusNotFound {
		t.Errorf("dismissing none: %d", r.status)
	}
}
