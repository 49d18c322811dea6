package api_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/testkit/must"
)

// TestEditPictures: go-mastodon edits a status's pictures, adding one,
// removing one and reordering them; the status then has the new set,
// its history the old set in the earlier version; the one removed is
// swept with its files, the one added stays attached past the day an
// upload waits; another's picture, one attached elsewhere and a fifth
// are refused with 422.
func TestEditPictures(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, token := s.User("alice")
	_, bobToken := s.User("bob")
	alice, bob := s.Mastodon(&mastodon.Config{AccessToken: token}), s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	up := func(c *mastodon.Client, tok string) mastodon.ID {
		a := must.Value(c.UploadMediaFromMedia(ctx, &mastodon.Media{File: bytes.NewReader(photo(t, 64, 48)), Description: "alt"}))(t)
		waitReady(t, s, tok, string(a.ID))
		return a.ID
	}
	one, two, three, bobs := up(alice, token), up(alice, token), up(alice, token), up(bob, bobToken)
	st := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "pictured", MediaIDs: []mastodon.ID{one, two}}))(t)
	other := must.Value(alice.PostStatus(ctx, &mastodon.Toot{Status: "another", MediaIDs: []mastodon.ID{up(alice, token)}}))(t)
	removedURL := st.MediaAttachments[1].URL
	edited, err := alice.UpdateStatus(ctx, &mastodon.Toot{Status: "repictured", MediaIDs: []mastodon.ID{three, one}}, st.ID)
	if err != nil || !slices.Equal(mediaIDs(edited.MediaAttachments), []mastodon.ID{three, one}) {
		t.Fatalf("the edit: %v, %v; want the pictures three, one", err, edited)
	}
	hist := must.Value(alice.GetStatusHistory(ctx, st.ID))(t)
	if len(hist) != 2 || !slices.Equal(mediaIDs(hist[0].MediaAttachments), []mastodon.ID{one, two}) ||
		!slices.Equal(mediaIDs(hist[1].MediaAttachments), []mastodon.ID{three, one}) {
		t.Errorf("history %+v; want one, two, then three, one", hist)
	}
	for name, mids := range map[string][]mastodon.ID{
		"bob's picture":         {three, bobs},
		"another post's":        {three, other.MediaAttachments[0].ID},
		"five pictures":         {three, one, two, up(alice, token), up(alice, token)},
		"a picture twice":       {three, three},
		"an unknown picture id": {three, "12345"},
	} {
		if _, err := alice.UpdateStatus(ctx, &mastodon.Toot{Status: "x", MediaIDs: mids}, st.ID); err == nil || !strings.Contains(err.Error(), "422") {
			t.Errorf("an edit with %s: %v; want 422", name, err)
		}
	}
	if r := s.Call("PUT", "/api/v1/media/"+string(three), token, map[string]string{"description": "late"}); r.Status != http.StatusNotFound {
		t.Errorf("PUT of the picture the edit attached: %d; want 404, as attached", r.Status)
	}
	must.Value(s.Media.Sweep(ctx, time.Now().Add(25*time.Hour)))(t)
	if r := s.Call("GET", strings.TrimPrefix(removedURL, s.URL), "", nil); r.Status != http.StatusNotFound {
		t.Errorf("the removed picture's file after the sweep: %d; want 404", r.Status)
	}
	if r := s.Call("GET", "/api/v1/media/"+string(two), token, nil); r.Status != http.StatusNotFound {
		t.Errorf("the removed picture's record after the sweep: %d; want 404", r.Status)
	}
	read := must.Value(alice.GetStatus(ctx, st.ID))(t)
	for _, a := range read.MediaAttachments {
		checkServed(t, s, a.URL)
	}
}

// mediaIDs are the ids of as.
func mediaIDs(as []mastodon.Attachment) []mastodon.ID {
	out := make([]mastodon.ID, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}
