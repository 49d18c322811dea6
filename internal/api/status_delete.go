package api

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// deleteStatus answers DELETE /api/v1/statuses/{id}: the post is
// deleted, and answered as it was, with its text (as Mastodon does, for
// "delete and redraft").
func (s *Server) deleteStatus(w http.ResponseWriter, r *http.Request) {
	p, st, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	if p.AuthorID != apiwire.Viewer(r).ID { // Mastodon's answer: another's post is not found among yours
		apiwire.NotFound(w, r)
		return
	}
	if err := s.Store.DeletePost(r.Context(), apiwire.Viewer(r).ID, p.ID); err != nil {
		s.Fail(w, r, err)
		return
	}
	st.Text = p.Body
	apiwire.WriteJSON(w, http.StatusOK, st)
}
