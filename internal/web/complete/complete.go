// Package complete answers what the pages' script static/complete.js
// asks for as someone types in a search box: the tags and the people
// that begin with what was typed, as JSON. It also reads the query of a
// search, which the search pages share (Query).
package complete

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
)

// Bounds of a completion request.
const (
	MaxQuery = 100 // characters of a search's or completion's query
	results  = 10  // suggestions
)

// Query reads the q of a search or completion: at most MaxQuery
// characters of UTF-8 text, trimmed.
func Query(r *http.Request) (string, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if utf8.RuneCountInString(q) > MaxQuery || !utf8.ValidString(q) {
		return "", retwis.Errorf(retwis.Invalid, "Search for at most %d characters of text.", MaxQuery)
	}
	return q, nil
}

// Server answers the completions.
type Server struct {
	store *store.Store
	log   *slog.Logger
}

// New returns a Server that reads st and logs its failures to log.
func New(st *store.Store, log *slog.Logger) *Server { return &Server{store: st, log: log} }

// Tags serves GET /complete/tags?q=: a JSON list of up to 10 tags, as
// first written, that begin with q (ignoring case, accents and a leading
// #), the most used first. A bad q answers 400 with a JSON error.
func (s *Server) Tags(w http.ResponseWriter, r *http.Request) {
	q, err := Query(r)
	var tags []string
	if err == nil {
		tags, err = s.store.CompleteTags(r.Context(), q, results)
	}
	if err != nil {
		s.failed(w, "complete tags", err)
		return
	}
	if tags == nil {
		tags = []string{}
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, tags)
}

// person is a suggestion of /complete/people.
type person struct {
	Username    string `json:"username"`
	DisplayName string `json:"display_name,omitempty"`
	Followers   int64  `json:"followers"`
}

// People serves GET /complete/people?q=: a JSON list of up to 10 users
// found by q as on /search, the most followed first, each with its
// username, display name and follower count. A bad q answers 400 with a
// JSON error.
func (s *Server) People(w http.ResponseWriter, r *http.Request) {
	q, err := Query(r)
	var found []retwis.Person
	if err == nil {
		found, err = s.store.SearchPeople(r.Context(), q, results)
	}
	if err != nil {
		s.failed(w, "complete people", err)
		return
	}
	people := make([]person, len(found))
	for i, p := range found {
		people[i] = person{Username: p.User.Username, DisplayName: p.DisplayName, Followers: p.Followers}
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, people)
}

// failed answers a completion request that failed with err with its
// status (and Retry-After, for an unavailable database) and a JSON
// error, logging what is not the request's fault.
func (s *Server) failed(w http.ResponseWriter, what string, err error) {
	status := middleware.StatusOf(err)
	if status >= 500 {
		s.log.Warn(what, "err", err)
	}
	middleware.SetRetryAfter(w, err)
	writeJSON(w, status, map[string]string{"error": retwis.ErrorMessage(err)})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
