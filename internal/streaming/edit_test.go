package streaming_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// TestStreamEdit: each edit of a post comes as a status.update with the
// post as edited, to its author's followers (go-mastodon's Server-Sent
// Events and WebSocket clients of the user stream) and on the public
// and the tag's stream; a second edit is rendered anew, not the first
// one's payload again.
func TestStreamEdit(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	aliceToken, bobToken, carolToken := s.aliceFollowed()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sse := must.Value(s.Mastodon(&mastodon.Config{AccessToken: bobToken}).StreamingUser(ctx))(t)
	ws := must.Value(s.Mastodon(&mastodon.Config{AccessToken: carolToken}).NewWSClient().StreamingWSUser(ctx))(t)
	s.WaitSubscribed(3) // bob's stream, carol's and the revocations of their access
	public := s.listen("/api/v1/streaming/public", "")
	tag := s.listen("/api/v1/streaming/hashtag?tag=edits", "")

	id := s.Post(aliceToken, "first take #edits")
	public.expectUpdate("first take")
	tag.expectUpdate("first take")
	for name, events := range map[string]chan mastodon.Event{"SSE": sse, "WebSocket": ws} {
		if ev, ok := servertest.NextEvent(t, events).(*mastodon.UpdateEvent); !ok || !strings.Contains(ev.Status.Content, "first take") {
			t.Fatalf("%s: event %#v; want the update", name, ev)
		}
	}
	for _, text := range []string{"second take #edits", "third take #edits"} {
		if r := s.Call(http.MethodPut, "/api/v1/statuses/"+id, aliceToken, url.Values{"status": {text}}); r.Status != http.StatusOK {
			t.Fatalf("edit: %d %s", r.Status, r.Body)
		}
		for _, es := range []*eventStream{public, tag} {
			ev := es.next()
			if ev.name != "status.update" || !strings.Contains(ev.data, strings.Fields(text)[0]) || !strings.Contains(ev.data, `"edited_at":"`) {
				t.Fatalf("event %s %s; want the edit to %q", ev.name, ev.data, text)
			}
		}
		for name, events := range map[string]chan mastodon.Event{"SSE": sse, "WebSocket": ws} {
			ev, ok := servertest.NextEvent(t, events).(*mastodon.UpdateEditEvent)
			if !ok || !strings.Contains(ev.Status.Content, strings.Fields(text)[0]) || string(ev.Status.ID) != id || ev.Status.EditedAt.IsZero() {
				t.Fatalf("%s: event %#v; want the edit to %q", name, ev, text)
			}
		}
	}
}
