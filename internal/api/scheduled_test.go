package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	apischeduled "github.com/retwis/retwis/internal/api/scheduled"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestScheduledStatuses: an app schedules statuses with go-mastodon
// (too soon is 422 with Mastodon's message; a time past posts at once),
// lists them paged with a Link header, reads one, moves it, cancels
// another; once due, maintenance publishes the one left, which the
// author's statuses then show.
func TestScheduledStatuses(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, token := s.User("alice")
	c := s.Mastodon(&mastodon.Config{AccessToken: token})
	soon := time.Now().Add(time.Minute)
	if _, err := c.PostStatus(t.Context(), &mastodon.Toot{Status: "too soon", ScheduledAt: &soon}); err == nil || !strings.Contains(err.Error(), "must be in the future") {
		t.Errorf("scheduled a minute ahead: %v", err)
	}
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	first := must.Value(c.PostStatus(t.Context(), &mastodon.Toot{Status: "later", SpoilerText: "cw", Visibility: "unlisted", ScheduledAt: &at}))(t)
	if first.ID == "" || first.ScheduledParams.Text != "later" || first.ScheduledParams.SpoilerText != "cw" || first.ScheduledParams.Visibility != "unlisted" {
		t.Errorf("the scheduled status: %+v", first)
	}
	past := time.Now().Add(-time.Hour)
	if now := must.Value(c.PostStatus(t.Context(), &mastodon.Toot{Status: "now", ScheduledAt: &past}))(t); now.Content == "" {
		t.Errorf("a time past did not post at once: %+v", now)
	}
	second := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"cancelled"}, "scheduled_at": {at.Format(time.RFC3339)}})
	var cancelled apischeduled.Status
	second.Decode(t, &cancelled)
	r := s.Call(http.MethodGet, "/api/v1/scheduled_statuses?limit=1", token, nil)
	var page []apischeduled.Status
	if r.Decode(t, &page); r.Status != http.StatusOK || len(page) != 1 || page[0].ID != cancelled.ID || !strings.Contains(r.Header.Get("Link"), `max_id=`+cancelled.ID) {
		t.Errorf("the first page: %d %s, Link %q", r.Status, r.Body, r.Header.Get("Link"))
	}
	id := string(first.ID)
	moved := at.Add(time.Hour)
	if r = s.Call(http.MethodPut, "/api/v1/scheduled_statuses/"+id, token, url.Values{"scheduled_at": {moved.Format(time.RFC3339)}}); r.Status != http.StatusOK || !strings.Contains(string(r.Body), moved.UTC().Format("2006-01-02T15:04:05")) {
		t.Errorf("moving it: %d %s", r.Status, r.Body)
	}
	if r = s.Call(http.MethodPut, "/api/v1/scheduled_statuses/"+id, token, url.Values{"scheduled_at": {time.Now().Format(time.RFC3339)}}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("moving it to now: %d %s", r.Status, r.Body)
	}
	if r = s.Call(http.MethodDelete, "/api/v1/scheduled_statuses/"+cancelled.ID, token, nil); r.Status != http.StatusOK {
		t.Errorf("cancelling: %d %s", r.Status, r.Body)
	}
	if r = s.Call(http.MethodGet, "/api/v1/scheduled_statuses/"+cancelled.ID, token, nil); r.Status != http.StatusNotFound {
		t.Errorf("a cancelled one: %d %s", r.Status, r.Body)
	}
	if n := must.Value(scheduled.New(s.Store).PublishDue(t.Context(), moved))(t); n != 1 {
		t.Fatalf("published %d", n)
	}
	s.Drain()
	statuses := must.Value(c.GetAccountStatuses(t.Context(), mastodon.ID(strconv.FormatInt(alice.ID, 10)), nil))(t)
	if len(statuses) != 2 || statuses[0].SpoilerText != "cw" || statuses[0].Visibility != "unlisted" {
		t.Errorf("alice's statuses after: %+v", statuses)
	}
	if r = s.Call(http.MethodGet, "/api/v1/scheduled_statuses", token, nil); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Errorf("scheduled after: %s", r.Body)
	}
}
