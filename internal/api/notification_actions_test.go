package api_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
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

// TestNotificationMethodsRoundTrips: the markers and the notification
// methods cost the same number of round trips to Redis whatever the
// number of notifications: nothing is read or written per notification.
// A request's count includes its authentication, a read of the account
// that the client-side cache answers but for a few seconds after the
// account's hash was written (the notifications marker writes it).
func TestNotificationMethodsRoundTrips(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	bob, _ := s.User("bob")
	costs := map[int]map[string]int64{}
	for _, n := range []int{2, 100} {
		u, token := s.User(fmt.Sprint("user", n))
		args := []string{"ZADD", schema.Notifications(u.ID)}
		for i := range n {
			args = append(args, strconv.Itoa(1000+i), schema.Note(schema.NoteFavourite, bob.ID, int64(i+1)))
		}
		redistest.Do(t, s.Store.C, args...)
		notes := must.Value(s.Store.AllNotifications(t.Context(), u.ID))(t)
		s.Call(http.MethodGet, "/api/v1/accounts/verify_credentials", token, nil) // the token's first use, recorded
		costs[n] = map[string]int64{}
		for _, c := range []struct {
			name, method, path string
			body               url.Values
		}{
			{"read markers", http.MethodGet, "/api/v1/markers?timeline[]=home&timeline[]=notifications", nil},
			{"save both markers", http.MethodPost, "/api/v1/markers", url.Values{"home[last_read_id]": {"1"}, "notifications[last_read_id]": {id(notes[1].ID)}}},
			{"unread_count", http.MethodGet, "/api/v1/notifications/unread_count", nil},
			{"unread_count?types[]=favourite", http.MethodGet, "/api/v1/notifications/unread_count?types[]=favourite", nil},
			{"read the policy", http.MethodGet, "/api/v2/notifications/policy", nil},
			{"change the policy", http.MethodPatch, "/api/v2/notifications/policy", url.Values{"for_not_following": {"filter"}}},
			{"dismiss", http.MethodPost, "/api/v1/notifications/" + id(notes[0].ID) + "/dismiss", nil},
			{"clear", http.MethodPost, "/api/v1/notifications/clear", nil},
		} {
			before := s.Calls.Calls.Load()
			if r := s.Call(c.method, c.path, token, c.body); r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", c.name, r.Status, r.Body)
			}
			costs[n][c.name] = s.Calls.Calls.Load() - before
		}
	}
	for _, name := range slices.Sorted(maps.Keys(costs[2])) {
		few := costs[2][name]
		t.Logf("%s: %d round trips", name, few)
		if many := costs[100][name]; many != few || few > 4 {
			t.Errorf("%s: %d round trips with 2 notifications, %d with 100; want the same, at most 4", name, few, many)
		}
	}
}

// TestNotificationPolicyApplied: the notifications a policy filters or
// drops are left out of the list and the unread count: from accounts
// not followed until the user follows them, from new accounts.
func TestNotificationPolicyApplied(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	c := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	followAndMention(t, s, c, alice, bobToken)
	shown := func(change url.Values) (int, int) {
		t.Helper()
		if r := s.Call(http.MethodPatch, "/api/v2/notifications/policy", aliceToken, change); r.Status != http.StatusOK {
			t.Fatalf("%v: %d %s", change, r.Status, r.Body)
		}
		notes, err := c.GetNotifications(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(notes), unreadCount(t, s, aliceToken, "")
	}
	if listed, unread := shown(url.Values{"for_not_following": {"filter"}}); listed != 0 || unread != 0 {
		t.Errorf("from someone not followed, filtered: %d listed, %d unread; want none", listed, unread)
	}
	if _, err := c.AccountFollow(t.Context(), mastodon.ID(id(bob.ID))); err != nil {
		t.Fatal(err)
	}
	if listed, unread := shown(url.Values{}); listed != 2 || unread != 2 {
		t.Errorf("once followed: %d listed, %d unread; want 2", listed, unread)
	}
	if listed, unread := shown(url.Values{"for_new_accounts": {"drop"}}); listed != 0 || unread != 0 {
		t.Errorf("from a new account, dropped: %d listed, %d unread; want none", listed, unread)
	}
	if listed, _ := shown(url.Values{"for_new_accounts": {"accept"}, "for_not_followers": {"filter"}}); listed != 2 {
		t.Errorf("from a follower, followers' filtered: %d listed; want 2", listed)
	}
}
