package streaming_test

import (
	"net/http"
	"testing"
)

// TestStreamBoost: a follower of a booster gets the boost as an update
// (a status whose reblog is the post), and its deletion when it is
// taken back.
func TestStreamBoost(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	_, carolToken := s.User("carol")
	s.follow(carolToken, bob.ID)
	post := s.Post(aliceToken, "boost me")
	s.Drain()
	stream := s.listen("/api/v1/streaming/user", carolToken)

	r := s.Call("POST", "/api/v1/statuses/"+post+"/reblog", bobToken, nil)
	var boost struct{ ID string }
	if r.Decode(t, &boost); r.Status != http.StatusOK || boost.ID == "" {
		t.Fatalf("reblog: %d %s", r.Status, r.Body)
	}
	ev := stream.next()
	var got struct {
		ID      string
		Account struct{ Username string }
		Reblog  *status
	}
	if ev.name == "update" {
		decodeInto(t, ev.data, &got)
	}
	if got.ID != boost.ID || got.Account.Username != "bob" || got.Reblog == nil || got.Reblog.ID != post || got.Reblog.Account.Username != "alice" {
		t.Fatalf("event %s %s; want bob's boost %s of alice's post %s", ev.name, ev.data, boost.ID, post)
	}
	if r := s.Call("POST", "/api/v1/statuses/"+post+"/unreblog", bobToken, nil); r.Status != http.StatusOK {
		t.Fatalf("unreblog: %d %s", r.Status, r.Body)
	}
	if ev := stream.next(); ev.name != "delete" || ev.data != boost.ID {
		t.Fatalf("event %+v; want the deletion of the boost %s", ev, boost.ID)
	}
}
