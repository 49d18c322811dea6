package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestReportAPI: an app reports statuses and an account through
// go-mastodon. A report of several statuses is filed whole, as one of
// the moderators' open reports, and counts once against the limit of
// reports (two an hour here): a status of another account or one that
// does not exist among them, too many statuses, oneself or no account
// refuse the whole report (4xx), and file nothing, nor count.
func TestReportAPI(t *testing.T) {
	t.Parallel()
	s := newServerStore(t, redistest.Start(t).URL, api.Options{},
		store.Options{Limits: store.Limits{Reports: retwis.Rate{Count: 2, Per: time.Hour}}}, nil)
	alice, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	carol, carolToken := s.User("carol")
	ctx := t.Context()
	app := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	var bobs []mastodon.ID
	var bobIDs []int64
	for _, text := range []string{"one", "two", "three"} {
		bobs = append(bobs, mastodon.ID(s.Post(bobToken, text)))
		bobIDs = append(bobIDs, parseID(t, bobs[len(bobs)-1]))
	}
	carols := mastodon.ID(s.Post(carolToken, "fine"))
	bobAcct := mastodon.ID(id(bob.ID))
	for _, tc := range []struct {
		name     string
		acct     mastodon.ID
		statuses []mastodon.ID
		status   string
	}{
		{"another's status among them", bobAcct, []mastodon.ID{bobs[0], carols, bobs[1]}, "422"},
		{"a status that is not", bobAcct, []mastodon.ID{bobs[0], "999"}, "404"},
		{"too many", bobAcct, slices.Repeat(bobs[:2], 3), "422"},
		{"oneself", mastodon.ID(id(alice.ID)), nil, "422"},
		{"no account", "", nil, "422"},
	} {
		if _, err := app.Report(ctx, tc.acct, tc.statuses, "spam"); err == nil || !strings.Contains(err.Error(), tc.status) {
			t.Errorf("%s: %v; want %s", tc.name, err, tc.status)
		}
	}
	if open, err := s.Store.OpenReports(ctx, 10); err != nil || len(open) != 0 {
		t.Fatalf("refused reports were filed: %+v, %v", open, err)
	}
	rep, err := app.Report(ctx, bobAcct, bobs, "all three are spam")
	if err != nil || rep.ID == "" {
		t.Fatalf("report three statuses: %+v, %v", rep, err)
	}
	if _, err := app.Report(ctx, mastodon.ID(id(carol.ID)), nil, ""); err != nil {
		t.Fatalf("report an account without a comment, the second report: %v", err)
	}
	// go-mastodon waits and retries after a 429: the third report is sent
	// as it would send it, once.
	third := url.Values{"account_id": {id(bob.ID)}, "status_ids[]": {string(bobs[0])}, "comment": {"again"}}
	if r := s.Call(http.MethodPost, "/api/v1/reports", aliceToken, third); r.Status != http.StatusTooManyRequests {
		t.Errorf("a third report in the hour: %d %s; want 429", r.Status, r.Body)
	}
	open, err := s.Store.OpenReports(ctx, 10)
	if err != nil || len(open) != 2 || open[0].User != carol || open[0].Reason != "(other, no comment)" || len(open[0].Posts) != 0 ||
		open[1].ID != string(rep.ID) || open[1].User != bob || !slices.Equal(open[1].Posts, bobIDs) || open[1].By.Username != "alice" {
		t.Errorf("open reports: %+v, %v; want carol's, then one of bob's three statuses", open, err)
	}
}

// TestReportEntity: the answer to a report is Mastodon's Report, with
// every status it names.
func TestReportEntity(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	bob, bobToken := s.User("bob")
	first, second := s.Post(bobToken, "one"), s.Post(bobToken, "two")
	r := s.Call(http.MethodPost, "/api/v1/reports", token, `{"account_id": "`+id(bob.ID)+`", "status_ids": ["`+first+`", "`+second+`"], "category": "spam"}`)
	var rep struct {
		ID            string
		Category      string
		Comment       string
		StatusIDs     []string            `json:"status_ids"`
		TargetAccount struct{ ID string } `json:"target_account"`
	}
	if r.Decode(t, &rep); r.Status != http.StatusOK || rep.ID == "" || rep.Category != "spam" ||
		!slices.Equal(rep.StatusIDs, []string{first, second}) || rep.TargetAccount.ID != id(bob.ID) {
		t.Errorf("the report: %d %s", r.Status, r.Body)
	}
}
