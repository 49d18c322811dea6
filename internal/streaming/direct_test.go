package streaming_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// conversation is the part of a Conversation the tests read.
type conversation struct {
	ID         string
	Unread     bool
	Accounts   []struct{ Username string }
	LastStatus status `json:"last_status"`
}

// expectConversation decodes payload as a Conversation and checks that
// it is an unread one with alice whose last post has text.
func expectConversation(t *testing.T, event, payload, text string) {
	t.Helper()
	var c conversation
	if event == "conversation" {
		decodeInto(t, payload, &c)
	}
	if c.ID == "" || !c.Unread || len(c.Accounts) != 1 || c.Accounts[0].Username != "alice" || !strings.Contains(c.LastStatus.Content, text) {
		t.Fatalf("event %s %s; want bob's unread conversation with alice, last %q", event, payload, text)
	}
}

// TestStreamDirect: bob's direct stream, on both transports, tells of
// the direct posts that reach him as their conversations, and of none
// of the other posts of his home timeline.
func TestStreamDirect(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	s.follow(bobToken, alice.ID)
	s.Drain()
	sse := s.listen("/api/v1/streaming/direct", bobToken)
	ws := s.dial("?stream=direct", &websocket.DialOptions{Subprotocols: []string{bobToken}})

	s.Post(aliceToken, "a public word")
	if r := s.Call("POST", "/api/v1/statuses", aliceToken, map[string]string{"status": "@bob a secret word", "visibility": "direct"}); r.Status != http.StatusOK {
		t.Fatalf("direct post: %d %s", r.Status, r.Body)
	}
	ev := sse.next()
	expectConversation(t, ev.name, ev.data, "secret")
	m := readWS(t, ws)
	if strings.Join(m.Stream, "/") != "direct" {
		t.Fatalf("message %+v; want one of the direct stream", m)
	}
	expectConversation(t, m.Event, m.Payload, "secret")
}

// TestStreamQuiet: the streams of remote posts are open and carry
// nothing (retwis federates with no server), nor do those of posts with
// media of a post without pictures, on both transports, while the
// public stream carries the same post.
func TestStreamQuiet(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, aliceToken := s.User("alice")
	for _, path := range []string{"/api/v1/streaming/public/remote", "/api/v1/streaming/public?only_media=true", "/api/v1/streaming/public/local?only_media=1"} {
		s.listen(path, "") // begins with its comment: open
	}
	c := s.dial("?stream=public:remote", nil)
	for _, name := range []string{"public:media", "public:local:media", "public:remote:media", "public"} {
		sendWS(t, c, map[string]string{"type": "subscribe", "stream": name})
	}
	settle(t, c)
	id := s.Post(aliceToken, "nothing remote")
	expectWS(t, c, []string{"public"}, "update", id)
	settle(t, c) // no message of the quiet streams came before its answer
}
