package api

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/filters"
)

// maxContext bounds the replies a context lists.
const maxContext = 60

// status answers GET /api/v1/statuses/{id}.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	_, st, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, st)
}

// statusOf reads the post the path names and its entity; ok is false
// once the request has been answered (404 for no such post, or one whose
// author is gone).
func (s *Server) statusOf(w http.ResponseWriter, r *http.Request) (retwis.Post, entity.Status, bool) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return retwis.Post{}, entity.Status{}, false
	}
	p, err := s.Store.Post(r.Context(), apiwire.Viewer(r).ID, pid)
	var out []entity.Status
	if err == nil {
		out, err = s.Statuses(r.Context(), entity.SiteOf(r), []retwis.Post{p})
	}
	switch {
	case err != nil:
		s.Fail(w, r, err)
		return p, entity.Status{}, false
	case len(out) == 0:
		apiwire.NotFound(w, r)
		return p, entity.Status{}, false
	}
	return p, out[0], true
}

// statusContext answers GET /api/v1/statuses/{id}/context: the posts
// above it in its thread, oldest first, and its replies, oldest first
// (the direct replies, up to 60).
func (s *Server) statusContext(w http.ResponseWriter, r *http.Request) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	t, err := s.Store.Thread(r.Context(), apiwire.Viewer(r).ID, pid, 0, maxContext)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	st := entity.SiteOf(r)
	ancestors, err := s.Filtered(r.Context(), st, filters.Thread, t.Ancestors)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	descendants, err := s.Filtered(r.Context(), st, filters.Thread, t.Replies.Posts)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, struct {
		Ancestors   []entity.Status `json:"ancestors"`
		Descendants []entity.Status `json:"descendants"`
	}{ancestors, descendants})
}
