package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestScheduledPictures: a status scheduled with a picture lists it in
// its ScheduledStatus; no other post may take it; upkeep a day later
// keeps it; once published, the post has it; a scheduled status
// cancelled hands its picture to upkeep, which removes it.
func TestScheduledPictures(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, token := s.User("alice")
	up := func() string {
		var m mediaEntity
		upload(t, s, "/api/v1/media", token, photo(t, 64, 48), map[string]string{"description": "later"}).Decode(t, &m)
		return m.ID
	}
	kept, cancelled := up(), up()
	at := time.Now().Add(time.Hour)
	schedule := func(mid string) (sc struct {
		ID     string
		Params struct {
			MediaIDs []string `json:"media_ids"`
		}
		MediaAttachments []mediaEntity `json:"media_attachments"`
	}) {
		r := s.Call("POST", "/api/v1/statuses", token, url.Values{"status": {"later"}, "media_ids[]": {mid}, "scheduled_at": {at.UTC().Format(time.RFC3339)}})
		if r.Decode(t, &sc); r.Status != http.StatusOK || len(sc.MediaAttachments) != 1 || sc.MediaAttachments[0].ID != mid ||
			len(sc.Params.MediaIDs) != 1 || sc.Params.MediaIDs[0] != mid {
			t.Fatalf("a status scheduled with a picture: %d %s", r.Status, r.Body)
		}
		return sc
	}
	schedule(kept)
	gone := schedule(cancelled)
	if r := s.Call("POST", "/api/v1/statuses", token, url.Values{"status": {"now"}, "media_ids[]": {kept}}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.ErrorMessage(t), "scheduled post") {
		t.Errorf("a post of a picture a scheduled status holds: %d %s; want 422", r.Status, r.Body)
	}
	must.Value(s.Media.Sweep(ctx, time.Now().Add(25*time.Hour)))(t)
	if r := s.Call("GET", "/api/v1/media/"+kept, token, nil); r.Status != http.StatusOK {
		t.Fatalf("the held picture after a day's upkeep: %d; want kept", r.Status)
	}
	if r := s.Call("DELETE", "/api/v1/scheduled_statuses/"+gone.ID, token, nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	must.Value(s.Media.Sweep(ctx, time.Now()))(t)
	if r := s.Call("GET", "/api/v1/media/"+cancelled, token, nil); r.Status != http.StatusNotFound {
		t.Errorf("the cancelled status's picture after upkeep: %d; want removed", r.Status)
	}
	if n := must.Value(scheduled.New(s.Store).PublishDue(ctx, at.Add(time.Minute)))(t); n != 1 {
		t.Fatalf("published %d, want 1", n)
	}
	must.Value(s.Media.Sweep(ctx, time.Now().Add(50*time.Hour)))(t)
	var sts []struct {
		MediaAttachments []mediaEntity `json:"media_attachments"`
	}
	s.Drain()
	r := s.Call("GET", "/api/v1/timelines/home", token, nil)
	if r.Decode(t, &sts); len(sts) != 1 || len(sts[0].MediaAttachments) != 1 || sts[0].MediaAttachments[0].ID != kept {
		t.Fatalf("the published post: %s", r.Body)
	}
	checkServed(t, s, *sts[0].MediaAttachments[0].RawURL)
}
