package api_test

import (
	"net/http"
	"slices"
	"testing"
)

// TestDirectory: GET /api/v1/directory lists the accounts that posted,
// the most recently active first, or with order=new every account, the
// newest first, paged by offset and limit; a bad order or offset is
// refused with a message.
func TestDirectory(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, ann := s.User("ann")
	_, bob := s.User("bob")
	s.User("cat")
	s.Post(bob, "first")
	s.Post(ann, "second")
	s.Drain()
	for path, want := range map[string][]string{
		"/api/v1/directory":                            {"ann", "bob"},
		"/api/v1/directory?order=active&local=true":    {"ann", "bob"},
		"/api/v1/directory?order=new":                  {"cat", "bob", "ann"},
		"/api/v1/directory?order=new&offset=1&limit=1": {"bob"},
		"/api/v1/directory?offset=5":                   {},
	} {
		var accounts []struct{ Username string }
		s.Call(http.MethodGet, path, "", nil).Decode(t, &accounts)
		got := []string{}
		for _, a := range accounts {
			got = append(got, a.Username)
		}
		if !slices.Equal(got, want) {
			t.Errorf("GET %s: %v; want %v", path, got, want)
		}
	}
	for _, bad := range []string{"order=old", "offset=-1", "limit=0"} {
		if r := s.Call(http.MethodGet, "/api/v1/directory?"+bad, "", nil); r.Status != http.StatusUnprocessableEntity || r.ErrorMessage(t) == "" {
			t.Errorf("directory?%s: %d %s; want 422 with a message", bad, r.Status, r.Body)
		}
	}
}
