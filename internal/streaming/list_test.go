package streaming_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/coder/websocket"
)

// listOfBob signs up alice, bob and carol, alice following the two, and
// makes alice's list holding bob; it returns the tokens and the list.
func (s *server) listOfBob() (alice, bob, carol, list string) {
	s.T.Helper()
	_, alice = s.User("alice")
	b, bob := s.User("bob")
	c, carol := s.User("carol")
	s.follow(alice, b.ID)
	s.follow(alice, c.ID)
	var l struct{ ID string }
	r := s.Call(http.MethodPost, "/api/v1/lists", alice, url.Values{"title": {"bob"}})
	if r.Decode(s.T, &l); r.Status != http.StatusOK {
		s.T.Fatalf("create a list: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodPost, "/api/v1/lists/"+l.ID+"/accounts", alice, url.Values{"account_ids[]": {strconv.FormatInt(b.ID, 10)}}); r.Status != http.StatusOK {
		s.T.Fatalf("add bob: %d %s", r.Status, r.Body)
	}
	s.Drain()
	return alice, bob, carol, l.ID
}

// TestStreamList: the list stream, by Server-Sent Events and by a
// WebSocket's subscription, carries the posts of the list's members
// (bob's), not those of others the owner follows (carol's), and their
// deletions; only the list's owner may open it.
func TestStreamList(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, bob, carol, list := s.listOfBob()
	sse := s.listen("/api/v1/streaming/list?list="+list, alice)
	ws := s.dial("", &websocket.DialOptions{Subprotocols: []string{alice}})
	sendWS(t, ws, map[string]string{"type": "subscribe", "stream": "list", "list": list})
	settle(t, ws)

	s.Post(carol, "not on the list")
	id := s.Post(bob, "on the list")
	sse.expectUpdate("on the list")
	expectWS(t, ws, []string{"list", list}, "update", "on the list")
	s.Call(http.MethodDelete, "/api/v1/statuses/"+id, bob, nil)
	if ev := sse.next(); ev.name != "delete" || ev.data != id {
		t.Fatalf("event %+v; want the deletion of %s", ev, id)
	}
	expectWS(t, ws, []string{"list", list}, "delete", id)

	if r := s.Call(http.MethodGet, "/api/v1/streaming/list?list="+list, carol, nil); r.Status != http.StatusNotFound {
		t.Errorf("carol opens alice's list stream: %d %s", r.Status, r.Body)
	}
	other := s.dial("", &websocket.DialOptions{Subprotocols: []string{carol}})
	sendWS(t, other, map[string]string{"type": "subscribe", "stream": "list", "list": list})
	if m := readWS(t, other); m.Status != http.StatusNotFound {
		t.Errorf("carol subscribes to alice's list: %+v", m)
	}
}
