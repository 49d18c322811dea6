package api_test

import (
	"net/http"
	"strconv"
	"testing"
)

// TestRemoveFromFollowers: POST …/remove_from_followers makes the
// account stop following the user, answers the relationship without
// followed_by, and does nothing more when said again.
func TestRemoveFromFollowers(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	star, starToken := s.User("star")
	fan, fanToken := s.User("fan")
	if r := s.Call(http.MethodPost, "/api/v1/accounts/"+strconv.FormatInt(star.ID, 10)+"/follow", fanToken, nil); r.Status != http.StatusOK {
		t.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	for range 2 {
		var rel struct {
			ID         string
			FollowedBy bool `json:"followed_by"`
		}
		r := s.Call(http.MethodPost, "/api/v1/accounts/"+strconv.FormatInt(fan.ID, 10)+"/remove_from_followers", starToken, nil)
		r.Decode(t, &rel)
		if r.Status != http.StatusOK || rel.ID != strconv.FormatInt(fan.ID, 10) || rel.FollowedBy {
			t.Fatalf("remove: %d %s; want fan's relationship, not followed by", r.Status, r.Body)
		}
	}
	var following []struct{ ID string }
	s.Call(http.MethodGet, "/api/v1/accounts/"+strconv.FormatInt(fan.ID, 10)+"/following", fanToken, nil).Decode(t, &following)
	if len(following) != 0 {
		t.Fatalf("fan follows %v; want nobody", following)
	}
}
