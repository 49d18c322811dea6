package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestReportAPI: an app reports statuses and an account through
// go-mastodon; the moderators' open reports hold them; a status of
// another account, oneself or too many statuses are refused with 422
// and file nothing.
func TestReportAPI(t *testing.T) {
	s := newServer(t)
	_, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	carol, carolToken := s.User("carol")
	ctx := t.Context()
	alice := mastodon.NewClient(&mastodon.Config{Server: s.URL, AccessToken: aliceToken})
	bobs := []mastodon.ID{mastodon.ID(s.Post(bobToken, "one")), mastodon.ID(s.Post(bobToken, "two"))}
	carols := mastodon.ID(s.Post(carolToken, "three"))
	for name, try := range map[string]func() error{
		"another's status": func() error {
			_, err := alice.Report(ctx, mastodon.ID(id(bob.ID)), []mastodon.ID{carols}, "x")
			return err
		},
		"no account": func() error { _, err := alice.Report(ctx, "", nil, "x"); return err },
		"too many": func() error {
			_, err := alice.Report(ctx, mastodon.ID(id(bob.ID)), slices.Repeat(bobs[:1], 6), "x")
			return err
		},
	} {
		if err := try(); err == nil || !strings.Contains(err.Error(), "422") {
			t.Errorf("%s: %v; want 422", name, err)
		}
	}
	if open, err := s.Store.OpenReports(ctx, 10); err != nil || len(open) != 0 {
		t.Fatalf("refused reports were filed: %v, %v", open, err)
	}
	rep, err := alice.Report(ctx, mastodon.ID(id(bob.ID)), bobs, "both are spam")
	if err != nil || rep.ID == "" {
		t.Fatalf("report statuses: %+v, %v", rep, err)
	}
	if _, err := alice.Report(ctx, mastodon.ID(id(carol.ID)), nil, ""); err != nil {
		t.Fatalf("report an account without a comment: %v", err)
	}
	open, err := s.Store.OpenReports(ctx, 10)
	if err != nil || len(open) != 3 || open[0].User != carol || open[0].Reason != "(other, no comment)" ||
		open[1].Post == 0 || open[2].Post == 0 || open[1].Reason != "both are spam" || open[1].By.Username != "alice" {
		t.Errorf("open reports: %+v, %v", open, err)
	}
}
