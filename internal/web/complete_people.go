package web

import (
	"net/http"

	"github.com/retwis/retwis"
)

// personJSON is a suggestion of /complete/people.
type personJSON struct {
	Username    string `json:"username"`
	DisplayName string `json:"display_name,omitempty"`
	Followers   int64  `json:"followers"`
}

// completePeople serves GET /complete/people?q=: a JSON list of up to 10
// users found by q as on /search, the most followed first, each with its
// username, display name and follower count. A bad q answers 400 with a
// JSON error.
func (s *Server) completePeople(w http.ResponseWriter, r *http.Request) {
	q, err := searchQuery(r)
	var found []retwis.Person
	if err == nil {
		found, err = s.store.SearchPeople(r.Context(), q, completions)
	}
	if err != nil {
		s.completionFailed(w, "complete people", err)
		return
	}
	people := make([]personJSON, len(found))
	for i, p := range found {
		people[i] = personJSON{Username: p.User.Username, DisplayName: p.DisplayName, Followers: p.Followers}
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, people)
}
