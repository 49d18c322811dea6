package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	apiann "github.com/retwis/retwis/internal/api/announcements"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/testkit/must"
)

// announcementsOf reads the viewer's active announcements.
func announcementsOf(t *testing.T, s *server, token string) []apiann.Announcement {
	t.Helper()
	var got []apiann.Announcement
	r := s.Call(http.MethodGet, "/api/v1/announcements", token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("announcements: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	return got
}

// TestAnnouncements: an app reads the active announcements (the content
// escaped and linked), dismisses one and reacts to it with an emoji
// (encoded in the path), then reads them with read and its reactions;
// what is not an emoji, or no announcement, is refused as Mastodon does.
func TestAnnouncements(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, alice := s.User("alice")
	_, bob := s.User("bob")
	an := announcements.New(s.Store)
	must.Value(an.Announce(t.Context(), "<b>New</b> rules: https://example.com/rules #meta", time.Time{}, time.Now().Add(time.Hour)))(t)
	must.Value(an.Announce(t.Context(), "not yet", time.Now().Add(time.Hour), time.Time{}))(t)
	got := announcementsOf(t, s, alice)
	if len(got) != 1 || got[0].Read || got[0].EndsAt == nil || got[0].StartsAt != nil || len(got[0].Tags) != 1 ||
		!strings.Contains(got[0].Content, "&lt;b&gt;New&lt;/b&gt;") || !strings.Contains(got[0].Content, `<a href="https://example.com/rules"`) {
		t.Fatalf("announcements: %+v", got)
	}
	id := got[0].ID
	for _, c := range []struct {
		method, path, token string
		status              int
	}{
		{http.MethodPost, "/api/v1/announcements/" + id + "/dismiss", alice, http.StatusOK},
		{http.MethodPut, "/api/v1/announcements/" + id + "/reactions/" + url.PathEscape("👍🏽"), alice, http.StatusOK},
		{http.MethodPut, "/api/v1/announcements/" + id + "/reactions/" + url.PathEscape("👍🏽"), bob, http.StatusOK},
		{http.MethodPut, "/api/v1/announcements/" + id + "/reactions/" + url.PathEscape("🎉"), bob, http.StatusOK},
		{http.MethodDelete, "/api/v1/announcements/" + id + "/reactions/" + url.PathEscape("🎉"), bob, http.StatusOK},
		{http.MethodPut, "/api/v1/announcements/" + id + "/reactions/blobcat", bob, http.StatusUnprocessableEntity},
		{http.MethodPut, "/api/v1/announcements/999/reactions/" + url.PathEscape("👍"), bob, http.StatusNotFound},
		{http.MethodPost, "/api/v1/announcements/999/dismiss", bob, http.StatusNotFound},
	} {
		if r := s.Call(c.method, c.path, c.token, nil); r.Status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, r.Status, r.Body, c.status)
		}
	}
	got = announcementsOf(t, s, alice)
	want := []apiann.Reaction{{Name: "👍🏽", Count: 2, Me: true}}
	if len(got) != 1 || !got[0].Read || len(got[0].Reactions) != 1 || got[0].Reactions[0] != want[0] {
		t.Errorf("alice's after: %+v", got)
	}
	if got = announcementsOf(t, s, bob); got[0].Read || !got[0].Reactions[0].Me {
		t.Errorf("bob's after: %+v", got)
	}
	if r := s.Call(http.MethodGet, "/api/v1/announcements", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %d", r.Status)
	}
}
