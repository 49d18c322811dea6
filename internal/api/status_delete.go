package api

import (
	"net/http"

	"github.com/retwis/retwis"
)

// deleteStatus answers DELETE /api/v1/statuses/{id}: the post is
// deleted, and answered as it was, with its text (as Mastodon does, for
// "delete and redraft").
func (s *Server) deleteStatus(w http.ResponseWriter, r *http.Request) {
	p, ok := s.postOf(w, r)
	if !ok {
		return
	}
	out, err := s.statuses(r.Context(), newSite(r), []retwis.Post{p})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.store.DeletePost(r.Context(), viewer(r).ID, p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	if len(out) == 0 {
		notFound(w, r)
		return
	}
	out[0].Text = p.Body
	writeJSON(w, http.StatusOK, out[0])
}
