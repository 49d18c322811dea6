package api

import (
	"net/http"

	"github.com/retwis/retwis"
)

// maxContext bounds the replies a context lists.
const maxContext = 60

// status answers GET /api/v1/statuses/{id}.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	_, st, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// statusOf reads the post the path names and its entity; ok is false
// once the request has been answered (404 for no such post, or one whose
// author is gone).
func (s *Server) statusOf(w http.ResponseWriter, r *http.Request) (retwis.Post, status, bool) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		notFound(w, r)
		return retwis.Post{}, status{}, false
	}
	p, err := s.store.Post(r.Context(), viewer(r).ID, pid)
	var out []status
	if err == nil {
		out, err = s.statuses(r.Context(), newSite(r), []retwis.Post{p})
	}
	switch {
	case err != nil:
		s.fail(w, r, err)
		return p, status{}, false
	case len(out) == 0:
		notFound(w, r)
		return p, status{}, false
	}
	return p, out[0], true
}

// statusContext answers GET /api/v1/statuses/{id}/context: the posts
// above it in its thread, oldest first, and its replies, oldest first
// (the direct replies, up to 60).
func (s *Server) statusContext(w http.ResponseWriter, r *http.Request) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		notFound(w, r)
		return
	}
	t, err := s.store.Thread(r.Context(), viewer(r).ID, pid, 0, maxContext)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st := newSite(r)
	ancestors, err := s.statuses(r.Context(), st, t.Ancestors)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	descendants, err := s.statuses(r.Context(), st, t.Replies.Posts)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Ancestors   []status `json:"ancestors"`
		Descendants []status `json:"descendants"`
	}{ancestors, descendants})
}
