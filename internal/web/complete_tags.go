package web

import (
	"encoding/json"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// Bounds of a completion request.
const (
	maxCompletionPrefix = 100 // characters
	completions         = 10  // suggestions
)

// completeTags serves GET /complete/tags?q=: a JSON list of up to 10
// tags, as first written, that begin with q (ignoring case, accents and a
// leading #), the most used first. A bad q answers 400 with a JSON
// error.
func (s *Server) completeTags(w http.ResponseWriter, r *http.Request) {
	q, err := searchQuery(r)
	var tags []string
	if err == nil {
		tags, err = s.store.CompleteTags(r.Context(), q, completions)
	}
	if err != nil {
		s.completionFailed(w, "complete tags", err)
		return
	}
	if tags == nil {
		tags = []string{}
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, tags)
}

// completionFailed answers a completion request that failed with err
// with its status (and Retry-After, for an unavailable database) and a
// JSON error, logging what is not the request's fault.
func (s *Server) completionFailed(w http.ResponseWriter, what string, err error) {
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
