package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSearch: the search's parameters, v2 and v1: following narrows the
// accounts to those the user follows, a link or an address of this
// server finds its post or account (and of another server nothing, as
// retwis does not federate), account_id narrows a linked post to its
// author's, a post the user may not see is not found, and v1 answers
// hashtags as names.
func TestSearch(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	s.User("albert")
	bob, bobToken := s.User("bob")
	_, carolToken := s.User("carol")
	if r := s.Call(http.MethodPost, "/api/v1/accounts/"+strconv.FormatInt(alice.ID, 10)+"/follow", bobToken, nil); r.Status != http.StatusOK {
		t.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	post := s.Post(aliceToken, "a word about #tags")
	var private struct{ ID string }
	s.Call("POST", "/api/v1/statuses", carolToken, map[string]string{"status": "for my followers", "visibility": "private"}).Decode(t, &private)
	s.Drain()
	host := strings.TrimPrefix(s.URL, "http://")
	aliceID, bobID := strconv.FormatInt(alice.ID, 10), strconv.FormatInt(bob.ID, 10)
	type found struct {
		Accounts []struct{ Username string }
		Statuses []struct{ ID string }
	}
	names := func(f found) (out []string) {
		for _, a := range f.Accounts {
			out = append(out, "@"+a.Username)
		}
		for _, st := range f.Statuses {
			out = append(out, st.ID)
		}
		return out
	}
	for _, c := range []struct {
		path, token string
		want        []string
	}{
		{"/api/v2/search?type=accounts&q=al", bobToken, []string{"@alice", "@albert"}}, // the most followed first
		{"/api/v2/search?following=true&q=al", bobToken, []string{"@alice"}},
		{"/api/v2/search?following=true&q=al", "", nil},
		{"/api/v2/search?q=" + url.QueryEscape(s.URL+"/p/"+post), bobToken, []string{post}},
		{"/api/v2/search?resolve=true&q=" + url.QueryEscape(s.URL+"/@alice/"+post), "", []string{post}},
		{"/api/v2/search?account_id=" + aliceID + "&q=" + url.QueryEscape(s.URL+"/p/"+post), bobToken, []string{post}},
		{"/api/v2/search?account_id=" + bobID + "&q=" + url.QueryEscape(s.URL+"/p/"+post), bobToken, nil},
		{"/api/v2/search?type=accounts&q=" + url.QueryEscape(s.URL+"/p/"+post), bobToken, nil},
		{"/api/v2/search?q=" + url.QueryEscape(s.URL+"/p/"+private.ID), bobToken, nil},
		{"/api/v2/search?q=" + url.QueryEscape(s.URL+"/p/"+private.ID), carolToken, []string{private.ID}},
		{"/api/v2/search?q=" + url.QueryEscape(s.URL+"/u/alice"), "", []string{"@alice"}},
		{"/api/v2/search?q=" + url.QueryEscape(s.URL+"/@alice"), "", []string{"@alice"}},
		{"/api/v2/search?q=" + url.QueryEscape("alice@"+host), "", []string{"@alice"}},
		{"/api/v2/search?q=" + url.QueryEscape("@alice@elsewhere.example"), "", nil},
		{"/api/v2/search?q=" + url.QueryEscape("https://elsewhere.example/@alice"), "", nil},
	} {
		var f found
		s.Call(http.MethodGet, c.path, c.token, nil).Decode(t, &f)
		if got := names(f); !slices.Equal(got, c.want) {
			t.Errorf("GET %s found %v; want %v", c.path, got, c.want)
		}
	}
	var accounts []struct{ Username string }
	s.Call(http.MethodGet, "/api/v1/accounts/search?following=1&q=al", bobToken, nil).Decode(t, &accounts)
	if len(accounts) != 1 || accounts[0].Username != "alice" {
		t.Errorf("accounts/search following=1 found %+v; want alice alone", accounts)
	}
	var v1 struct{ Hashtags []string }
	s.Call(http.MethodGet, "/api/v1/search?q=%23ta", "", nil).Decode(t, &v1)
	if !slices.Equal(v1.Hashtags, []string{"tags"}) {
		t.Errorf("v1 search #ta found hashtags %q; want the name tags", v1.Hashtags)
	}
	if r := s.Call(http.MethodGet, "/api/v2/search?account_id=x&q=a", "", nil); r.Status != http.StatusNotFound {
		t.Errorf("account_id=x: %d %s; want 404", r.Status, r.Body)
	}
}
