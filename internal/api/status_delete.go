package api

import "net/http"

// deleteStatus answers DELETE /api/v1/statuses/{id}: the post is
// deleted, and answered as it was, with its text (as Mastodon does, for
// "delete and redraft").
func (s *Server) deleteStatus(w http.ResponseWriter, r *http.Request) {
	p, st, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	if p.AuthorID != viewer(r).ID { // Mastodon's answer: another's post is not found among yours
		notFound(w, r)
		return
	}
	if err := s.store.DeletePost(r.Context(), viewer(r).ID, p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	st.Text = p.Body
	writeJSON(w, http.StatusOK, st)
}
