package streaming_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// postPicture posts text with a picture as the token's user, uid,
// through the API, and returns the post's id.
func (s *server) postPicture(uid int64, token, text string) string {
	s.T.Helper()
	u := must.Value(s.Media.Upload(s.T.Context(), uid, mediastore.ForPost, servertest.Photo(s.T, 16, 16), "a gradient", 0, 0))(s.T)
	a := must.Value(s.Media.Ready(s.T.Context(), u))(s.T)
	r := s.Call("POST", "/api/v1/statuses", token, url.Values{"status": {text}, "media_ids[]": {strconv.FormatInt(a.ID, 10)}})
	var st struct{ ID string }
	r.Decode(s.T, &st)
	if r.Status != http.StatusOK || st.ID == "" {
		s.T.Fatalf("post %q with a picture: %d %s", text, r.Status, r.Body)
	}
	return st.ID
}

// TestStreamMedia: the public streams of media, by Server-Sent Events
// (only_media) and by WebSocket (public:media, public:local:media), send
// the updates of the posts with pictures and not of the others, and
// every deletion.
func TestStreamMedia(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, token := s.User("alice")
	sse := []*eventStream{s.listen("/api/v1/streaming/public?only_media=true", ""), s.listen("/api/v1/streaming/public/local?only_media=1", "")}
	ws := s.dial("?stream=public:media", nil)
	sendWS(t, ws, map[string]string{"type": "subscribe", "stream": "public:local:media"})
	settle(t, ws)

	plain := s.Post(token, "words alone")
	pictured := s.postPicture(alice.ID, token, "a picture")
	for _, es := range sse {
		es.expectUpdate("a picture") // the first: not the post of words alone
	}
	var streams []string
	for range 2 {
		m := readWS(t, ws)
		if m.Event != "update" || !strings.Contains(m.Payload, "a picture") || !strings.Contains(m.Payload, `"media_attachments":[{`) {
			t.Fatalf("message %+v; want the update of the post with a picture", m)
		}
		streams = append(streams, strings.Join(m.Stream, "/"))
	}
	if slices.Sort(streams); !slices.Equal(streams, []string{"public:local:media", "public:media"}) {
		t.Fatalf("the update came on the streams %q", streams)
	}
	for _, id := range []string{plain, pictured} {
		if r := s.Call("DELETE", "/api/v1/statuses/"+id, token, nil); r.Status != http.StatusOK {
			t.Fatalf("delete %s: %d %s", id, r.Status, r.Body)
		}
		for _, es := range sse {
			if ev := es.next(); ev.name != "delete" || ev.data != id {
				t.Fatalf("event %+v; want the deletion of %s", ev, id)
			}
		}
		for range 2 {
			if m := readWS(t, ws); m.Event != "delete" || m.Payload != id {
				t.Fatalf("message %+v; want the deletion of %s", m, id)
			}
		}
	}
}
