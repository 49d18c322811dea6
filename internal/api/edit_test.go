package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestEditStatusMastodon edits a status through go-mastodon: the answer
// and the status read back carry the new text and warning with
// edited_at; the history lists both versions oldest first, and the
// source the text as written; another user's edit and source are
// refused with 403, a status never edited has no edited_at and one
// version, and the mentioned user is told of the edit (an update
// notification).
func TestEditStatusMastodon(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	alice, bob := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}), s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	ctx := t.Context()
	st := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "first take @bob"}))(t)
	plain := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "never edited"}))(t)
	s.Drain()
	edited := must.Value(alice.UpdateStatus(ctx, &mastodon.Toot{Status: "second take @bob", SpoilerText: "cw"}, st.ID))(t)
	read := must.Value(bob.GetStatus(ctx, st.ID))(t)
	for what, got := range map[string]*mastodon.Status{"answered": edited, "read": read} {
		if !strings.Contains(got.Content, "second take") || got.SpoilerText != "cw" || got.EditedAt.IsZero() || !got.CreatedAt.Equal(st.CreatedAt) {
			t.Errorf("%s: content %q, spoiler %q, edited_at %v, created_at %v; want the edit, edited now, created then",
				what, got.Content, got.SpoilerText, got.EditedAt, got.CreatedAt)
		}
	}
	hist := must.Value(bob.GetStatusHistory(ctx, st.ID))(t)
	if len(hist) != 2 || !strings.Contains(hist[0].Content, "first take") || !strings.Contains(hist[1].Content, "second take") ||
		hist[1].SpoilerText != "cw" || !hist[1].Sensitive || hist[0].Account.Username != "alice" {
		t.Errorf("history %+v; want the first version, then the second with its warning", hist)
	}
	src := must.Value(alice.GetStatusSource(ctx, st.ID))(t)
	if src.Text != "second take @bob" || src.SpoilerText != "cw" || src.ID != st.ID {
		t.Errorf("source %+v; want the text as written", src)
	}
	if _, err := bob.UpdateStatus(ctx, &mastodon.Toot{Status: "bob's now"}, st.ID); err == nil || !strings.Contains(err.Error(), "your own posts") {
		t.Errorf("bob edits alice's status: %v; want refused", err)
	}
	if _, err := bob.GetStatusSource(ctx, st.ID); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("bob reads the source of alice's status: %v; want 403", err)
	}
	if got := must.Value(alice.GetStatus(ctx, plain.ID))(t); !got.EditedAt.IsZero() || len(must.Value(alice.GetStatusHistory(ctx, plain.ID))(t)) != 1 {
		t.Errorf("a status never edited: edited_at %v; want none, and one version", got.EditedAt)
	}
	s.Drain()
	notes := must.Value(bob.GetNotifications(ctx, nil))(t)
	if len(notes) != 2 || notes[0].Type != "update" || notes[0].Status == nil || notes[0].Status.ID != st.ID || notes[1].Type != "mention" {
		t.Errorf("bob's notifications %+v; want the update, then the mention", notes)
	}
}

// TestEditIdempotencyKey: an edit repeated with the same
// Idempotency-Key is applied once, and a key too long is refused with
// 422.
func TestEditIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("retrier")
	id := s.Post(token, "to be edited")
	path := "/api/v1/statuses/" + id
	for i, text := range []string{"edited once", "edited twice"} {
		r := s.Call(http.MethodPut, path, token, url.Values{"status": {text}}, "Idempotency-Key", "e-1")
		var st struct{ Content string }
		r.Decode(t, &st)
		if r.Status != http.StatusOK || !strings.Contains(st.Content, "edited once") {
			t.Errorf("edit %d with the key: %d %s; want the first edit's text", i, r.Status, r.Body)
		}
	}
	var hist []struct{}
	s.Call(http.MethodGet, path+"/history", token, nil).Decode(t, &hist)
	if len(hist) != 2 {
		t.Errorf("%d versions; want 2 (the edit applied once)", len(hist))
	}
	if r := s.Call(http.MethodPut, path, token, url.Values{"status": {"x"}}, "Idempotency-Key", strings.Repeat("k", retwis.MaxIdempotencyKeyLen+1)); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a bad key: %d %s; want 422", r.Status, r.Body)
	}
}
