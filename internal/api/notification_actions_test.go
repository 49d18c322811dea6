package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/mattn/go-mastodon"
)

// unreadCount reads GET /api/v1/notifications/unread_count with query.
func unreadCount(t *testing.T, s *server, token, query string) int {
	t.Helper()
	var got struct{ Count *int }
	r := s.Call(http.MethodGet, "/api/v1/notifications/unread_count"+query, token, nil)
	if r.Decode(t, &got); r.Status != http.StatusOK || got.Count == nil {
		t.Fatalf("unread_count%s: %d %s", query, r.Status, r.Body)
	}
	return *got.Count
}

// TestNotificationActions: the unread count with its filters, the
// types' filters of the list, dismissing one notification and clearing
// them all, with go-mastodon where it has the method.
func TestNotificationActions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	c := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	notes := followAndMention(t, s, c, alice, bobToken)
	for query, want := range map[string]int{"": 2, "?types[]=follow": 1, "?exclude_types[]=follow": 1, "?limit=1": 1,
		"?account_id=" + strconv.FormatInt(bob.ID, 10): 2, "?account_id=" + strconv.FormatInt(alice.ID, 10): 0,
		"?types[]=reblog&types[]=favourite": 0} {
		if got := unreadCount(t, s, aliceToken, query); got != want {
			t.Errorf("unread_count%s = %d; want %d", query, got, want)
		}
	}
	if got, err := c.GetNotificationsExclude(t.Context(), &[]string{"follow"}, nil); err != nil || len(got) != 1 || got[0].Type != "mention" {
		t.Errorf("notifications but follows: %v %+v", err, got)
	}
	if err := c.DismissNotification(t.Context(), notes[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetNotifications(t.Context(), nil); err != nil || len(got) != 1 || got[0].ID != notes[1].ID {
		t.Errorf("after dismissing the mention: %v %+v", err, got)
	}
	if err := c.DismissNotification(t.Context(), notes[0].ID); err == nil {
		t.Error("dismissing a dismissed notification succeeded")
	}
	if err := c.ClearNotifications(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetNotifications(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("after clearing: %v %+v", err, got)
	}
	if got := unreadCount(t, s, aliceToken, ""); got != 0 {
		t.Errorf("unread after clearing: %d", got)
	}
}

// TestNotificationPolicy: the policy in both versions of the API, one
// stored fact: accept by default, changed by either version, a wrong
// treatment refused.
func TestNotificationPolicy(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	policy := func(method, version string, body url.Values) map[string]any {
		t.Helper()
		var got map[string]any
		r := s.Call(method, "/api/"+version+"/notifications/policy", token, body)
		if r.Decode(t, &got); r.Status != http.StatusOK {
			t.Fatalf("%s %s policy: %d %s", method, version, r.Status, r.Body)
		}
		return got
	}
	if got := policy(http.MethodGet, "v2", nil); got["for_not_following"] != "accept" || got["for_limited_accounts"] != "accept" || got["summary"] == nil {
		t.Errorf("default policy: %v", got)
	}
	if got := policy(http.MethodPatch, "v2", url.Values{"for_not_following": {"filter"}, "for_new_accounts": {"drop"}}); got["for_not_following"] != "filter" || got["for_new_accounts"] != "drop" {
		t.Errorf("changed: %v", got)
	}
	if got := policy(http.MethodGet, "v1", nil); got["filter_not_following"] != true || got["filter_not_followers"] != false {
		t.Errorf("version 1: %v", got)
	}
	policy(http.MethodPatch, "v1", url.Values{"filter_not_following": {"false"}})
	if got := policy(http.MethodGet, "v2", nil); got["for_not_following"] != "accept" || got["for_new_accounts"] != "drop" {
		t.Errorf("after version 1's change: %v", got)
	}
	if r := s.Call(http.MethodPatch, "/api/v2/notifications/policy", token, url.Values{"for_new_accounts": {"maybe"}}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a wrong treatment: %d %s", r.Status, r.Body)
	}
}
