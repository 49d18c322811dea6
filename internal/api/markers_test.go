package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/markers"
)

// followAndMention has from follow to and then mention them, in two
// different milliseconds, and returns to's notifications, newest (the
// mention) first, as go-mastodon reads them.
func followAndMention(t *testing.T, s *server, c *mastodon.Client, to retwis.User, fromToken string) []*mastodon.Notification {
	t.Helper()
	if r := s.Call(http.MethodPost, "/api/v1/accounts/"+strconv.FormatInt(to.ID, 10)+"/follow", fromToken, nil); r.Status != http.StatusOK {
		t.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	for start := time.Now().UnixMilli(); time.Now().UnixMilli() == start; { // the next millisecond: the two notifications apart
	}
	s.Post(fromToken, "@"+to.Username+" hello")
	s.Drain()
	notes, err := c.GetNotifications(t.Context(), nil)
	if err != nil || len(notes) != 2 || notes[0].Type != "mention" || notes[1].Type != "follow" {
		t.Fatalf("notifications: %v %+v", err, notes)
	}
	return notes
}

// markersOf reads the viewer's markers of both timelines.
func markersOf(t *testing.T, s *server, token string) map[string]markers.Marker {
	t.Helper()
	var got map[string]markers.Marker
	r := s.Call(http.MethodGet, "/api/v1/markers?timeline[]=home&timeline[]=notifications", token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("markers: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	return got
}

// TestMarkers: an app reads the markers at start before any was saved
// (as Elk does), saves both, by JSON and by form, and reads them back;
// the notifications marker and the pages' read marker are one: the
// notifications page shows unread exactly those after the marker the
// app saved, and opening it moves the marker to the newest; the home
// page moves the home marker to the newest post it shows.
func TestMarkers(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	if got := markersOf(t, s, aliceToken); len(got) != 0 {
		t.Errorf("markers before any save: %+v", got)
	}
	notes := followAndMention(t, s, s.Mastodon(&mastodon.Config{AccessToken: aliceToken}), alice, bobToken)
	post := s.Post(aliceToken, "read up to here")
	r := s.Call(http.MethodPost, "/api/v1/markers", aliceToken, `{"notifications": {"last_read_id": "`+string(notes[1].ID)+`"}}`)
	var saved map[string]markers.Marker
	if r.Decode(t, &saved); r.Status != http.StatusOK || saved["notifications"].LastReadID != string(notes[1].ID) || saved["notifications"].Version != 1 {
		t.Errorf("saving the notifications marker: %d %s", r.Status, r.Body)
	}
	if r = s.Call(http.MethodPost, "/api/v1/markers", aliceToken, url.Values{"home[last_read_id]": {post}}); r.Status != http.StatusOK {
		t.Errorf("saving the home marker: %d %s", r.Status, r.Body)
	}
	got := markersOf(t, s, aliceToken)
	if got["home"].LastReadID != post || got["home"].Version != 1 || got["notifications"].LastReadID != string(notes[1].ID) {
		t.Errorf("markers read back: %+v", got)
	}
	b := newBrowser(t)
	b.send(http.MethodPost, s.URL+"/login", url.Values{"username": {"alice"}, "password": {"password-alice"}})
	if _, page := b.send(http.MethodGet, s.URL+"/notifications", nil); strings.Count(page, `class="note unread"`) != 1 {
		t.Errorf("the page shows %d unread after the app's marker; want 1 (the mention)", strings.Count(page, `class="note unread"`))
	}
	got = markersOf(t, s, aliceToken)
	if n := got["notifications"]; n.LastReadID != string(notes[0].ID) || n.Version != 2 {
		t.Errorf("the notifications marker after the page: %+v; want at %s, version 2", n, notes[0].ID)
	}
	later := s.Post(aliceToken, "and then this")
	s.Drain()
	b.send(http.MethodGet, s.URL+"/", nil)
	if h := markersOf(t, s, aliceToken)["home"]; h.LastReadID != later || h.Version != 2 {
		t.Errorf("the home marker after the home page: %+v; want at %s, version 2", h, later)
	}
	for _, bad := range []url.Values{{"home[last_read_id]": {"x"}}, {"notifications[last_read_id]": {"1", "2"}}} {
		if r := s.Call(http.MethodPost, "/api/v1/markers", aliceToken, bad); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d; want 422", bad, r.Status)
		}
	}
}
